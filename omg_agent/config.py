"""Settings: the one place OMG-Agent reads its configuration (DESIGN.md §2, STYLE.md #2).

:meth:`Settings.load` is called once, by the CLI, and the resulting frozen :class:`Settings`
is passed down to whoever needs it; no other module reads environment variables, and there
is no module-level instance. Sources, strongest first:

1. ``overrides`` (command-line options),
2. ``OMG_*`` environment variables (``OMG_MODEL``, ``OMG_MAX_STEPS``, … — one per field),
3. the TOML file: ``config_file`` if given, else ``$OMG_CONFIG``, else ``omg.toml`` in the
   user's config dir (:func:`~omg_agent.userfiles.user_config_dir`) with ``./omg.toml`` over
   it (top-level keys named like the fields: ``model = "gpt-4o"``) — a ``./omg.toml``
   outside that dir came with a folder, so what it sets that lowers safety (the gate off,
   ``allow``, another endpoint or key: all but :data:`~omg_agent.userfiles.HARMLESS`) is
   refused unless the user says yes at a terminal,
4. ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``, the OpenAI SDK's own variables, as fallbacks,
5. the defaults below.

API keys and ``secrets`` are :class:`~pydantic.SecretStr`: never printed, logged or written
to a trace; :meth:`Settings.redacted_dict` is what ``config show`` prints. ``secrets`` are
named values a task uses as ``{{secret:NAME}}``: ``OMG_SECRET_<NAME>`` variables, a
``[secrets]`` table in the TOML file, or ``run --secret NAME=VALUE``. Names ignore case
(kept lower-cased, :func:`~omg_agent.core.secrets.secret_key`): ``OMG_SECRET_USER`` is the
task's ``{{secret:user}}`` and ``{{secret:USER}}``, and a stronger source's ``PW`` replaces a
weaker one's ``pw``.
"""

from __future__ import annotations

import difflib
import logging
import os
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
)

from omg_agent.core.secrets import secret_key
from omg_agent.errors import ConfigError
from omg_agent.userfiles import config_files, refuse_unsafe

ENV_PREFIX = "OMG_"
SECRET_PREFIX = "OMG_SECRET_"
# Fallbacks after the config file: the OpenAI SDK's variables, often already exported.
_OPENAI_FALLBACKS = {"api_key": "OPENAI_API_KEY", "base_url": "OPENAI_BASE_URL"}
Role = Literal["planner", "operator"]
# OMG_* variables that are not settings: the config file's path, the tests' real UI dumps,
# forcing the benches' progress bar on or off.
_OTHER_ENV = ("CONFIG", "REAL_DUMPS", "PROGRESS", "FONT_DIRS")  # FONT_DIRS: the vphone's fonts
_WARNED: set[str] = set()
log = logging.getLogger(__name__)


class Settings(BaseModel):
    """Everything configurable, validated. Build with :meth:`load`; pass it down."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str | None = Field(
        None, description="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1; "
                          "unset means OpenAI's own API.")
    api_key: SecretStr | None = Field(None, description="Key for the endpoint, if it needs one.")
    mcp_token: SecretStr | None = Field(
        None, min_length=16, max_length=256, description="The bearer token `omg-agent mcp "
        "--http` requires (default: a new one, printed once at start).")
    model: str | None = Field(None, description="Model name for every role.")
    planner_model: str | None = Field(None, description="Model for the planner (L1).")
    operator_model: str | None = Field(None, description="Model for the operator (L2).")
    timeout_s: float = Field(60.0, gt=0, le=600, description="Per-request timeout, seconds.")
    max_retries: int = Field(
        4, ge=0, le=10, description="Retries of a request after 429 / 5xx / connection errors.")
    retry_backoff_s: float = Field(
        1.0, ge=0, le=60, description="First retry delay; doubles each retry, with jitter.")
    retry_backoff_max_s: float = Field(30.0, ge=0, le=600, description="Longest retry delay.")
    parse_attempts: int = Field(
        3, ge=1, le=10, description="Model replies tried per structured call before giving up.")
    strict_schema: bool = Field(
        False, description="Send the JSON schema with strict=true (OpenAI structured outputs).")
    image_max_side: int = Field(
        1024, ge=128, le=4096, description="Screenshots are downscaled to this longer side.")
    jpeg_quality: int = Field(80, ge=10, le=100, description="JPEG quality of screenshots.")
    max_steps: int = Field(60, ge=1, le=100_000, description="Step budget of one run.")
    run_timeout_s: float | None = Field(
        None, gt=0, le=7 * 24 * 3600, allow_inf_nan=False,
        description="Deadline of one run, seconds (run --timeout): past it the run stops at "
                    "the next step boundary, and no model request outlasts it; unset = none.")
    device: str | None = Field(None, description="adb serial, or 'vphone'.")
    device_grace_s: float = Field(
        30.0, ge=0, le=3600, description="How long a dropped device (offline, unauthorized, "
        "adb server restarted) is waited for before the run stops, seconds.")
    runs_dir: Path = Field(Path("runs"), description="Where run folders (traces) are written.")
    memory_db: Path | None = Field(
        None, description="MemoryBank sqlite file; default <runs_dir>/memory.sqlite.")
    long_term_memory: bool = Field(
        False, description="Let runs read and write the long-term memory scope.")
    secrets: dict[str, SecretStr] = Field(
        default_factory=dict, description="Named secrets a task uses as {{secret:NAME}}: "
                                          "OMG_SECRET_<NAME>, [secrets] in omg.toml or "
                                          "run --secret NAME=VALUE.")
    bound_secrets: dict[str, str] = Field(
        default_factory=dict, description="Where a secret may be typed, NAME → APP or "
                                          "APP:FIELD (run --secret NAME@APP:FIELD; never "
                                          "from a file): only into that app's password "
                                          "field (that field). Unbound: a password field "
                                          "of the task's app.")
    confirm_done: Literal["always", "unverified", "never"] = Field(
        "unverified", description="When the planner confirms the operator's 'goal complete' "
                                  "against the last screen (one more model call): always; "
                                  "unverified = only when the screen does not prove it "
                                  "(no end checks, nothing read off the screen, an answer "
                                  "that does not quote it), and never in a JSON model's "
                                  "flat loop; never.")
    planning: Literal["flat", "unified", "replan-each", "adaptive"] = Field(
        "unified", description="How the work is planned: unified = the operator keeps its "
                               "own checklist and the end state's checks and bundles; the "
                               "planner is called only once a step failed, and then takes "
                               "over; adaptive = plan once, ask the planner again only after "
                               "a failed step, a user's answer, an operator saying the plan "
                               "no longer fits, or data the plan did not foresee; "
                               "replan-each = plan once, ask again after every finished "
                               "step; flat = no planner, one action per model call (the "
                               "peers' loop).")
    dialect: Literal["auto", "json", "autoglm", "uitars", "qwen-mobile"] = Field(
        "auto", description="The operator model's action format: json (ours), autoglm, "
                            "uitars, qwen-mobile; auto = from the operator model's name.")
    vision: Literal["auto", "always", "never"] = Field(
        "auto", description="When the operator model sees the screenshot: always; never "
                            "(the element list alone); auto = when it adds information "
                            "(no usable element list, unlabeled icons, an action whose "
                            "effect is unclear, the model asked to look). Dialect models "
                            "(autoglm, uitars, qwen-mobile) always get it.")
    auto_verify: bool = Field(
        True, description="Tick a step as soon as its checks pass on the screen after the "
                          "operator acted, without a model turn that only says so.")
    allow: str = Field(
        "", description="Sensitive-action classes the user pre-authorises, comma-separated "
                        "(payment, delete, send, install, permission, secret_entry, "
                        "account_security; 'send:Bob' names a target, 'payment:<=100' or "
                        "'payment:Shop<=¥100' a limit). Nothing else skips the confirmation.")
    gate: bool = Field(True, description="Hold sensitive actions for the user's yes. Off "
                                         "only for benchmarks that measure the gate.")
    loop_guard: bool = Field(True, description="Break loops without model calls (wait, "
                                               "re-tap offset, back, post-mortem).")

    @field_validator("confirm_done", mode="before")
    @classmethod
    def _confirm_flag(cls, value: Any) -> Any:
        """true / false read as always / never."""
        if isinstance(value, bool):
            return "always" if value else "never"
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0",
                                                                  "yes", "no", "on", "off"):
            return "always" if value.strip().lower() in ("true", "1", "yes", "on") else "never"
        return value

    @field_validator("secrets", "bound_secrets", mode="before")
    @classmethod
    def _secret_names(cls, value: Any) -> Any:
        """Names in one spelling; of two spellings of a name, the later (stronger) wins."""
        if not isinstance(value, Mapping):
            return value
        return {secret_key(str(name)): secret for name, secret in value.items()}

    _sources: dict[str, str] = PrivateAttr(default_factory=dict)

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value

    @field_validator("model", "planner_model", "operator_model", "device")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None

    # -- building ------------------------------------------------------------------------
    @classmethod
    def load(cls, *, env: Mapping[str, str] | None = None, config_file: Path | None = None,
             overrides: Mapping[str, Any] | None = None,
             confirm: Callable[[str], bool] | None = None) -> Settings:
        """Settings from overrides, ``env`` (default ``os.environ``), file and defaults.
        ``confirm`` asks the user at a terminal before a file outside their config dir
        lowers safety (:data:`~omg_agent.userfiles.HARMLESS`); without it such a file is refused
        (:class:`~omg_agent.errors.UnsafeSetting`)."""
        env = os.environ if env is None else env
        for line in unknown_env(env):
            if line not in _WARNED:  # once per process, however often settings load
                _WARNED.add(line)
                log.warning("%s", line)
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}
        for name, var in _OPENAI_FALLBACKS.items():
            if env.get(var, "").strip():
                values[name], sources[name] = env[var].strip(), var
        found: list[Path] = []  # files outside the user's config dir that were read
        for path, own in config_files(env, config_file):
            for name, value in _read_toml(path).items():
                if name in _OPTION_ONLY:
                    raise ConfigError(f"{path}: {name} cannot be set in a file: bind a "
                                      "secret on the command line, --secret NAME@APP:FIELD")
                values[name], sources[name] = value, f"{path}: {name}"
            found += [] if own else [path]
        for name in cls.model_fields:
            var = ENV_PREFIX + name.upper()
            if name not in ("secrets", *_OPTION_ONLY) and env.get(var, "").strip():
                values[name], sources[name] = env[var].strip(), var
        named = {var[len(SECRET_PREFIX):]: value for var, value in env.items()
                 if var.startswith(SECRET_PREFIX) and len(var) > len(SECRET_PREFIX) and value}
        if named:
            values["secrets"] = {**values.get("secrets", {}), **named}
            sources["secrets"] = SECRET_PREFIX + "*"
        for name, value in (overrides or {}).items():
            if value is not None:
                if name in ("secrets", "bound_secrets"):
                    value = {**values.get(name, {}), **value}
                values[name], sources[name] = value, f"option {name}"
        for path in found:
            refuse_unsafe(path, values, sources, confirm)
        try:
            settings = cls(**values)
        except ValidationError as exc:
            raise ConfigError(_explain(exc, sources)) from None
        settings._sources.update(sources)
        return settings

    # -- reading -------------------------------------------------------------------------
    def source(self, name: str) -> str:
        """Where field ``name`` came from: a variable, ``file: key``, an option, or default."""
        return self._sources.get(name, "default")

    def model_for(self, role: Role) -> str | None:
        """The model name ``role`` uses: its own override, else ``model``."""
        own = self.planner_model if role == "planner" else self.operator_model
        return own or self.model

    @property
    def needs_api_key(self) -> bool:
        """OpenAI's own API needs a key; a custom endpoint may not."""
        return self.base_url is None

    @property
    def model_configured(self) -> bool:
        """Both roles have a model and the endpoint can be reached with what is set."""
        has_models = bool(self.model_for("planner") and self.model_for("operator"))
        return has_models and not (self.needs_api_key and self.api_key is None)

    @property
    def memory_path(self) -> Path:
        return self.memory_db or self.runs_dir / "memory.sqlite"

    def missing_model_help(self) -> str:
        """What to set, exactly, for :attr:`model_configured` to become true."""
        has_models = bool(self.model_for("operator") and self.model_for("planner"))
        if has_models and self.needs_api_key and self.api_key is None:
            return (f"No API key for OpenAI's API: model {self.model_for('operator')} goes to "
                    "OpenAI's own endpoint (no OMG_BASE_URL is set), which needs a key. Set:\n"
                    "  OMG_API_KEY=<key>           (or OPENAI_API_KEY)\n"
                    "or OMG_BASE_URL=<endpoint> for another OpenAI-compatible server, e.g. "
                    "http://localhost:8000/v1 (vLLM, SGLang); or write api_key / base_url "
                    "into omg.toml.")
        lines = ["No model is configured. Set:"]
        if not has_models:
            lines.append("  OMG_MODEL=<model name>      e.g. gpt-4o, qwen2.5-vl-72b-instruct, "
                         "autoglm-phone-9b (or OMG_PLANNER_MODEL and OMG_OPERATOR_MODEL)")
        if self.base_url is None:
            lines.append("  OMG_BASE_URL=<endpoint>     for anything but OpenAI's API, e.g. "
                         "http://localhost:8000/v1 (vLLM, SGLang), http://localhost:11434/v1 "
                         "(Ollama)")
        if self.needs_api_key and self.api_key is None:
            lines.append("  OMG_API_KEY=<key>           (or OPENAI_API_KEY) — OpenAI's API "
                         "needs one; a local endpoint set by OMG_BASE_URL may not")
        lines.append("or write the same keys (model, base_url, api_key) into omg.toml.")
        return "\n".join(lines)

    def redacted_dict(self) -> dict[str, Any]:
        """Every setting as JSON-ready data, secrets replaced by ``"***"`` (or ``None``)."""
        out = self.model_dump(mode="json")
        out["api_key"] = None if self.api_key is None else "***"
        out["mcp_token"] = None if self.mcp_token is None else "***"
        out["secrets"] = {name: "***" for name in self.secrets}
        return out


def unknown_env(env: Mapping[str, str]) -> list[str]:
    """One line per ``OMG_*`` variable no setting reads, naming the closest known one."""
    known = [ENV_PREFIX + n.upper() for n in Settings.model_fields if n != "secrets"]
    known += [ENV_PREFIX + n for n in _OTHER_ENV]
    lines = []
    for var in sorted(env):
        if not var.startswith(ENV_PREFIX) or var in known or var.startswith(SECRET_PREFIX):
            continue
        close = difflib.get_close_matches(var, known, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else "see `omg-agent config show`"
        lines.append(f"{var} is not a setting OMG-Agent reads ({hint})")
    return lines


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc}") from None
    unknown = sorted(set(data) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)}; known: "
                          + ", ".join(Settings.model_fields))
    return data


# command-line options named unlike their setting
_FLAGS = {"run_timeout_s": "--timeout", "secrets": "--secret", "bound_secrets": "--secret"}
_SECRET_FIELDS = ("api_key", "mcp_token", "secrets")
_OPTION_ONLY = ("bound_secrets",)  # where a secret may be typed: the user's command line only


def _explain(exc: ValidationError, sources: Mapping[str, str]) -> str:
    problems = []
    for error in exc.errors(include_url=False):
        name = str(error["loc"][0]) if error["loc"] else "settings"
        where = sources.get(name, name)
        if where.startswith("option "):  # what the user typed: --base-url, not base_url
            where = _FLAGS.get(name, "--" + name.replace("_", "-"))
        msg = str(error["msg"]).removeprefix("Value error, ")
        given = error.get("input")
        if (name not in _SECRET_FIELDS and isinstance(given, str | int | float)
                and len(str(given)) <= 80 and repr(given) not in msg):
            where = f"{where} {given!r}"  # the bad value, named (never a key's)
        problems.append(f"{where}: {msg}")
    return "invalid settings: " + "; ".join(problems)
