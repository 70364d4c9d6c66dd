"""``omg-agent doctor``'s checks of the model endpoint, with the real ``openai`` client.

From :class:`~omg_agent.config.Settings`: the endpoint is reachable (``GET /models``), each
configured model (planner and operator) is in that list, accepts ``response_format``
``json_schema`` (the agent's contracts go that way; without it the client falls back to
weaker modes) and sees images (a tiny coloured picture sent the way the operator sends
screenshots; the agent cannot work without vision). Nothing configured: one yellow line
saying what to set. Each request is tiny and is tried once (no retries), with a short
timeout.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, cast

import openai
from PIL import Image

from omg_agent.config import Settings
from omg_agent.doctor import Check

log = logging.getLogger(__name__)

DOCTOR_TIMEOUT_S = 30.0
PING_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}},
               "required": ["ok"], "additionalProperties": False}
VISION_PROMPT = ("What colour fills this picture? Answer with one word, the colour's "
                 "English name.")
VISION_COLOUR = ((220, 30, 30), "red")
VLM_EXAMPLES = "e.g. gpt-4o, qwen2.5-vl-72b-instruct, autoglm-phone-9b"


def model_checks(settings: Settings) -> list[Check]:
    """The endpoint's lines (see the module docstring)."""
    if not settings.model_configured:
        return [Check("model", "warn", "no model configured: `omg-agent demo` uses the "
                      "simulated double; `omg-agent run` needs a model",
                      settings.missing_model_help())]
    from omg_agent.brain.llm import OPENAI_URL, openai_client

    url = settings.base_url or OPENAI_URL
    client = openai_client(settings, min(settings.timeout_s, DOCTOR_TIMEOUT_S))
    with client:
        reach, served = _reachable(client, url)
        lines = [reach]
        for role_field, model in _models(settings):
            if reach.status == "fail":
                lines.append(Check(f"model {model}", "warn", "skipped: the endpoint is not "
                                   "reachable", "fix the endpoint line above first"))
                continue
            exists = _exists(model, role_field, served, url, settings)
            lines.append(exists)
            if exists.status != "fail":
                lines += [_json_schema(client, model), _vision(client, model, settings,
                                                               role_field)]
        lines.append(dialect_check(settings))
        if lines[-1].status != "fail" and reach.status != "fail":
            lines += _pixel_probe(client, settings)
    return lines


def key_check(settings: Settings) -> Check:
    """``doctor --model``: one small chat request to the configured model, which proves the
    endpoint is up, the key is taken and the model is served — one line either way."""
    if not settings.model_configured:
        return model_checks(settings)[0]
    from omg_agent.brain.llm import OPENAI_URL, openai_client

    url, model = settings.base_url or OPENAI_URL, settings.model_for("operator") or ""
    name = f"model {model}"
    with openai_client(settings, min(settings.timeout_s, DOCTOR_TIMEOUT_S)) as client:
        text, error = _ask(lambda: client.chat.completions.create(
            model=model, max_tokens=16,
            messages=[{"role": "user", "content": "Reply with the word OK."}]))
    if isinstance(error, openai.APIConnectionError):
        return Check(name, "fail", f"cannot reach {url}: {_one_line(str(error))}",
                     "start the model server, or fix OMG_BASE_URL (it usually ends in /v1)")
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        return Check(name, "fail", f"{url} refused the API key (HTTP {error.status_code})",
                     "set OMG_API_KEY (or OPENAI_API_KEY) to a valid key for this endpoint")
    if isinstance(error, openai.NotFoundError):
        return Check(name, "fail", f"{url} does not serve {model!r} (HTTP 404: "
                     f"{_message(error)})", f"set {_variable(settings, 'model')} to a model "
                     "the endpoint serves (`omg-agent doctor --only model` lists them)")
    if error is not None:
        return _error_check(name, error)
    key = "with the key set" if settings.api_key else "with no key set"
    return Check(name, "ok", f"{url} answered one request to {model!r} {key} "
                 f"({len(text or '')} characters)")


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


def _pixel_probe(client: openai.OpenAI, settings: Settings) -> list[Check]:
    """A dialect model taps a dot on a synthetic screen: a wrong server pixel limit shows
    as taps at a fraction of the dot's position (:mod:`omg_agent.brain.dialects.probe`)."""
    from omg_agent.brain.dialects import dialect_for
    from omg_agent.brain.dialects.probe import judge, probe_messages

    dialect = dialect_for(settings)
    model = settings.model_for("operator")
    if dialect is None or model is None:
        return []
    messages, _ = probe_messages(dialect)
    text, error = _ask(lambda: client.chat.completions.create(
        model=model, messages=cast("list[openai.types.chat.ChatCompletionMessageParam]",
                                   messages)))
    name = f"model {model} pixel probe"
    if error is not None:
        return [_error_check(name, error)]
    result = judge(dialect, text or "")
    return [Check(name, result.status, result.detail, result.fix)]


def dialect_check(settings: Settings) -> Check:
    """Which format the operator model is spoken to in, and how that was decided."""
    from omg_agent.brain.dialects import DIALECTS, adapt_settings, judgeless, resolved
    from omg_agent.errors import ConfigError

    name, how = resolved(settings)
    model = settings.model_for("operator")
    try:
        adapt_settings(settings)
    except ConfigError as exc:
        return Check("dialect", "fail", f"{name} ({how}) cannot run as configured: {exc}",
                     "follow the error, or set OMG_DIALECT=json")
    if name == "json":
        return Check("dialect", "ok", f"operator model {model!r} answers our JSON ({how}); "
                     "set OMG_DIALECT to autoglm, uitars or qwen-mobile for a phone model")
    detail = (f"operator model {model!r} speaks {name} ({how}): "
              f"{DIALECTS[name].coordinates}; one action per call (planning flat)")
    if judgeless(settings):
        return Check("dialect", "warn", f"{detail}; no general model to confirm a finished "
                     "task: a 'done' no check could verify ends unverified (exit 9)",
                     "set OMG_PLANNER_MODEL to a general model (e.g. gpt-4o) to have it "
                     "confirmed from the screen")
    return Check("dialect", "ok", detail)


def _models(settings: Settings) -> list[tuple[str, str]]:
    """(setting that names it, model) for each distinct model the two roles use."""
    out: dict[str, str] = {}
    for role in ("planner", "operator"):
        own = f"{role}_model"
        model = settings.model_for(role)
        if model and model not in out:
            out[model] = own if getattr(settings, own) else "model"
    return [(field, model) for model, field in out.items()]


def _variable(settings: Settings, field: str) -> str:
    source = settings.source(field)
    return source if source != "default" else f"OMG_{field.upper()}"


def _reachable(client: openai.OpenAI, url: str) -> tuple[Check, list[str] | None]:
    try:
        raw = client.models.with_raw_response.list()
        kind = raw.headers.get("content-type") or ""
        if "json" not in kind:  # a web page: the SDK cannot read it as a list
            return _not_json(url, kind), None
        page = raw.parse()
    except openai.NotFoundError:
        return Check("model endpoint", "warn", f"{url} answers but has no /models list: model "
                     "names cannot be checked", "none needed if the model name is right"), None
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        return Check("model endpoint", "fail", f"{url} refused the API key "
                     f"(HTTP {exc.status_code})", "set OMG_API_KEY (or OPENAI_API_KEY) to a "
                     "valid key for this endpoint"), None
    except openai.APIStatusError as exc:
        return Check("model endpoint", "fail", f"{url}/models answered HTTP {exc.status_code}: "
                     f"{_message(exc)}", "check OMG_BASE_URL (it usually ends in /v1)"), None
    except openai.APIConnectionError as exc:
        return Check("model endpoint", "fail", f"cannot reach {url}: {exc}",
                     "start the model server, or fix OMG_BASE_URL (e.g. "
                     "http://localhost:8000/v1)"), None
    served = [m.id for m in page.data]
    return Check("model endpoint", "ok", f"{url} is reachable ({len(served)} model(s) listed)"), \
        served


def _not_json(url: str, content_type: str | None) -> Check:
    from omg_agent.brain.endpoint_faults import not_json_message

    return Check("model endpoint", "fail",
                 not_json_message(url, content_type).removeprefix("model endpoint "),
                 "set OMG_BASE_URL to the API's base URL, which usually ends in /v1 "
                 "(e.g. http://localhost:8000/v1), not a web page")


def _exists(model: str, field: str, served: list[str] | None, url: str,
            settings: Settings) -> Check:
    name = f"model {model}"
    if served is None:
        return Check(name, "warn", "not checked: the endpoint lists no models",
                     "none needed if the name is right")
    if model in served:
        return Check(name, "ok", f"{model!r} is served by {url}")
    listing = ", ".join(served[:12]) + (" …" if len(served) > 12 else "") or "nothing"
    return Check(name, "fail", f"{model!r} is not served by {url} (it serves: {listing})",
                 f"set {_variable(settings, field)} to a model the endpoint serves"
                 + (f", e.g. {served[0]}" if served else ""))


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:200]
    return str(exc)[:200]


def _ask(call: Callable[[], Any]) -> tuple[str | None, openai.APIError | str | None]:
    """The reply's text, or the error that stopped it (a text when the reply is no chat
    completion: the SDK hands back a web page as a plain string)."""
    try:
        completion = call()
    except openai.APIError as exc:
        return None, exc
    if not getattr(completion, "choices", None):
        return None, "the reply is not a chat completion (not JSON: is OMG_BASE_URL the " \
            "API's /v1 URL?)"
    return completion.choices[0].message.content or "", None


def _json_schema(client: openai.OpenAI, model: str) -> Check:
    name = f"model {model} json_schema"
    text, error = _ask(lambda: client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": 'Reply with the JSON {"ok": true}.'}],
        response_format={"type": "json_schema", "json_schema": {
            "name": "DoctorPing", "schema": PING_SCHEMA}}))
    if isinstance(error, openai.BadRequestError):
        return Check(name, "warn", f"response_format json_schema refused ({_message(error)}): "
                     "the agent falls back to json_object or a schema in the prompt, which "
                     "fails to parse more often", "serve the model with structured outputs "
                     "(vLLM / SGLang: guided decoding), or pick a model that supports them")
    if error is not None:
        return _error_check(name, error)
    try:
        valid = isinstance(json.loads(text or "").get("ok"), bool)
    except (ValueError, AttributeError):
        valid = False
    if not valid:
        return Check(name, "warn", f"json_schema accepted, but the reply does not follow it: "
                     f"{(text or '')[:80]!r}", "prefer an endpoint that enforces the schema "
                     "(structured outputs / guided decoding)")
    return Check(name, "ok", "response_format json_schema supported")


def _vision(client: openai.OpenAI, model: str, settings: Settings, field: str) -> Check:
    from omg_agent.brain.vision import encode_jpeg, user_message

    name = f"model {model} vision"
    colour, word = VISION_COLOUR
    image = encode_jpeg(Image.new("RGB", (64, 64), colour), max_side=settings.image_max_side,
                        quality=settings.jpeg_quality)
    # The SDK's stubs want a TypedDict; user_message builds the same wire-format dict.
    message = cast("openai.types.chat.ChatCompletionUserMessageParam",
                   user_message(VISION_PROMPT, images=[image]))
    text, error = _ask(lambda: client.chat.completions.create(model=model, messages=[message]))
    fix = (f"OMG-Agent sends screenshots: set {_variable(settings, field)} to a "
           f"vision-language model ({VLM_EXAMPLES})")
    if isinstance(error, openai.BadRequestError):
        return Check(name, "fail", f"image input refused: {_message(error)}", fix)
    if error is not None:
        return _error_check(name, error)
    if word not in (text or "").lower():
        return Check(name, "warn", f"took an image but did not see it (asked its colour, "
                     f"got {(text or '')[:60]!r})", fix)
    return Check(name, "ok", f"sees images (named the test picture's colour: {word})")


def _error_check(name: str, error: openai.APIError | str) -> Check:
    if isinstance(error, str):
        return Check(name, "fail", error, "check OMG_BASE_URL and the endpoint's logs")
    if isinstance(error, openai.APIStatusError):
        return Check(name, "fail", f"HTTP {error.status_code}: {_message(error)}",
                     "check the model name and the endpoint's logs")
    return Check(name, "fail", f"request failed: {error}", "check that the endpoint is up")
