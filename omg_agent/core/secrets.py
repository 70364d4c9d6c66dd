"""Secrets of one run: the values that must never leave it in clear (pure, no I/O).

A :class:`SecretVault` holds named values. Everything that leaves the run — the requests
sent to the model, the trace, ``result.json``, ``answer.txt``, the report, log records, the
printed result — goes through :meth:`SecretVault.mask`, which writes each value as the
placeholder ``{{secret:NAME}}``; the model therefore only ever sees placeholders, may use
them in a ``type`` action, and the driver wrapper calls :meth:`SecretVault.reveal` right
before the text is typed (:mod:`omg_agent.drivers.secret_typing`).

Where secrets come from (each adds to the same vault):

- the task: ``{{secret:NAME=VALUE}}`` defines one inline (the model sees
  ``{{secret:NAME}}``), and ``password X`` / ``PIN: X`` / ``密码 X`` / ``验证码是X`` … is
  taken as one too (:func:`task_secrets`);
- the user: ``--secret NAME=VALUE`` on ``run`` or ``OMG_SECRET_<NAME>`` (Settings), used in a
  task as ``{{secret:NAME}}``; the answer to an ``ask_user`` question the operator flagged
  as asking for a secret value (``secret: true``) — never a short common word ("yes", "ok",
  "好", fewer than :data:`MIN_ANSWER` characters), whatever the flag says;
- the device: text typed into an element that is a password field where it is typed,
  decided at execution time (:class:`~omg_agent.drivers.secret_typing.SecretTyping`).

Where a secret may be typed (its :class:`Binding`): only into a password / secret field, and
only of the app ``--secret NAME@APP[:FIELD]`` names, else of an app the run's task names
(:attr:`SecretVault.task`); a value learned in a password field stays with that field's app.
The driver checks it on the field it types into
(:mod:`omg_agent.drivers.secret_places`). The model's API key is masked like a secret but
is never typeable: ``{{secret:api_key}}`` names nothing (:meth:`SecretVault.hide`).

Masking (:meth:`SecretVault.mask`, the one function every printout uses) replaces a whole
value by its placeholder and also every piece of four or more characters of one
(:class:`~omg_agent.core.secret_pieces.PieceMasker`), so a preview cut short never shows
"…omg58…"; callers mask first, then shorten.

Names are case-insensitive everywhere (``--secret PW=…``, ``OMG_SECRET_PW``,
``{{secret:pw}}`` and ``{{secret:Pw}}`` are one secret): the vault keeps them lower-cased.

A held value may also be ordinary text on the screen (``--secret pw=Settings``): the model
then sees that text as the placeholder too, and may name it so in an anchor or a check.
The observation itself is never masked — the anchorer and the verifier match against the
real screen — so :meth:`SecretVault.reveal_targets` turns the placeholders in what a reply
*points at* (anchors, checks, an app to launch) back into the text, in the process only;
typed text stays a placeholder until the driver types it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any

from omg_agent.core.secret_pieces import PieceMasker

PLACEHOLDER = "{{secret:%s}}"
_PLACEHOLDER = re.compile(r"\{\{secret:([A-Za-z0-9_.-]+)\}\}")
# A definition written into a task: {{secret:NAME=VALUE}} (VALUE may not contain "}}").
_DEFINITION = re.compile(r"\{\{secret:([A-Za-z0-9_.-]+)=(.+?)\}\}")
_NAME_OK = re.compile(r"[^A-Za-z0-9_.-]+")
# "PIN" in capitals, or "pin code" / "pin: …" / "pin is …": "pin 100 notes" is a verb
_KEYWORDS = (r"passwords?|passcodes?|passphrase|passwd|pwd|(?-i:PIN)(?:\s*code)?|"
             r"pin\s*code|pin(?=\s*(?:is\b|[:：=]))|otp|"
             r"verification\s+code|security\s+code|one[- ]time\s+code|"
             r"密码|口令|验证码|校验码|动态码|支付密码")
# "password omg5865", "password: x", "password is x", "密码是x", "PIN 1234", quoted or not.
_IN_TASK = re.compile(
    r"(?P<kw>" + _KEYWORDS + r")(?:\s*(?P<sep>is|=|:|：|是|为)\s*|\s+)"
    r"(?:[\"'“‘](?P<quoted>[^\"'”’]+)[\"'”’]|(?P<bare>[^\s,;，。；、!?！？\"'“”]+))",
    re.IGNORECASE)
_QUESTION = re.compile(
    r"password|passcode|passphrase|\bpin\b|\botp\b|\bcode\b|one[- ]time|verification|"
    r"secret|cvv|cvc|密码|口令|验证码|校验码|动态码", re.IGNORECASE)
_NAMES = (("pin", "pin"), ("otp", "code"), ("code", "code"), ("验证码", "code"),
          ("校验码", "code"), ("动态码", "code"))
MIN_LENGTH = 3  # shorter values are not held
MIN_GUESSED = 3  # a value guessed from the task's wording is at least this long
MIN_ANSWER = 4  # a shorter answer ("yes", "ok", "好的") is never a secret, even when flagged
_BINDING = re.compile(r"(?P<name>[^@]+)@(?P<app>[^:]+)(?::(?P<field>.+))?")


@dataclasses.dataclass(frozen=True)
class Binding:
    """Where a secret may be typed: a password field of ``app`` (a name or a package;
    ``None``: of an app the run's task names) — the one whose resource-id, hint or
    description is ``field`` when one is given."""

    app: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        return (self.app or "the task's app") + (f":{self.field}" if self.field else "")


def placeholder(name: str) -> str:
    return PLACEHOLDER % name


def secret_key(name: str) -> str:
    """The one spelling of a secret's name: ``PW``, ``Pw`` and ``pw`` are the same secret."""
    return (_NAME_OK.sub("_", name).strip("_") or "secret").lower()


class SecretVault:
    """Named secret values; masks them in anything, reveals placeholders for the driver."""

    def __init__(self, secrets: Mapping[str, str] | None = None) -> None:
        self._values: dict[str, str] = {}  # name -> value
        self._names: dict[str, str] = {}  # value -> name
        self._pattern: re.Pattern[str] | None = None
        self._pieces = PieceMasker({})
        self._hidden: set[str] = set()  # names masked but never typed (the API key)
        self._spelling: dict[str, str] = {}  # name -> as the user wrote it (USER stays USER)
        self._bindings: dict[str, Binding] = {}
        self.task: str | None = None  # the run's task: where unbound secrets may go
        for name, value in (secrets or {}).items():
            self.add(name, value)

    # -- registering ---------------------------------------------------------------------
    def add(self, name: str, value: str, *, app: str | None = None) -> str:
        """Register ``value`` under ``name`` (a value already held keeps its name; a name
        already used for another value gets a numbered one); returns the name used.
        ``app``: the value may be typed only in that app (see :class:`Binding`)."""
        if len(value.strip()) < MIN_LENGTH:  # masking "a" everywhere would wreck every text
            return name
        if value in self._names:
            return self._names[value]
        written = _NAME_OK.sub("_", name).strip("_")
        name = self._free_name(name)
        self._spelling.setdefault(name, written if written and secret_key(written) == name
                                  else name)
        if app:
            self._bindings[name] = Binding(app)
        self._values[name] = value
        self._names[value] = name
        # One pass over the text: placeholders already there match as themselves (never
        # masked inside), then the values longest first, so a secret containing another
        # is replaced whole and a replacement is never searched again.
        values = sorted(self._names, key=len, reverse=True)
        self._pattern = re.compile("|".join([_PLACEHOLDER.pattern,
                                             *map(re.escape, values)]))
        self._pieces = PieceMasker(self._values)
        return name

    def _free_name(self, name: str) -> str:
        name = base = secret_key(name)
        k = 1
        while name in self._values:
            k += 1
            name = f"{base}{k}"
        return name

    def hide(self, name: str, value: str) -> None:
        """Mask ``value`` like a secret that can never be typed (the model's API key):
        ``{{secret:NAME}}`` stays unknown to :meth:`reveal`."""
        self._hidden.add(self.add(name, value))

    def bind(self, name: str, binding: Binding) -> None:
        """Where secret ``name`` may be typed (the user's ``--secret NAME@APP:FIELD``)."""
        self._bindings[secret_key(name)] = binding

    def binding(self, name: str) -> Binding:
        """Where secret ``name`` may be typed (unbound: a password field of the task's app)."""
        return self._bindings.get(secret_key(name), Binding())

    def add_from_task(self, task: str) -> None:
        """Register the secrets ``task`` defines or names (see :func:`task_secrets`)."""
        for name, value in task_secrets(task):
            self.add(name, value)

    def note_answer(self, question: str, answer: str | None, *, secret: bool) -> None:
        """Register ``answer`` when the question was flagged as asking for a secret value
        (``secret``) and the answer is not a short word (:data:`MIN_ANSWER`); callers also
        keep yes / no words out (the answer rule lives above this layer)."""
        if secret and answer and len(answer.strip()) >= MIN_ANSWER:
            self.add(secret_name(question), answer.strip())

    # -- reading -------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return list(self._values)

    @property
    def typeable(self) -> list[str]:
        """The names a ``type`` action may use (all but hidden ones)."""
        return [n for n in self._values if n not in self._hidden]

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and secret_key(name) in self._values

    def value(self, name: str) -> str | None:
        """The value of typeable secret ``name`` (``None``: unknown or hidden)."""
        key = secret_key(name)
        return None if key in self._hidden else self._values.get(key)

    # -- masking and revealing -----------------------------------------------------------
    def mask(self, text: str, *, pieces: bool = True) -> str:
        """``text`` with every held value (and every inline definition) as a placeholder,
        and every piece of a value four or more characters long too (see
        :mod:`omg_agent.core.secret_pieces`; ``pieces`` False: whole values only). Mask
        before shortening."""
        if "{{secret:" in text:
            text = _DEFINITION.sub(lambda m: self._shown(secret_key(m.group(1))), text)
        if self._pattern is None:
            return text
        text = self._pattern.sub(self._placeholder_of, text)
        return self._pieces.mask(text, _PLACEHOLDER, self._shown) if pieces else text

    def _shown(self, name: str) -> str:
        """The placeholder of ``name`` in the user's spelling (issue 40: {{secret:USER}}
        is shown as written, not lower-cased; every spelling names the same secret)."""
        return placeholder(self._spelling.get(name, name))

    def _placeholder_of(self, match: re.Match[str]) -> str:
        found = match.group(0)
        name = self._names.get(found)
        return found if name is None else self._shown(name)

    def reveal(self, text: str, *, escape: bool = False) -> str:
        """``text`` with the placeholders of held secrets replaced by their values (for
        the driver only, right before typing); unknown placeholders stay as they are.
        ``escape``: each value as a regular expression matching it literally."""
        if "{{secret:" not in text:
            return text

        def value(m: re.Match[str]) -> str:
            found = self.value(m.group(1))
            return m.group(0) if found is None else re.escape(found) if escape else found

        return _PLACEHOLDER.sub(value, text)

    def unknown(self, text: str) -> list[str]:
        """Names of placeholders in ``text`` that this vault holds no value for (as
        written, each once)."""
        return list(dict.fromkeys(m.group(1) for m in _PLACEHOLDER.finditer(text)
                                  if self.value(m.group(1)) is None))

    def used(self, text: str) -> list[str]:
        """Names (as the vault keeps them) of the held placeholders in ``text``, each once."""
        return list(dict.fromkeys(secret_key(m.group(1)) for m in _PLACEHOLDER.finditer(text)
                                  if self.value(m.group(1)) is not None))

    def reveal_targets(self, obj: Any) -> Any:
        """``obj`` (a model's parsed reply) with the placeholders in what it points at — an
        anchor's or a check's text / desc / resource-id / shows, an app to launch — turned
        back into the text, so it matches the real screen (see the module docstring).
        Typed text, questions and answers keep their placeholders. In-process only:
        whatever leaves the run is masked again."""
        if self._pattern is None:
            return obj
        return _reveal_in(obj, self.reveal)

    def scrub(self, obj: Any) -> Any:
        """A copy of ``obj`` with every string masked: through dicts, lists, tuples and
        dataclass instances (rebuilt with ``dataclasses.replace``). A dict's keys are masked
        by whole values only: a key is a name, never a preview cut short, and a piece of a
        secret inside a record's field name ("word" of ``pa55word`` in ``password``) would
        rename the field for every reader."""
        match obj:
            case str():
                return self.mask(obj)
            case dict():
                return {self.mask(k, pieces=False) if isinstance(k, str) else k: self.scrub(v)
                        for k, v in obj.items()}
            case list():
                return [self.scrub(v) for v in obj]
            case tuple():
                return tuple(self.scrub(v) for v in obj)
            case _ if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
                return dataclasses.replace(obj, **{
                    f.name: self.scrub(getattr(obj, f.name))
                    for f in dataclasses.fields(obj) if f.init})
            case _:
                return obj


# The string fields of a reply that point at something on the screen, by model class name
# (core.actions / core.checks sit beside this module; matching on names keeps it import-free).
_POINTING = {"AnchorTarget": ("text", "resource_id", "desc"),
             "ElementCheck": ("text", "resource_id", "desc", "shows"),
             "Launch": ("app",)}


def _reveal_in(obj: Any, reveal: Any) -> Any:
    """A copy of ``obj`` (pydantic models, lists, tuples, dicts) with ``reveal`` applied to
    the pointing fields of :data:`_POINTING`; unchanged parts are shared, not copied."""
    match obj:
        case list() | tuple():
            items = [_reveal_in(v, reveal) for v in obj]
            if all(a is b for a, b in zip(items, obj, strict=True)):
                return obj
            return items if isinstance(obj, list) else tuple(items)
        case dict():
            found = {k: _reveal_in(v, reveal) for k, v in obj.items()}
            return obj if all(found[k] is v for k, v in obj.items()) else found
    fields = getattr(type(obj), "model_fields", None)
    if fields is None:
        return obj
    update: dict[str, Any] = {}
    pointing = _POINTING.get(type(obj).__name__, ())
    regex = getattr(obj, "match", None) == "regex"  # an anchor's pattern: values literal
    for name in fields:
        value = getattr(obj, name)
        if name in pointing and isinstance(value, str):
            new = reveal(value, escape=regex and name != "shows")
        else:
            new = _reveal_in(value, reveal)
        if new is not value:
            update[name] = new
    return obj.model_copy(update=update) if update else obj


def task_secrets(task: str) -> list[tuple[str, str]]:
    """(name, value) pairs a task defines inline (``{{secret:NAME=VALUE}}``) or names by
    wording (``password X``, ``PIN: X``, ``密码是X``). A worded value must be at least
    ``MIN_GUESSED`` characters and hold a digit or follow an explicit ``is`` / ``:`` / ``是``,
    so "ask me for the password" or "password field" take nothing."""
    found = [(m.group(1), m.group(2)) for m in _DEFINITION.finditer(task)]
    rest = _DEFINITION.sub(" ", task)
    for m in _IN_TASK.finditer(rest):
        value = (m.group("quoted") or m.group("bare") or "").strip().rstrip(".")
        if len(value) < MIN_GUESSED or _PLACEHOLDER.fullmatch(value):
            continue
        if m.group("sep") is None and m.group("quoted") is None \
                and not any(c.isdigit() for c in value):
            continue
        found.append((secret_name(m.group("kw")), value))
    return found


def asks_for_secret(question: str) -> bool:
    """Whether ``question`` asks for a password, passcode, PIN, code, OTP, 密码, 验证码 …"""
    return bool(_QUESTION.search(question))


def secret_name(text: str) -> str:
    """A placeholder name for the secret ``text`` talks about: pin, code or password."""
    lowered = text.lower()
    for word, name in _NAMES:
        if re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", lowered):
            return name
    return "password"


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """``NAME=VALUE`` strings (``--secret``) as a mapping by lower-cased name; raises
    ``ValueError`` naming the first malformed item, or a name given twice (in any case)."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value:
            raise ValueError("a secret must be given as NAME=VALUE"
                             + (f" (got {name.strip()!r} = nothing)" if sep else ""))
        key = secret_key(name.strip())
        if key in out:
            raise ValueError(f"{name.strip()} is given twice (names ignore case): give each "
                             "secret once")
        out[key] = value
    return out


def parse_secret_options(items: Iterable[str]) -> tuple[dict[str, str], dict[str, Binding]]:
    """``--secret`` options: ``NAME=VALUE``, ``NAME@APP[:FIELD]=VALUE`` (the value, typeable
    only into that app's password field, or the named field), or ``NAME@APP[:FIELD]`` alone
    (binds a secret given elsewhere, e.g. ``OMG_SECRET_NAME``). The values and the bindings,
    by lower-cased name; raises ``ValueError`` naming what is accepted (never the value)."""
    values: list[str] = []
    bindings: dict[str, Binding] = {}
    for item in items:
        head, sep, value = item.partition("=")
        m = _BINDING.fullmatch(head.strip())
        if m is not None:
            name, app = m["name"].strip(), m["app"].strip()
            field = (m["field"] or "").strip() or None
            if not name or not app:
                raise ValueError(_ACCEPTED)
            bindings[secret_key(name)] = Binding(app, field)
            if not sep:
                continue
            head = name
        if not sep or not head.strip() or not value:
            raise ValueError(_ACCEPTED + (f" (got {head.strip()!r} = nothing)" if sep else ""))
        values.append(f"{head}{sep}{value}")
    return parse_assignments(values), bindings


_ACCEPTED = "a secret must be given as NAME=VALUE, NAME@APP[:FIELD]=VALUE or NAME@APP[:FIELD]"


def mask_task(task: str) -> str:
    """``task`` as every printout shows it: the secrets it gives replaced by placeholders."""
    vault = SecretVault()
    vault.add_from_task(task)
    return vault.mask(task)
