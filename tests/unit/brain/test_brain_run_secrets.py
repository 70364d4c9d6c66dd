"""The run's secrets come from every source under one spelling of each name, and a task is
refused before anything runs when it names a secret nobody gave or is too long."""

from __future__ import annotations

import pytest

from omg_agent.brain.agent import MAX_TASK_CHARS, check_task, run_secrets
from omg_agent.config import Settings
from omg_agent.errors import ConfigError


def _settings(env: dict[str, str], named: dict[str, str] | None = None) -> Settings:
    return Settings.load(env={"OMG_MODEL": "m", "OMG_BASE_URL": "http://127.0.0.1:9/v1",
                              **env}, overrides={"secrets": named})


def test_omg_secret_user_is_the_tasks_uppercase_placeholder() -> None:
    vault = run_secrets("Sign in as {{secret:USER}}", _settings({"OMG_SECRET_USER": "demo-7"}))
    assert vault.reveal("{{secret:USER}}") == "demo-7"


def test_the_option_beats_the_environment_whatever_the_case() -> None:
    settings = _settings({"OMG_SECRET_PW": "from-env-1"}, {"pw": "from-option-2"})
    assert {k: v.get_secret_value() for k, v in settings.secrets.items()} == \
        {"pw": "from-option-2"}


def test_an_unknown_placeholder_is_one_line_naming_the_known_secrets() -> None:
    settings = _settings({"OMG_SECRET_USER": "demo-7", "OMG_API_KEY": "sk-long-enough-key"},
                         {"pw": "hunter22"})
    with pytest.raises(ConfigError) as err:
        run_secrets("type {{secret:NOPE}} then {{secret:pw}}", settings)
    message = str(err.value)
    assert message == ("the task uses {{secret:NOPE}} but no such secret is given (known: "
                       "pw, user); give it with --secret NOPE=… or OMG_SECRET_NOPE")
    assert "hunter22" not in message and "demo-7" not in message


def test_a_task_past_the_limit_is_refused_saying_the_limit() -> None:
    check_task("x" * MAX_TASK_CHARS)
    with pytest.raises(ConfigError, match="at most 10,000 are accepted"):
        check_task("x" * (MAX_TASK_CHARS + 1))
