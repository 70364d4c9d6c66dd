"""The sensitive-action gate: pay, delete, send, install, grant, type secrets — ask first.

Decided *before* an action runs, from three things only: the action, the element it will
land on (as the executor resolved it on the screen it acts on) and that screen. What the
model wrote — its thought, its intent, a ``sensitive`` flag — is never read, so on-screen
text that talks a model into tapping "Pay now" cannot talk its way past the gate too
(DESIGN.md §5; issue #10). The layers:

* :func:`classify` — is this action sensitive, which class, why, and exactly what will be
  tapped or typed (``describe``);
* :class:`Gate` — holds the user's pre-authorisations (:mod:`omg_agent.guards.authorisation`)
  and answers ``allow`` or ``confirm`` (:class:`Decision`);
* the caller asks a human through a :mod:`omg_agent.guards.confirmation` channel on
  ``confirm``; no human reachable stops the run resumable (``needs_confirmation``).

Which actions can be sensitive: taps, long presses and double taps on a control whose own
label (text, description, else resource-id) carries a cue of :mod:`omg_agent.guards.cues`;
typing into a password / card / CVV / verification-code field, and a ``{{secret:NAME}}``
typed into any other field (``secret_entry``; the driver below refuses the latter outright,
:mod:`omg_agent.drivers.secret_places`); typing
with ``submit`` or pressing ENTER in a message box — a non-search, non-recipient field on a
screen that has a Send button (``send``); the CALL key. Never: launch, back, home, swipe,
wait, plain typing elsewhere, and taps on edit fields, list text or disabled controls.

What the user stated is checked here too, on the screen the action lands on: a payment's
amount is read (:mod:`omg_agent.guards.payable`) from the control acted on — its label and
the texts inside it — and from the screen's payable total ("Amount payable ¥1,079.00",
"合计", never "You saved ¥50"); only amounts with a currency count, and one that cannot be
read is beyond every limit. An authorisation with a limit lets a payment through only
when every amount read is within it; a send authorised for one text only when the message
box (or the typed text) holds that text. Otherwise the gate asks, saying why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from omg_agent.core.actions import (
    DoubleTap,
    Key,
    LongPress,
    Swipe,
    Tap,
    TypeText,
)
from omg_agent.core.observation import Observation, UIElement
from omg_agent.guards.amounts import Money
from omg_agent.guards.authorisation import Authorisation
from omg_agent.guards.cues import (
    SensitiveClass,
    is_recipient_field,
    is_search_field,
    is_secret_field,
    label_class,
)
from omg_agent.guards.follow_through import Following, arm, confirms, still_following
from omg_agent.guards.grant import named_deletes
from omg_agent.guards.payable import payment_amounts
from omg_agent.guards.spend_ledger import SpendLedger
from omg_agent.perception.anchor import tap_receiver

KEY_ENTER, KEY_CALL = 66, 5
TITLE_BAND = 0.15  # the top share of the screen where an app bar shows whom a screen is about
_LABELLED_ROLES = frozenset({"button", "item", "switch", "checkbox", "radio", "tab", "text",
                             "image", "menuitem", "link"})  # the last two: desktop controls
_VERBS = {Tap: "tap", LongPress: "long-press", DoubleTap: "double-tap"}


@dataclass(frozen=True)
class Sensitivity:
    """Why an action is sensitive. ``describe`` is exactly what will happen, for a human;
    ``subjects`` what the screen says the action is about (for matching authorisations);
    ``amounts`` what a payment costs as the screen shows it (the control's label, the total
    rows); ``text`` the message a send would send (``None``: not a send, or unreadable)."""

    cls: SensitiveClass
    reason: str
    describe: str
    package: str = ""
    subjects: tuple[str, ...] = ()
    owners: tuple[str, ...] = ()  # the app's package names: what secrets are matched on
    amounts: tuple[Money, ...] = ()
    text: str | None = None
    # what the action is about and what follows, from the screen: the note a delete
    # removes, what a payment buys and costs, to whom a send goes and what it says
    about: str = ""
    target: str = ""  # the object alone ("Groceries"): what a list of several is matched on
    objects: tuple[str, ...] = ()  # a delete's objects one by one: what a named delete names
    follows: bool = False  # let through as the confirmation of the delete before it

    def __str__(self) -> str:
        return f"{self.cls}: {self.describe}"

    @property
    def question(self) -> str:
        """What a human is asked to allow: the action and, when the screen names it, its
        object and consequence."""
        return f"{self.describe} — {self.about}" if self.about else self.describe


@dataclass(frozen=True)
class Decision:
    """The gate's answer. ``verdict`` is ``allow`` or ``confirm`` (ask a human first)."""

    verdict: Literal["allow", "confirm"]
    sensitivity: Sensitivity | None = None
    authorisation: Authorisation | None = None

    @property
    def allowed(self) -> bool:
        return self.verdict == "allow"

    @property
    def needs_confirmation(self) -> bool:
        return self.verdict == "confirm"


ALLOW = Decision("allow")


@dataclass
class Gate:
    """The user's pre-authorisations and the rule that applies them. Nothing else — not
    the model, not the screen — turns a ``confirm`` into an ``allow``. ``ledger`` is what
    the run has paid so far (:meth:`paid`): a stated limit bounds its total."""

    authorisations: Sequence[Authorisation] = field(default_factory=tuple)
    # whether a text holds one of the run's secret values: a send that would carry one
    # is asked whatever authorises the recipient (--allow send:Alice is no leave to send
    # Alice the password)
    secret_in: Callable[[str], bool] | None = None
    # a typed text's length as it reaches the phone: a {{secret:NAME}} counts as its value's
    text_length: Callable[[str], int] = len
    ledger: SpendLedger = field(default_factory=SpendLedger)
    renamed: bool = False  # the run typed into an item's name field: a title names no delete
    # the item rows each app's screens showed this run: a title names a delete only as saved
    # and listed (a resumed run already in an editor a stopped one retitled is asked)
    listed: dict[str, set[str]] = field(default_factory=dict)
    following: Following | None = None  # a delete just let through (:mod:`.follow_through`)
    seen: Observation | None = None  # the screen judged last: what a let-through acts on

    def check(self, action: object, element: UIElement | None, obs: Observation, *,
              ocr_text: str | None = None) -> Decision:
        """``allow`` or ``confirm`` for ``action`` landing on ``element`` of ``obs``
        (``ocr_text``: see :func:`classify`)."""
        from omg_agent.guards.objects import names_an_item

        found = classify(action, element, obs, ocr_text=ocr_text, length=self.text_length)
        self.renamed = self.renamed or names_an_item(action, element, obs)
        rows = self.listed.setdefault(obs.package, set())
        rows.update(e.text for e in obs.elements if e.role == "item" and e.text)
        self.following = still_following(self.following, obs)
        self.seen = obs
        if found is None:
            return ALLOW
        if confirms(self.following, found, element, obs):
            why = f"{found.reason}; it confirms the delete let through just before"
            return Decision("allow", dataclasses.replace(found, reason=why, follows=True))
        subjects = found.owners if found.cls in ("secret_entry", "account_security") \
            else (*found.owners, *found.subjects)
        covering = [a for a in self.authorisations if a.covers(found.cls, subjects)]
        covering += [a for a in named_deletes(self.authorisations, found.objects,
                                              trusted=not self.renamed and rows.issuperset(
                                                  found.objects)) if a not in covering]
        forbidden = next((a for a in covering if a.forbids), None)
        if forbidden is not None:  # the user said not to: whatever else allows it, ask
            why = f"{found.reason}; your words say {str(forbidden)!r}"
            return Decision("confirm", dataclasses.replace(found, reason=why))
        if not any(a.grants for a in covering):
            return Decision("confirm", found)
        if found.cls == "send" and found.text and self.secret_in is not None \
                and self.secret_in(found.text):
            why = f"{found.reason}; the message holds a secret value"
            return Decision("confirm", dataclasses.replace(found, reason=why))
        # every limit the user stated holds (a --allow and a task's "at most ¥1" both
        # cover a payment: the narrower wins) — for this payment and, unless it is per
        # item, for the run's total with it — and so does a message the user gave: a
        # permission naming only the recipient (--allow send:Alice) never frees the text
        # of "send hello to Alice" — the message must be one the user stated, if any
        problems = [p for a in covering if (p := self._limit_problem(a, found.amounts))]
        texts = [a for a in covering if a.text is not None]
        wrong = [p for a in texts if (p := a.text_problem(found.text))]
        if len(wrong) == len(texts):
            problems += wrong
        granting = [a for a in covering if a.grants]
        if not problems:
            return Decision("allow", found, granting[0])
        why = f"{found.reason}; {problems[0]}"
        return Decision("confirm", dataclasses.replace(found, reason=why))

    def _limit_problem(self, a: Authorisation, amounts: Sequence[Money]) -> str | None:
        if a.limit is None:
            return None
        return a.limit_problem(amounts) or (
            None if a.per_payment else self.ledger.problem(a.limit, amounts))

    def paid(self, found: Sensitivity | None) -> None:
        """An action the gate let through (allowed or approved) is about to run: a payment
        joins the run's total."""
        if found is not None and found.cls == "payment":
            self.ledger.record(found.amounts)

    def landed(self, found: Sensitivity | None) -> None:
        """The input of an action the gate let through reaches the phone (the choke point,
        on the screen judged last): a delete's consent is carried to the dialog it opens;
        a confirmation uses that consent up (:mod:`.follow_through`). Never earlier — a yes
        that arms it before its input lands would carry to whatever the screen shows next
        (attack round "follow-through": Emma's dialog after a yes to Oliver's)."""
        if found is not None and found.cls == "delete":
            self.following = None if found.follows else arm(found, self.seen)

    def with_authorisations(self, more: Iterable[Authorisation]) -> Gate:
        return Gate((*self.authorisations, *more), secret_in=self.secret_in,
                    ledger=self.ledger, renamed=self.renamed, listed=self.listed)



# -- classification --------------------------------------------------------------------------
def classify(action: object, element: UIElement | None, obs: Observation, *,
             ocr_text: str | None = None,
             length: Callable[[str], int] = len) -> Sensitivity | None:
    """The sensitivity of ``action`` on ``element`` (what the target resolved to on ``obs``;
    for typing: the target field, else the focused one), or ``None`` when it is harmless.

    ``ocr_text`` is the text read in pixels where a touch lands (:func:`text_at`), for
    buttons the element tree does not show: a WebView's, a game's.
    """
    match action:
        case Tap() | LongPress() | DoubleTap():
            receiver = tap_receiver(element, obs.elements) if element is not None else None
            return _touch(_VERBS[type(action)], receiver, obs, ocr_text)
        case TypeText():
            field_ = element if element is not None and element.editable else obs.focused
            if field_ is None:
                return None
            return _typing(action, field_, obs, length)
        case Swipe():  # a sideways swipe across a row (guards.landing): swipe-to-delete
            return _swiped(element, obs)
        case Key():
            if action.keycode == KEY_CALL:
                return _make("send", "the CALL key dials", "press the CALL key", None, obs)
            if action.keycode == KEY_ENTER and obs.focused is not None:
                return _submit(obs.focused, obs, "press ENTER in", obs.focused.text)
            return None
    return None


def _touch(verb: str, e: UIElement | None, obs: Observation,
           ocr_text: str | None) -> Sensitivity | None:
    if e is not None and (not e.enabled or e.editable):
        return None
    if e is not None and e.role in _LABELLED_ROLES and (
            e.clickable or e.long_clickable or e.checkable):
        found = _labelled(verb, e, obs, (("label", e.text), ("description", e.desc),
                                         ("resource-id", _rid(e))))
        if found is not None or e.text or e.desc:
            return found  # the tree names this control: its own words decide
    # No labelled control takes the touch (a paragraph, a WebView, a drawn button): only
    # words read in the pixels there can say what it is.
    hit = label_class(ocr_text) if ocr_text else None
    if hit is None:
        return None
    where = f"{e.role}, " if e is not None else ""
    return _make(hit[0], f"the text read there says {hit[1]!r}",
                 f'{verb} "{ocr_text}" (read on screen; {where}{obs.package})', e, obs,
                 ocr_text=ocr_text)


def _swiped(row: UIElement | None, obs: Observation) -> Sensitivity | None:
    """Swiping a list row sideways removes it in many apps: a delete of that row."""
    return None if row is None or not row.enabled or not (row.text or row.desc) else _make(
        "delete", "a sideways swipe across a list row removes it in many apps",
        f"swipe away {_quote(row)} (item, {row.package or obs.package})", row, obs, row=True)


def _rid(e: UIElement) -> str:
    """The resource-id without its package: ``com.omg.shop:id/pay`` → ``pay`` (the cue
    readers split ``pay_button`` into words themselves)."""
    return e.resource_id.rpartition("/")[2]


def _labelled(verb: str, e: UIElement, obs: Observation,
              labels: tuple[tuple[str, str], ...]) -> Sensitivity | None:
    for source, label in labels:
        hit = label_class(label, whole=e.role in ("item", "text"))
        if hit is not None:
            cls, cue = hit
            what = _quote(e)
            return _make(cls, f"the {source} of {what} says {cue!r}",
                         f"{verb} {what} ({e.role}, {e.package or obs.package})", e, obs)
    return None


def _typing(action: TypeText, f: UIElement, obs: Observation,
            length: Callable[[str], int] = len) -> Sensitivity | None:
    short_id = _rid(f)
    cue = "password" if f.password else is_secret_field(short_id, f.desc, f.hint, f.text)
    where = f"{_field_name(f)} ({f.role}, {f.package or obs.package})"
    if "{{secret:" in action.text and not (f.password or is_secret_field(
            short_id, f.desc, f.hint)):  # what the field is, never what a page wrote in it
        return _make("secret_entry", "a secret goes only into a password field, and "
                     f"{_field_name(f)} is not one", f"type a secret into {where}", f, obs)
    if cue is not None:
        chars = length(action.text)  # the value's, not a placeholder's (issue 40)
        return _make("secret_entry", f"the field is a {cue} field",
                     f"type a secret ({chars} characters, hidden) into {where}", f, obs)
    if action.submit:
        sent = action.text if action.clear else f.text + action.text
        return _submit(f, obs, f"type {action.text!r} into", sent, suffix=" and press ENTER")
    return None


def _submit(f: UIElement, obs: Observation, verb: str, sent: str,
            suffix: str = "") -> Sensitivity | None:
    """ENTER in a message box of a screen with a Send button sends the message (``sent``)."""
    # what the field *is* (its id, description, hint), never what it holds: a message that
    # says "find me" or "to the shop" is still a message
    short_id = _rid(f)
    if not f.editable or is_search_field(short_id, f.desc, f.hint) or is_recipient_field(
            short_id, f.desc, f.hint):
        return None
    send = next((e for e in obs.elements if e.enabled and (e.clickable or e.long_clickable)
                 and not e.editable and e.role == "button" and _is_send(e)), None)
    if send is None:
        return None
    return _make("send", f"ENTER in a message box next to {_quote(send)} sends it",
                 f"{verb} {_field_name(f)} ({f.role}, {f.package or obs.package}){suffix}",
                 f, obs, text=sent)


def _is_send(e: UIElement) -> bool:
    return any((hit := label_class(t)) is not None and hit[0] == "send"
               for t in (e.text, e.desc))


def _make(cls: SensitiveClass, reason: str, describe: str, e: UIElement | None,
          obs: Observation, *, ocr_text: str | None = None,
          text: str | None = None, row: bool = False) -> Sensitivity:
    package = (e.package if e is not None and e.package else "") or obs.package
    # a target names a package by a whole word of it: "Shop" is com.omg.shop's
    owners = tuple(dict.fromkeys(pkg for pkg in (obs.package, package) if pkg))
    subjects = [*title_band(obs), *recipients(obs)]
    if e is not None and not e.editable:
        subjects.append(e.label)
    amounts = payment_amounts(e, obs, ocr_text) if cls == "payment" else ()
    if cls == "send" and text is None and e is not None and not e.editable:
        text = message_text(obs)  # a Send button sends what the message box holds
    found = Sensitivity(cls, reason, describe, package, tuple(dict.fromkeys(subjects)),
                        owners, amounts, text)
    from omg_agent.guards.objects import about

    return about(found, e, obs, row=row)


# -- what a send sends (what a payment costs: omg_agent.guards.payable) -------------------
def message_text(obs: Observation) -> str | None:
    """What the screen's message box holds (the focused one when there are several), or
    ``None`` when there is none or the boxes disagree."""
    boxes = [e for e in obs.elements if e.editable and not e.password
             and not is_search_field(_rid(e), e.desc, e.hint)
             and not is_recipient_field(_rid(e), e.desc, e.hint)]
    focused = [e for e in boxes if e.focused]
    texts = {e.text for e in focused or boxes}
    return texts.pop() if len(texts) == 1 else None


def title_band(obs: Observation) -> list[str]:
    """Texts of the screen's top band (an app bar's title: the contact of a conversation)."""
    height = obs.screenshot.size[1]
    height = height or max((e.bounds.bottom for e in obs.elements), default=0)
    limit = height * TITLE_BAND
    return [e.text for e in obs.elements
            if e.text and not e.editable and e.bounds.bottom <= limit
            and not e.resource_id.endswith("alertTitle")]


def recipients(obs: Observation) -> list[str]:
    """What recipient fields (To, 收件人) hold."""
    return [e.text for e in obs.elements if e.editable and e.text and not e.password
            and is_recipient_field(_rid(e), e.desc, e.hint)]


def _quote(e: UIElement) -> str:
    label = e.label or _rid(e)
    return f'"{label}"'


def _field_name(f: UIElement) -> str:
    if f.password:
        return f'the password field "{_rid(f) or f.desc}"'
    return _quote(f)
