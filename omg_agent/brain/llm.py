"""The model client: any OpenAI-compatible endpoint, structured replies, retries, accounting.

:class:`LLMClient` wraps the ``openai`` SDK (OpenAI, vLLM/SGLang, Ollama, DashScope, Gemini's
OpenAI endpoint, z.ai, or the bench's model double) for one role, planner or operator.

- **Transport retries** are its own (the SDK's are off): 408/409/429/5xx, timeouts and
  connection errors are retried ``max_retries`` times with exponential backoff and jitter,
  honouring ``Retry-After`` (seconds or an HTTP date, bounded by the run's time left);
  other 4xx fail at once as
  :class:`~omg_agent.errors.LLMRequestError`. Each retry is announced to ``on_notice`` (the
  CLI shows it live), or as a logged warning when nobody listens: "operator model timed
  out after 60 s; retry 2/4 in 1.8 s".
- **Deadline**: with a run deadline (:attr:`LLMClient.deadline`, set by
  :meth:`~omg_agent.brain.budget.StepBudget.start_clock`) a request's timeout is at most the
  time left, a retry whose wait would pass it is not made, and a request that ends after
  it raises :class:`~omg_agent.errors.DeadlinePassed`.
- **Structured output** (:meth:`LLMClient.structured`): the contract's JSON schema goes as
  ``response_format`` ``json_schema``; an endpoint that answers 400 to that gets
  ``json_object`` and then no ``response_format``, with the schema in the prompt instead,
  and the client remembers what worked. Each reply is parsed and validated; an invalid one
  is sent back with the error and the call retried, ``parse_attempts`` replies at most.
- **Secrets**: every request goes out through the run's
  :class:`~omg_agent.core.secrets.SecretVault` (``secrets``): the model sees
  ``{{secret:NAME}}`` placeholders, never the values; where a placeholder stands for text on
  the screen, the anchors and checks of a reply get the text back
  (:meth:`~omg_agent.core.secrets.SecretVault.reveal_targets`), so they match the screen.
- **Cut replies**: a 200 whose body is empty or JSON cut short is a fault on the way (a
  proxy, an overloaded server) and is retried like a 5xx.
- **Not an API**: an endpoint that answers 200 with something other than JSON (an HTML page:
  ``OMG_BASE_URL`` points at a web UI, not the API's ``/v1``) fails at once with
  :class:`~omg_agent.errors.LLMRequestError` naming the endpoint
  (:func:`~omg_agent.brain.endpoint_faults.not_json_error`);
  so does a reply over 4 MiB, cut off while it is read (:mod:`.reply_cap`).
- **Accounting**: every HTTP attempt produces a
  :class:`~omg_agent.brain.call_record.CallRecord` passed to the
  ``on_attempt`` callbacks (the orchestrator counts each *reply* as a step —
  :attr:`CallRecord.counts_as_step` — and may raise from the callback to stop the call when
  the budget is spent); :attr:`LLMClient.totals` sums tokens and latency. Cached prompt
  tokens are read when the endpoint reports them (``usage.prompt_tokens_details.
  cached_tokens``: OpenAI, DeepSeek, vLLM with prefix caching).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import openai
from PIL import Image
from pydantic import BaseModel

from omg_agent.brain.call_record import AttemptCallback as AttemptCallback  # re-exported
from omg_agent.brain.call_record import CallRecord as CallRecord
from omg_agent.brain.call_record import FormatMode as FormatMode
from omg_agent.brain.call_record import NoticeCallback as NoticeCallback
from omg_agent.brain.call_record import Reply, read_reply
from omg_agent.brain.call_record import UsageTotals as UsageTotals
from omg_agent.brain.endpoint_faults import (
    RequestFailure,
    body_failure,
    connection_failure,
    json_error_detail,
    not_json_error,
    status_failure,
)
from omg_agent.brain.endpoint_faults import not_json_message as not_json_message
from omg_agent.brain.reply_cap import ReplyTooLarge, capped_client
from omg_agent.brain.structured import (
    InvalidReply,
    feedback_message,
    parse_reply,
    schema_instructions,
)
from omg_agent.brain.vision import EncodedImage, encode_jpeg, user_message
from omg_agent.config import Role, Settings
from omg_agent.core.observation import Observation
from omg_agent.core.schema_slim import response_format  # what is sent: slim (issue 27)
from omg_agent.core.secrets import SecretVault
from omg_agent.errors import LLMReplyError, LLMRequestError, LLMUnavailable, ModelNotConfigured
from omg_agent.perception import elementlist
from omg_agent.perception.som import draw_marks

if TYPE_CHECKING:
    from omg_agent.brain.budget import RunDeadline

log = logging.getLogger(__name__)
MAX_RETRY_AFTER_S = 600.0  # the longest Retry-After honoured by a run with no deadline

M = TypeVar("M", bound=BaseModel)
Message = dict[str, Any]
# What the SDK's type stubs call a message list; ours are the same wire-format dicts.
_SdkMessages = list["openai.types.chat.ChatCompletionMessageParam"]
_FALLBACK: dict[FormatMode, FormatMode | None] = {
    "json_schema": "json_object", "json_object": "none", "none": None}
OPENAI_URL = "https://api.openai.com/v1"
NO_KEY = "no-key"  # the SDK insists on a key; local endpoints ignore it


def openai_client(settings: Settings, timeout_s: float | None = None, *,
                  http_client: Any = None) -> openai.OpenAI:
    """The SDK client for the configured endpoint (no SDK retries: callers retry).
    ``http_client`` (the SDK's httpx client) carries a transport of its own (tests: a
    ``MockTransport``)."""
    key = settings.api_key.get_secret_value() if settings.api_key else NO_KEY
    return openai.OpenAI(base_url=settings.base_url or OPENAI_URL, api_key=key,
                         timeout=timeout_s or settings.timeout_s, max_retries=0,
                         http_client=capped_client(http_client))  # replies ≤ 4 MiB


class LLMClient:
    """A model endpoint for one role. Close it (or use ``with``) when done."""

    def __init__(self, settings: Settings, role: Role = "operator", *,
                 on_attempt: AttemptCallback | None = None,
                 request_options: Mapping[str, Any] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None,
                 http_client: Any = None,
                 secrets: SecretVault | None = None,
                 on_notice: NoticeCallback | None = None) -> None:
        model = settings.model_for(role)
        if not settings.model_configured or model is None:
            raise ModelNotConfigured(settings.missing_model_help())
        self.settings = settings
        self.role = role
        self.model = model
        self.on_attempt = on_attempt
        self.on_notice = on_notice  # hears each retry ("… timed out after 60 s; retry 2/4 …")
        self.deadline: RunDeadline | None = None  # the run's, when it has one
        self.format_mode: FormatMode = "json_schema"
        self.totals = UsageTotals()
        self._options = dict(request_options or {})
        self._schemas: dict[type[BaseModel], dict[str, Any]] = {}
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.secrets = secrets if secrets is not None else SecretVault()
        self._client = openai_client(settings, http_client=http_client)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- messages ------------------------------------------------------------------------
    def encode(self, image: Image.Image) -> EncodedImage:
        """``image`` as a JPEG data URL at the configured size and quality."""
        return encode_jpeg(image, max_side=self.settings.image_max_side,
                           quality=self.settings.jpeg_quality)

    def vision_message(self, text: str, *, screenshot: Image.Image | None = None,
                       marks: Image.Image | None = None,
                       elements_text: str | None = None) -> Message:
        """A user message with the text, the element list, the screenshot and the
        set-of-marks image (each optional), images downscaled per the settings."""
        images = [self.encode(img) for img in (screenshot, marks) if img is not None]
        return user_message(text, images=images, elements_text=elements_text)

    def observation_message(self, text: str, observation: Observation, *,
                            screenshot: bool = True, marks: bool = False) -> Message:
        """A user message showing ``observation``: its element list, and its screenshot
        and/or the set-of-marks copy (numbered boxes matching the element ids); with
        ``screenshot=False`` no image at all (the marks are drawn on the screenshot)."""
        marked = None
        if marks and screenshot:
            marked = draw_marks(observation.screenshot, observation.elements,
                                max_side=self.settings.image_max_side)
        return self.vision_message(
            text, screenshot=observation.screenshot if screenshot else None, marks=marked,
            elements_text=elementlist.render(  # masked before the texts are cut to fit
                observation.elements, observation.screen,
                mask=self.secrets.mask))

    # -- calls ---------------------------------------------------------------------------
    def chat(self, messages: Sequence[Message], *,
             on_attempt: AttemptCallback | None = None) -> tuple[str, CallRecord]:
        """A plain completion (no schema): the reply text and its record."""
        callbacks = self._callbacks(on_attempt)
        reply = self._complete(list(messages), None, "none", 1, callbacks)
        record = self._record("reply", 1, True, reply=reply)
        self._report(record, callbacks)
        return reply.text, record

    def structured(self, messages: Sequence[Message], model_cls: type[M], *,
                   on_attempt: AttemptCallback | None = None,
                   attempts: int | None = None) -> tuple[M, CallRecord]:
        """Ask for a ``model_cls`` reply; returns it with the successful attempt's record.

        Raises :class:`LLMReplyError` after ``attempts`` (default ``parse_attempts``)
        invalid replies, :class:`LLMUnavailable` / :class:`LLMRequestError` for transport
        failures, and whatever an ``on_attempt`` callback raises.
        """
        callbacks = self._callbacks(on_attempt)
        limit = attempts or self.settings.parse_attempts
        convo = list(messages)
        last_error, last_text = "", ""
        for attempt in range(1, limit + 1):
            reply = self._complete_structured(convo, model_cls, attempt, callbacks)
            try:
                parsed = parse_reply(reply.text, model_cls, finish_reason=reply.finish_reason)
            except InvalidReply as exc:
                last_error, last_text = str(exc), reply.text
                log.info("%s attempt %d: invalid %s reply: %s", self.role, attempt,
                         model_cls.__name__, exc)
                self._report(self._record("reply", attempt, False, reply=reply,
                                          error=last_error), callbacks)
                convo += [{"role": "assistant", "content": reply.text},
                          feedback_message(exc, model_cls)]
                continue
            record = self._record("reply", attempt, True, reply=reply)
            self._report(record, callbacks)
            # a placeholder the model saw for on-screen text names that text (core.secrets)
            return self.secrets.reveal_targets(parsed), record
        raise LLMReplyError(last_error, attempts=limit, last_reply=last_text, role=self.role,
                            model=self.model)

    # -- internals -----------------------------------------------------------------------
    def _callbacks(self, extra: AttemptCallback | None) -> list[AttemptCallback]:
        return [c for c in (self.on_attempt, extra) if c is not None]

    def _report(self, record: CallRecord, callbacks: Sequence[AttemptCallback]) -> None:
        self.totals.add(record)
        for callback in callbacks:
            callback(record)

    def _record(self, kind: Literal["reply", "transport"], attempt: int, ok: bool, *,
                reply: Reply | None = None, error: str | None = None,
                status: int | None = None, mode: FormatMode = "none",
                latency_s: float = 0.0) -> CallRecord:
        if reply is not None:
            return CallRecord(self.role, self.model, kind, attempt, ok, reply.prompt_tokens,
                              reply.completion_tokens, reply.latency_s, error, reply.text,
                              reply.mode, 200, reply.cached_tokens)
        return CallRecord(self.role, self.model, kind, attempt, ok, latency_s=latency_s,
                          error=error, response_format=mode, http_status=status)

    def _complete_structured(self, convo: list[Message], model_cls: type[BaseModel],
                             attempt: int, callbacks: Sequence[AttemptCallback]) -> Reply:
        """One reply in the remembered format mode, stepping down the modes on a 400."""
        mode: FormatMode | None = self.format_mode
        first_error: LLMRequestError | None = None
        while mode is not None:
            try:
                reply = self._complete(self._framed(convo, model_cls, mode),
                                       self._format(model_cls, mode), mode, attempt,
                                       callbacks)
            except LLMRequestError as exc:
                if exc.status not in (400, 422):
                    raise
                first_error = first_error or exc
                mode = _FALLBACK[mode]
                if mode is not None:
                    log.warning("%s: the endpoint refused the request (%s); trying "
                                "response_format=%s", self.role, exc, mode)
                continue
            if mode != self.format_mode:
                log.warning("%s: %s uses response_format=%s from now on", self.role,
                            self.model, mode)
                self.format_mode = mode
            return reply
        assert first_error is not None
        raise first_error

    def _format(self, model_cls: type[BaseModel], mode: FormatMode) -> dict[str, Any] | None:
        if mode == "json_schema":  # built once per contract: it takes ~50 ms each time
            if model_cls not in self._schemas:
                self._schemas[model_cls] = response_format(
                    model_cls, strict=self.settings.strict_schema)
            return self._schemas[model_cls]
        return {"type": "json_object"} if mode == "json_object" else None

    @staticmethod
    def _framed(convo: list[Message], model_cls: type[BaseModel],
                mode: FormatMode) -> list[Message]:
        """``convo`` with the schema in the system prompt when it is not sent as a format."""
        if mode == "json_schema":
            return convo
        note = schema_instructions(model_cls)
        if convo and convo[0].get("role") == "system" and isinstance(convo[0]["content"], str):
            return [{**convo[0], "content": convo[0]["content"] + "\n\n" + note}, *convo[1:]]
        return [{"role": "system", "content": note}, *convo]

    def _complete(self, messages: list[Message], fmt: dict[str, Any] | None,
                  mode: FormatMode, attempt: int,
                  callbacks: Sequence[AttemptCallback]) -> Reply:
        """One completion, retrying transport failures with backoff (each retry announced),
        every request and wait bounded by the run's deadline."""
        kwargs: dict[str, Any] = {**self._options}
        if fmt is not None:
            kwargs["response_format"] = fmt
        messages = self.secrets.scrub(messages)  # the one way out to the model
        retries = self.settings.max_retries
        for retry in range(retries + 1):
            timeout = self._request_timeout()
            started = time.perf_counter()
            try:
                raw = self._client.chat.completions.with_raw_response.create(
                    model=self.model, messages=cast(_SdkMessages, messages), timeout=timeout,
                    **kwargs)
                completion = self._parsed(raw)
            except ReplyTooLarge as exc:  # the same request would get the same answer
                raise self._too_large(exc, mode, attempt, callbacks, started) from None
            except openai.APIStatusError as exc:
                failure = status_failure(exc)
            except openai.APIConnectionError as exc:
                if isinstance(exc.__cause__, ReplyTooLarge):  # SDKs that wrap it
                    raise self._too_large(exc.__cause__, mode, attempt, callbacks,
                                          started) from None
                failure = connection_failure(exc, timeout)
            else:
                if not isinstance(completion, RequestFailure):
                    return read_reply(completion, mode, time.perf_counter() - started)
                failure = completion
            self._report(self._record("transport", attempt, False, status=failure.status,
                                      error=failure.error, mode=mode,
                                      latency_s=time.perf_counter() - started), callbacks)
            if not failure.retryable:
                raise LLMRequestError(failure.error, status=failure.status or 0,
                                      role=self.role, model=self.model) from None
            if self.deadline is not None:
                self.deadline.check()  # the request ran into the deadline: no retry
            error = (f"HTTP {failure.status}: {failure.error}" if failure.status
                     else failure.error)
            if retry == retries:
                raise LLMUnavailable(f"{error} (after {retries + 1} tries)", role=self.role,
                                     model=self.model)
            delay = self._backoff(retry, failure.retry_after)
            if self.deadline is not None and delay >= self.deadline.remaining():
                raise self.deadline.error()  # waiting to retry would pass it
            self._notice(f"{self.role} model {failure.what}; retry {retry + 1}/{retries} in "
                         f"{delay:.1f} s")
            self._sleep(delay)
        raise AssertionError("unreachable")

    def _parsed(self, raw: Any) -> Any:
        """The completion in a 200 reply, or the :class:`RequestFailure` of a body that is
        empty, cut or not JSON (retried); a body of another kind — a web page — is not an
        API's reply at all and fails at once (:func:`not_json_error`)."""
        try:
            completion = raw.parse()
        except ValueError as exc:  # JSONDecodeError: a JSON body cut short, or empty
            return body_failure(json_error_detail(exc))
        if hasattr(completion, "choices"):
            return completion
        if isinstance(completion, str | bytes) and not completion.strip():
            return body_failure("empty")
        raise not_json_error(self.settings.base_url or OPENAI_URL,
                             raw.headers.get("content-type"), role=self.role,
                             model=self.model)

    def _too_large(self, exc: ReplyTooLarge, mode: FormatMode, attempt: int,
                   callbacks: Sequence[AttemptCallback], started: float) -> LLMRequestError:
        """The error for a reply over the size limit, its failed request recorded."""
        url = self.settings.base_url or OPENAI_URL
        message = str(exc).replace("model endpoint", f"model endpoint {url}", 1)
        self._report(self._record("transport", attempt, False, status=200, error=message,
                                  mode=mode, latency_s=time.perf_counter() - started),
                     callbacks)
        return LLMRequestError(message, status=200, role=self.role, model=self.model)

    def _request_timeout(self) -> float:
        """The next request's timeout: the setting, or the time left before the deadline
        when that is shorter (raises :class:`DeadlinePassed` when none is left)."""
        timeout = self.settings.timeout_s
        if self.deadline is None:
            return timeout
        self.deadline.check()
        return min(timeout, self.deadline.remaining())

    def _notice(self, text: str) -> None:
        """Tell the user about a retry: ``on_notice`` (the live display) when someone
        listens, else a warning in the log."""
        if self.on_notice is None:
            log.warning("%s", text)
            return
        log.info("%s", text)
        self.on_notice(text)

    def _backoff(self, retry: int, retry_after: float | None) -> float:
        """Exponential backoff with jitter (capped by ``retry_backoff_max_s``), at least what
        ``Retry-After`` asks: that is bounded by the run's time left (the caller fails at once
        when the wait would pass the deadline), else by :data:`MAX_RETRY_AFTER_S`."""
        base, cap = self.settings.retry_backoff_s, self.settings.retry_backoff_max_s
        delay = min(cap, base * 2 ** retry) * self._rng.uniform(0.5, 1.0)
        if retry_after is not None:
            delay = max(delay, min(retry_after, MAX_RETRY_AFTER_S))
        return delay
