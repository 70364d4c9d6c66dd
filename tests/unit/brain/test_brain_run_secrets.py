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


# -- where a secret may be typed (issue 34 §3) ------------------------------------------------
def test_the_api_key_is_masked_but_never_typeable() -> None:
    vault = run_secrets("Look up the weather", _settings({"OMG_API_KEY": "sk-live-0123456789ab"}))
    assert vault.mask("k=sk-live-0123456789ab") == "k={{secret:api_key}}"
    assert vault.unknown("{{secret:api_key}}") == ["api_key"]
    assert vault.reveal("{{secret:api_key}}") == "{{secret:api_key}}"
    with pytest.raises(ConfigError, match="no such secret"):
        run_secrets("type {{secret:api_key}}", _settings({"OMG_API_KEY": "sk-live-0123456789ab"}))


def test_secret_options_bind_a_secret_to_an_app_and_a_field() -> None:
    from omg_agent.core.secrets import Binding, parse_secret_options

    values, bound = parse_secret_options(["pw@Login:password=omg5865", "PIN@com.bank",
                                          "user=demo"])
    assert values == {"pw": "omg5865", "user": "demo"}
    assert bound == {"pw": Binding("Login", "password"), "pin": Binding("com.bank")}
    settings = Settings.load(env={"OMG_MODEL": "m", "OMG_BASE_URL": "http://127.0.0.1:9/v1",
                                  "OMG_SECRET_PIN": "2468"},
                             overrides={"secrets": values,
                                        "bound_secrets": {n: str(b) for n, b in bound.items()}})
    vault = run_secrets("Pay the bill", settings)
    assert vault.binding("pw") == Binding("Login", "password")
    assert vault.binding("pin") == Binding("com.bank") and vault.binding("user") == Binding()
    for bad in ("@Login", "pw@", "pw@Login=", "hunter2"):
        with pytest.raises(ValueError, match="NAME@APP") as err:
            parse_secret_options([bad])
        assert "hunter2" not in str(err.value)


def test_a_binding_for_a_secret_nobody_gave_is_refused() -> None:
    settings = Settings.load(env={"OMG_MODEL": "m", "OMG_BASE_URL": "http://127.0.0.1:9/v1"},
                             overrides={"bound_secrets": {"pw": "Login"}})
    with pytest.raises(ConfigError, match="--secret binds pw but no such secret is given"):
        run_secrets("Sign in", settings)


def test_a_config_file_never_says_where_a_secret_goes(tmp_path) -> None:
    path = tmp_path / "omg.toml"
    path.write_text('[bound_secrets]\npw = "Chrome:url_bar"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot be set in a file"):
        Settings.load(config_file=path, env={"OMG_MODEL": "m"})
