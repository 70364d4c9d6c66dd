"""Text input that never breaks: a ``type`` action as device shell fragments.

Pure functions, no I/O; the ADB driver runs what :func:`plan_typing` returns (DESIGN.md §3,
issue 3 "Text input that never breaks"). The text is cut into runs, each sent the way that
delivers it byte-exact:

* printable ASCII and tabs → ``input text '<arg>'``. The argument is single-quoted for
  ``sh`` (``'`` becomes ``'\\''``; nothing else is special inside single quotes, so ``;&|$`<>()``
  and backslashes arrive as they are) and spaces are written ``%s``, because ``input text``
  types only its first argument and turns every ``%s`` into a space. A literal ``%`` followed by
  a literal ``s`` has no escape in ``input``, so the run is cut between them and the two halves
  go in separate ``input text`` calls (``%`` and then ``s...``);
* newlines → ``input keyevent 66`` (KEYCODE_ENTER): a new line in a multi-line field, the
  field's action (search, next, done) in a single-line one — what a person pressing enter gets;
* a line holding anything else (CJK, emoji, control characters) → the ADB-Keyboard IME
  broadcast ``am broadcast -a ADB_INPUT_B64 --es msg <base64 of UTF-8>``, whole, so mixed
  text needs one broadcast per line. That IME must be the current one while it types: the
  driver wraps the fragments in :func:`ime_envelope`, which selects it, runs them, and
  restores the user's IME whatever happened, in the same shell call.

Clearing a field first uses the IME's ``ADB_CLEAR_TEXT`` when that IME is installed, else
KEYCODE_MOVE_END and one KEYCODE_DEL per character the field holds.

Secrets: a plan made with ``secret=True`` (a password field) describes itself as
``<redacted N chars>``; the driver logs and reports only :attr:`TypingPlan.label`.
"""

from __future__ import annotations

import base64
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

ADB_IME = "com.android.adbkeyboard/.AdbIME"
KEY_ENTER, KEY_DEL, KEY_MOVE_END = 66, 67, 123
# One broadcast's text, in UTF-8 bytes: its base64 (4/3 of it) keeps a shell call under
# 4 KB, the smallest OPEN payload adbd accepts (Android < 9).
B64_CHUNK_BYTES = 2400
INPUT_CHUNK_CHARS = 1000
_TYPABLE = re.compile(r"[\x20-\x7e\t]+")
_LINES = re.compile(r"(\n+)")


@dataclass(frozen=True)
class TypingPlan:
    """Shell fragments that type (and maybe first clear) one text, in order."""

    fragments: tuple[str, ...]
    needs_ime: bool
    chars: int
    secret: bool = False
    text_preview: str = ""

    @property
    def label(self) -> str:
        """What logs and errors may show about this typing."""
        if self.secret:
            return f"type <redacted {self.chars} chars>"
        return f"type {self.text_preview!r} ({self.chars} chars)"


def typing_label(text: str, *, secret: bool) -> str:
    """The label of typing ``text`` (:attr:`TypingPlan.label`), for a driver that types
    without a plan: every driver reports typing in the same words."""
    return TypingPlan((), False, len(text), secret, "" if secret else preview(text)).label


def preview(text: str) -> str:
    """``text`` as a result line may quote it: whole up to 40 characters."""
    return text if len(text) <= 40 else text[:37] + "..."


def sh_quote(arg: str) -> str:
    """``arg`` as one ``sh`` word, always single-quoted (``'`` written ``'\\''``)."""
    return "'" + arg.replace("'", "'\\''") + "'"


def needs_ime(text: str) -> bool:
    """Whether ``text`` has a character ``input text``/``keyevent`` cannot deliver exactly."""
    return any(not ("\x20" <= c <= "\x7e" or c in "\t\n") for c in text)


def input_text_args(run: str) -> list[str]:
    """``input text`` arguments (unquoted) that together type ``run`` exactly.

    ``run`` holds printable ASCII and tabs only. Spaces become ``%s``; the run is cut between
    every literal ``%`` and a following ``s`` so no argument contains a ``%s`` of its own.
    Long runs are cut every :data:`INPUT_CHUNK_CHARS` characters.
    """
    if _TYPABLE.fullmatch(run) is None:
        raise ValueError("input text carries printable ASCII and tabs only")
    pieces: list[str] = []
    start = 0
    for i in range(1, len(run)):
        if (run[i - 1] == "%" and run[i] == "s") or i - start >= INPUT_CHUNK_CHARS:
            pieces.append(run[start:i])
            start = i
    pieces.append(run[start:])
    return [p.replace(" ", "%s") for p in pieces]


def decode_input_text(arg: str) -> str:
    """What Android's ``input text`` types for ``arg`` (for tests and checks)."""
    return arg.replace("%s", " ")


def _b64_chunks(text: str) -> Iterator[str]:
    """``text`` cut at character boundaries into pieces of at most B64_CHUNK_BYTES UTF-8."""
    piece: list[str] = []
    size = 0
    for c in text:
        n = len(c.encode("utf-8"))
        if piece and size + n > B64_CHUNK_BYTES:
            yield "".join(piece)
            piece, size = [], 0
        piece.append(c)
        size += n
    if piece:
        yield "".join(piece)


def ime_broadcast(text: str) -> list[str]:
    """``am broadcast`` fragments committing ``text`` through the ADB-Keyboard IME."""
    out = []
    for chunk in _b64_chunks(text):
        payload = base64.b64encode(chunk.encode("utf-8")).decode("ascii")
        out.append(f"am broadcast -a ADB_INPUT_B64 --es msg {payload} >/dev/null")
    return out


def enter_keys(count: int) -> str:
    return "input keyevent " + " ".join([str(KEY_ENTER)] * count)


def clear_fragments(*, ime_available: bool, field_chars: int) -> list[str]:
    """Fragments that empty the focused field."""
    if ime_available:
        return ["am broadcast -a ADB_CLEAR_TEXT >/dev/null"]
    if field_chars <= 0:
        return []
    dels = " ".join([str(KEY_DEL)] * field_chars)
    return [f"input keyevent {KEY_MOVE_END} {dels}"]


def text_fragments(text: str, *, ime_available: bool) -> tuple[list[str], bool]:
    """Fragments typing ``text``, and whether they need the ADB IME to be current."""
    fragments: list[str] = []
    uses_ime = False
    for part in _LINES.split(text):
        if not part:
            continue
        if part[0] == "\n":
            fragments.append(enter_keys(len(part)))
        elif needs_ime(part):
            if not ime_available:
                raise ValueError("non-ASCII text needs the ADB-Keyboard IME")
            fragments.extend(ime_broadcast(part))
            uses_ime = True
        else:
            fragments.extend("input text " + sh_quote(a) for a in input_text_args(part))
    return fragments, uses_ime


def plan_typing(text: str, *, ime_available: bool, clear: bool = False,
                field_chars: int = 0, secret: bool = False) -> TypingPlan:
    """The fragments that (clear and) type ``text``.

    ``ime_available``: the ADB-Keyboard IME is installed and enabled. Without it, text that
    :func:`needs_ime` raises ``ValueError`` (the driver turns that into ``ActionRejected``).
    ``field_chars``: how many characters the field holds (used to clear without the IME).
    """
    fragments: list[str] = []
    uses_ime = False
    if clear:
        fragments.extend(clear_fragments(ime_available=ime_available, field_chars=field_chars))
        uses_ime = ime_available
    typed, typed_ime = text_fragments(text, ime_available=ime_available)
    fragments.extend(typed)
    return TypingPlan(tuple(fragments), uses_ime or typed_ime, len(text), secret,
                      "" if secret else preview(text))


def ime_envelope(body: str, *, user_ime: str, settle_s: float = 0.0,
                 adb_ime: str = ADB_IME) -> str:
    """``body`` run with ``adb_ime`` selected, the user's IME restored after, status kept.

    ``settle_s`` sleeps after the switch, for phones where the IME binds to the field
    asynchronously and an immediate broadcast would be lost.
    """
    if user_ime == adb_ime:
        return body
    switch = f"ime set {shlex.quote(adb_ime)} >/dev/null && "
    settle = f"sleep {settle_s:g} && " if settle_s > 0 else ""
    if user_ime in ("", "null"):  # nothing to go back to
        return f"{switch}{settle}{body}"
    return (f"{switch}{settle}{body}; _omg_rc=$?; "
            f"ime set {shlex.quote(user_ime)} >/dev/null; exit $_omg_rc")
