"""The element list: the one text format of a screen's elements, written and read back.

What the model receives (DESIGN.md §4: compact, numbered, never raw XML), what
``omg-agent observe`` prints, what ``bench observe`` counts tokens of, and what the model
doubles read back to pick ids — one line per element::

    [7] button "Add to cart" +"¥99" desc="cart" res=add_btn @512,880 {clickable,focused}
    [8] input hint="Search" res=search @500,120 {clickable,editable}
    [9] item "Weather" +"10°" +"11°" +"12°" +"13°" +"14°" +"15°" (+6 more) @500,83 {clickable}

id, role, text, ``hint=`` an input's placeholder (it is not typed text), extra texts of
merged children (``+``: as many as fit :data:`MAX_EXTRAS` and :data:`EXTRAS_BUDGET`
characters, then ``(+N more)`` says how many are not shown — never a silent cut),
content-desc (when it differs from the text), resource-id without the package prefix,
centre in the 0–1000 normalized space the model answers in, state flags. Texts are JSON
strings with whitespace collapsed, cut to :data:`MAX_TEXT` characters (extras 30, desc 40)
with ``…``; a password field shows one ``•`` per character it holds (:func:`password_dots`:
its length is true, its value never shown), and with a ``mask`` (the run's
secrets, :meth:`~omg_agent.core.secrets.SecretVault.mask`) every text is masked *before* it
is cut, so a cut never leaves a piece of a secret. Elements of a window over
the app (the keyboard, a system panel, another app's popup) follow a group line
``-- keyboard: com.google.android.inputmethod.latin --``. :func:`render` writes it,
:func:`parse` reads it back into :class:`ParsedElement` records (lines that are not element
lines are skipped, so a whole prompt can be parsed). The operator prompt
(``brain/prompts/operator.md``) explains the same format to the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from omg_agent.core.geometry import ScreenGeometry
from omg_agent.core.observation import UIElement

MAX_TEXT = 60
MAX_EXTRA = 30
MAX_DESC = 40
MAX_EXTRAS = 6
EXTRAS_BUDGET = 120  # characters of extra texts on one line before "(+N more)"
PASSWORD_DOT = "•"
EMPTY = "(no elements)"
FLAGS = ("clickable", "long_clickable", "scrollable", "editable", "checkable", "checked",
         "focused", "selected", "password")

_HEAD = re.compile(r"\[(\d+)\] (\S+)")
_MORE = re.compile(r"\(\+(\d+) more\)")
_AT = re.compile(r"@(\d+),(\d+)")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ParsedElement:
    """One element line read back: what a model (or a double) knows of an element."""

    id: int
    role: str
    text: str = ""
    desc: str = ""
    res: str = ""  # resource-id without the package prefix
    x: int = 500  # centre, 0–1000
    y: int = 500
    flags: frozenset[str] = frozenset()
    extras: tuple[str, ...] = ()
    hint: str = ""
    more: int = 0  # extra texts the line says it does not show


# -- render ---------------------------------------------------------------------------------
def shown(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` as the list shows it: whitespace collapsed, cut to ``limit`` with ``…``."""
    text = " ".join(text.split())
    return text[: limit - 1] + "…" if len(text) > limit else text


def password_dots(text: str) -> str:
    """A filled password field as the list shows it: one dot per character, so its length
    reads true beside the result line's count of what was typed ("•••" once stood for a
    7-character password), never a character of the value."""
    return PASSWORD_DOT * len(text)


def _quote(text: str, limit: int) -> str:
    return json.dumps(shown(text, limit), ensure_ascii=False)


def render_line(element: UIElement, screen: ScreenGeometry) -> str:
    """One line of the element list."""
    e = element
    parts = [f"[{e.id}]", e.role or e.cls.rsplit(".", 1)[-1] or "view"]
    if e.text:
        parts.append(_quote(password_dots(e.text) if e.password else e.text, MAX_TEXT))
    if e.hint and e.hint != e.text:
        parts.append("hint=" + _quote(e.hint, MAX_DESC))
    extras = shown_extras(e.extra_texts)
    parts.extend("+" + _quote(extra, MAX_EXTRA) for extra in extras)
    if len(e.extra_texts) > len(extras):
        parts.append(f"(+{len(e.extra_texts) - len(extras)} more)")
    if e.desc and e.desc != e.text:
        parts.append("desc=" + _quote(e.desc, MAX_DESC))
    if e.resource_id:
        parts.append("res=" + e.resource_id.rsplit("/", 1)[-1])
    x, y = screen.to_normalized(e.center)
    parts.append(f"@{x},{y}")
    flags = [f for f in FLAGS if getattr(e, f)] + ([] if e.enabled else ["disabled"])
    if flags:
        parts.append("{" + ",".join(flags) + "}")
    return " ".join(parts)


def shown_extras(extras: Sequence[str]) -> list[str]:
    """The extra texts a line shows: in order, while :data:`MAX_EXTRAS` and
    :data:`EXTRAS_BUDGET` allow (the rest is counted as ``(+N more)``)."""
    out: list[str] = []
    used = 0
    for extra in extras[:MAX_EXTRAS]:
        size = len(shown(extra, MAX_EXTRA))
        if out and used + size > EXTRAS_BUDGET:
            break
        out.append(extra)
        used += size
    return out


def group_line(element: UIElement) -> str:
    """The line that opens the group of a window over the app."""
    return f"-- {element.window}: {element.package} --"


def render(elements: Iterable[UIElement], screen: ScreenGeometry | tuple[int, int], *,
           mask: Callable[[str], str] | None = None) -> str:
    """The element list of ``elements`` on ``screen`` (a geometry or a pixel size), one line
    per element, a group line where a window over the app starts, or ``(no elements)``;
    ``mask`` is applied to every text before it is cut to fit."""
    if not isinstance(screen, ScreenGeometry):
        screen = ScreenGeometry.of_screen(screen)
    lines: list[str] = []
    group = ("", "")
    for e in elements:
        if mask is not None:
            # a password's text is never shown, only counted: a placeholder's length is not
            e = replace(e, text=e.text if e.password else mask(e.text), desc=mask(e.desc),
                        hint=mask(e.hint),
                        extra_texts=tuple(map(mask, e.extra_texts)))
        here = (e.window, e.package if e.window else "")
        if e.window and here != group:
            lines.append(group_line(e))
        group = here
        lines.append(render_line(e, screen))
    return "\n".join(lines) if lines else EMPTY


# -- parse ----------------------------------------------------------------------------------
def parse_line(line: str) -> ParsedElement | None:
    """The element of one list line, or ``None`` when the line is not an element line."""
    line = line.strip()
    head = _HEAD.match(line)
    if head is None:
        return None
    fields: dict = {"text": "", "desc": "", "hint": "", "res": "", "flags": frozenset()}
    extras: list[str] = []
    rest, pos = line, head.end()
    while pos < len(rest):
        if rest[pos] == " ":
            pos += 1
            continue
        more = _MORE.match(rest, pos)
        if more is not None:
            fields["more"], pos = int(more.group(1)), more.end()
            continue
        for prefix, key in (('desc="', "desc"), ('hint="', "hint"), ('+"', "extra"),
                            ('"', "text")):
            if rest.startswith(prefix, pos):
                value, pos = _string(rest, pos + len(prefix) - 1)
                if key == "extra":
                    extras.append(value)
                elif not fields[key]:
                    fields[key] = value
                break
        else:
            end = rest.find(" ", pos)
            token = rest[pos:] if end < 0 else rest[pos:end]
            pos = len(rest) if end < 0 else end
            at = _AT.fullmatch(token)
            if token.startswith("res="):
                fields["res"] = token[4:]
            elif at is not None:
                fields["x"], fields["y"] = int(at.group(1)), int(at.group(2))
            elif token.startswith("{") and token.endswith("}"):
                fields["flags"] = frozenset(f for f in token[1:-1].split(",") if f)
    return ParsedElement(int(head.group(1)), head.group(2), extras=tuple(extras), **fields)


def _string(line: str, pos: int) -> tuple[str, int]:
    """The JSON string starting at ``pos`` and where it ends; a broken one is read to the
    next space."""
    try:
        value, end = _DECODER.raw_decode(line, pos)
    except json.JSONDecodeError:
        end = line.find(" ", pos)
        end = len(line) if end < 0 else end
        return line[pos:end].strip('"'), end
    return (value if isinstance(value, str) else str(value)), end


def parse(text: str) -> list[ParsedElement]:
    """Every element line of ``text`` (other lines skipped), in order."""
    return [e for e in map(parse_line, text.splitlines()) if e is not None]
