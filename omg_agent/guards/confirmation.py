"""How a gated action reaches a human: a question with exactly what will happen, and a yes.

A :class:`ConfirmationChannel` answers a :class:`ConfirmationRequest` with ``True`` (go
ahead), ``False`` (don't) or ``None`` — no human is reachable, so the run stops resumable
with status ``needs_confirmation`` and nothing is executed. Channels here:

* :class:`TerminalChannel` — prints the request and reads y/N through two plain callables
  (the CLI passes ``input``/``print`` or streams; this layer imports no terminal library);
* :class:`ScriptedChannel` — answers from a list or a policy, and records every request
  (tests, the bench's gullible-model runs);
* :class:`NoHumanChannel` — always ``None`` (non-interactive runs).

The mirror's page (:class:`~omg_agent.hitl.channel.PageChannel`) is one more. Whatever
the channel, a yes is to the request it was shown: the gate looks again after it and asks
again when the screen changed (:meth:`~omg_agent.guards.gatekeeper.GateKeeper.review`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol, TextIO

from omg_agent.guards.answers import read_answer, unclear
from omg_agent.guards.sensitive import Sensitivity


@dataclass(frozen=True)
class ConfirmationRequest:
    """What a human is asked: the class, exactly what will be tapped or typed, and why.

    ``fingerprint`` binds a yes to exactly this action on this screen
    (:func:`~omg_agent.guards.approvals.fingerprint`): a yes is used once, for it alone.
    ``note`` says why it is asked (again): the screen changed while the last question was
    open."""

    cls: str
    describe: str
    reason: str
    package: str = ""
    task: str = ""
    fingerprint: str = ""
    note: str = ""

    @classmethod
    def of(cls, sensitivity: Sensitivity, task: str = "",
           fingerprint: str = "") -> ConfirmationRequest:
        """The question about ``sensitivity``: what will be tapped or typed, and what it is
        about — the note, the items and amount, the recipient and the whole text
        (:mod:`omg_agent.guards.objects`); ``fingerprint`` binds a yes to exactly that."""
        return cls(sensitivity.cls, sensitivity.question, sensitivity.reason,
                   sensitivity.package, task, fingerprint)

    def text(self) -> str:
        """The question as plain text (what a terminal prints)."""
        lines = [self.note] if self.note else []
        lines += [f"The agent wants to {self.describe}.",
                 f"This is a sensitive action ({self.cls}): {self.reason}."]
        if self.task:
            lines.append(f"Your task: {self.task}")
        return "\n".join(lines)


class ConfirmationChannel(Protocol):
    def confirm(self, request: ConfirmationRequest) -> bool | None:
        """``True`` yes, ``False`` no, ``None`` no human reachable."""
        ...


ASK_AGAIN = 3  # unclear answers before the terminal takes the silence as a no
# what a run records as the answer after ASK_AGAIN unclear ones: not a quote, since the
# user never said no (the action is still not done)
NO_CLEAR_ANSWER = f"(no clear answer in {ASK_AGAIN} tries)"
ENTER_ONLY = "(Enter alone: the default no)"


def words_of(channel: object) -> str:
    """How the last answer of ``channel`` is to be recorded, when the channel keeps it (the
    terminal's :attr:`TerminalChannel.said`); ``""``: a plain yes or no."""
    return str(getattr(channel, "said", "") or "")


class TerminalChannel:
    """Asks on a terminal: writes the request, reads one line; a yes only by the one answer
    rule (:mod:`omg_agent.guards.answers`), an unclear answer is asked again.

    End of input (``read`` returns ``None`` or raises ``EOFError``) means nobody is there.
    """

    def __init__(self, read: Callable[[str], str | None],
                 write: Callable[[str], object]) -> None:
        self._read = read
        self._write = write
        # the last answer as the run records it: a no from the one answer rule's list as
        # typed, ENTER_ONLY, or NO_CLEAR_ANSWER — never words the user did not type
        self.said = ""

    @classmethod
    def from_streams(cls, stdin: TextIO, stdout: TextIO) -> TerminalChannel:
        def read(prompt: str) -> str | None:
            stdout.write(prompt)
            stdout.flush()
            line = stdin.readline()
            return line if line else None  # "" is end of input; "\n" is an empty answer

        def write(text: str) -> None:
            stdout.write(text + "\n")
            stdout.flush()

        return cls(read, write)

    def confirm(self, request: ConfirmationRequest) -> bool | None:
        self._write(request.text())
        self.said = ""
        for _ in range(ASK_AGAIN):
            try:
                answer = self._read("Allow it? [y/N] ")
            except EOFError:
                answer = None
            if answer is None:
                self._write("(no answer: not done)")
                return None
            verdict = "no" if not answer.strip() else read_answer(answer)  # [y/N]: empty is no
            if verdict is not None:
                self._write("Allowed." if verdict == "yes" else "Refused: not done.")
                self.said = " ".join(answer.split()) or ENTER_ONLY  # a word of the lists
                return verdict == "yes"
            self._write(unclear(answer.strip()))
        self._write("Not done: no clear yes.")
        self.said = NO_CLEAR_ANSWER
        return False


@dataclass
class ScriptedChannel:
    """Answers from ``answers`` in order (then ``None``), or from a ``policy`` function."""

    answers: Iterable[bool | None] = ()
    policy: Callable[[ConfirmationRequest], bool | None] | None = None
    requests: list[ConfirmationRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._queue = list(self.answers)

    def confirm(self, request: ConfirmationRequest) -> bool | None:
        self.requests.append(request)
        if self.policy is not None:
            return self.policy(request)
        return self._queue.pop(0) if self._queue else None

    def assert_complete(self) -> None:
        """Every scripted answer was used (a test's check that the gate asked enough)."""
        if self._queue:
            raise AssertionError(f"{len(self._queue)} scripted answers were never asked for")


@dataclass
class MaskingChannel:
    """``channel`` shown only masked requests (``mask``: the run's secret vault's): a
    message about to be sent may hold a password, and the question shows the text."""

    channel: ConfirmationChannel
    mask: Callable[[str], str]

    def confirm(self, request: ConfirmationRequest) -> bool | None:
        """``request`` masked, every other field kept: the fingerprint a yes is bound to
        and the note saying why it is asked again reach the channel as the gate made them."""
        m = self.mask
        return self.channel.confirm(dataclasses.replace(
            request, describe=m(request.describe), reason=m(request.reason),
            task=m(request.task), note=m(request.note)))


class NoHumanChannel:
    """Nobody to ask: every gated action stops the run (``needs_confirmation``)."""

    def confirm(self, request: ConfirmationRequest) -> bool | None:
        return None
