"""Settings: env over file over defaults, the OpenAI fallbacks, secrets, and the help text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omg_agent import config
from omg_agent.config import Settings
from omg_agent.errors import ConfigError

KEY = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def _no_stray_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # so no ./omg.toml of the developer's is picked up


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_with_nothing_set() -> None:
    s = Settings.load(env={})
    assert s.model is None and s.base_url is None and s.api_key is None
    assert s.max_steps == 60 and s.image_max_side == 1024 and s.runs_dir == Path("runs")
    assert s.source("max_steps") == "default"
    assert not s.model_configured


def test_env_vars_fill_every_documented_setting(tmp_path: Path) -> None:
    env = {"OMG_BASE_URL": "http://localhost:8000/v1/", "OMG_API_KEY": KEY,
           "OMG_MODEL": "qwen-vl", "OMG_PLANNER_MODEL": "big", "OMG_OPERATOR_MODEL": "fast",
           "OMG_TIMEOUT_S": "12.5", "OMG_MAX_RETRIES": "2", "OMG_IMAGE_MAX_SIDE": "768",
           "OMG_JPEG_QUALITY": "70", "OMG_MAX_STEPS": "25", "OMG_DEVICE": "vphone",
           "OMG_RUNS_DIR": str(tmp_path / "r"), "OMG_STRICT_SCHEMA": "true"}
    s = Settings.load(env=env)
    assert s.base_url == "http://localhost:8000/v1"
    assert s.api_key is not None and s.api_key.get_secret_value() == KEY
    assert (s.model_for("planner"), s.model_for("operator")) == ("big", "fast")
    assert (s.timeout_s, s.max_retries, s.image_max_side, s.jpeg_quality, s.max_steps) == (
        12.5, 2, 768, 70, 25)
    assert s.device == "vphone" and s.runs_dir == tmp_path / "r" and s.strict_schema
    assert s.source("max_steps") == "OMG_MAX_STEPS"


def test_env_wins_over_the_file_and_the_file_over_defaults(tmp_path: Path) -> None:
    path = write(tmp_path / "omg.toml", 'model = "from-file"\nmax_steps = 40\n'
                                        'base_url = "http://file:1/v1"\n')
    s = Settings.load(env={"OMG_MODEL": "from-env"}, config_file=path)
    assert s.model == "from-env" and s.source("model") == "OMG_MODEL"
    assert s.max_steps == 40 and s.source("max_steps") == f"{path}: max_steps"
    assert s.base_url == "http://file:1/v1"


def test_options_win_over_env() -> None:
    s = Settings.load(env={"OMG_MAX_STEPS": "9"}, overrides={"max_steps": 3, "device": None})
    assert s.max_steps == 3 and s.source("max_steps") == "option max_steps"


def test_omg_toml_in_the_working_directory_and_omg_config_are_found(tmp_path: Path) -> None:
    write(tmp_path / "omg.toml", 'model = "cwd"\n')
    assert Settings.load(env={}).model == "cwd"
    other = write(tmp_path / "other.toml", 'model = "named"\n')
    assert Settings.load(env={"OMG_CONFIG": str(other)}).model == "named"


def test_openai_api_key_is_only_a_fallback() -> None:
    assert Settings.load(env={"OPENAI_API_KEY": KEY}).source("api_key") == "OPENAI_API_KEY"
    s = Settings.load(env={"OPENAI_API_KEY": "sk-general", "OMG_API_KEY": KEY})
    assert s.api_key is not None and s.api_key.get_secret_value() == KEY


def test_a_key_in_the_file_beats_openai_api_key(tmp_path: Path) -> None:
    # OPENAI_API_KEY is often exported for OpenAI itself; a file naming another endpoint
    # and its key must not have that key replaced by it.
    path = write(tmp_path / "omg.toml", 'api_key = "file-key"\nbase_url = "http://x:1/v1"\n')
    s = Settings.load(env={"OPENAI_API_KEY": "sk-general"}, config_file=path)
    assert s.api_key is not None and s.api_key.get_secret_value() == "file-key"


def test_bad_values_name_their_source(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="OMG_MAX_STEPS"):
        Settings.load(env={"OMG_MAX_STEPS": "lots"})
    with pytest.raises(ConfigError, match="OMG_BASE_URL: .*not an http"):
        Settings.load(env={"OMG_BASE_URL": "localhost:8000"})
    path = write(tmp_path / "omg.toml", "jpeg_quality = 5\n")
    with pytest.raises(ConfigError, match="omg.toml: jpeg_quality"):
        Settings.load(env={}, config_file=path)


def test_file_problems_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown setting.*modle"):
        Settings.load(env={}, config_file=write(tmp_path / "a.toml", 'modle = "x"\n'))
    with pytest.raises(ConfigError, match="cannot be read"):
        Settings.load(env={}, config_file=write(tmp_path / "b.toml", "model = \n"))
    with pytest.raises(ConfigError, match="does not exist"):
        Settings.load(env={}, config_file=tmp_path / "missing.toml")


def test_the_api_key_is_never_shown() -> None:
    s = Settings.load(env={"OMG_API_KEY": KEY, "OMG_MODEL": "m"})
    shown = [repr(s), str(s), json.dumps(s.redacted_dict()), s.missing_model_help(),
             s.model_dump_json()]
    assert all(KEY not in text for text in shown)
    assert s.redacted_dict()["api_key"] == "***"
    assert Settings.load(env={}).redacted_dict()["api_key"] is None


def test_named_secrets_come_from_variables_the_file_and_options_and_are_never_shown(
        tmp_path: Path) -> None:
    toml = write(tmp_path / "omg.toml", '[secrets]\npin = "2468-1357"\npw = "from-file"\n')
    s = Settings.load(env={"OMG_SECRET_PW": "omg5865", "OMG_SECRET_": "ignored"},
                      config_file=toml, overrides={"secrets": {"otp": "864210"}})
    assert {k: v.get_secret_value() for k, v in s.secrets.items()} == {
        "pin": "2468-1357", "pw": "omg5865", "otp": "864210"}
    shown = [repr(s), str(s), json.dumps(s.redacted_dict()), s.model_dump_json()]
    assert not any(v in text for text in shown for v in ("2468-1357", "omg5865", "864210"))
    assert s.redacted_dict()["secrets"] == {"pin": "***", "pw": "***", "otp": "***"}


def test_model_configured_needs_a_model_and_a_key_or_an_endpoint() -> None:
    assert Settings(model="gpt-4o", api_key=KEY).model_configured
    assert Settings(model="local", base_url="http://127.0.0.1:8000/v1").model_configured
    assert not Settings(model="gpt-4o").model_configured  # OpenAI needs a key
    assert not Settings(planner_model="p", base_url="http://h:1/v1").model_configured
    assert Settings(planner_model="p", operator_model="o",
                    base_url="http://h:1/v1").model_configured


def test_missing_model_help_names_exactly_what_to_set() -> None:
    text = Settings().missing_model_help()
    assert "OMG_MODEL" in text and "OMG_BASE_URL" in text and "OMG_API_KEY" in text
    assert "OPENAI_API_KEY" in text and "omg.toml" in text
    only_model = Settings(base_url="http://h:1/v1").missing_model_help()
    assert "OMG_MODEL" in only_model and "OMG_API_KEY" not in only_model
    only_key = Settings(model="gpt-4o").missing_model_help()
    assert "OMG_API_KEY" in only_key and "OMG_MODEL=" not in only_key


def test_settings_are_frozen_and_not_a_module_global() -> None:
    s = Settings()
    with pytest.raises(ValueError):
        s.max_steps = 3  # type: ignore[misc]
    assert not [v for v in vars(config).values() if isinstance(v, Settings)]


def test_memory_path_defaults_into_the_runs_dir(tmp_path: Path) -> None:
    assert Settings(runs_dir=tmp_path).memory_path == tmp_path / "memory.sqlite"
    assert Settings(memory_db=tmp_path / "m.db").memory_path == tmp_path / "m.db"
