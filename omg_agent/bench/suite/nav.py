"""Moves the suite's tasks share: bring an app to the front past system dialogs, reach a
screen of Notes, Shop, Messages or Feed from wherever the phone is, and read the user's
answers out of the operator's request.

Every helper returns the next moves from the CURRENT screen (an empty list once the place
is reached), so a task's ``moves`` can chain them and recover from any screen a noisy
model left the phone on: a wrong app, a wrong note, a popup, an ANR dialog. After a move
that changes the screen, a helper may add the route it expects on the next screen, always
as anchors (resource-id / text / desc): the operator runs them only if the new screen has
them, else it stops there and the next decision sees that screen.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from omg_agent.guards.answers import is_yes, read_answer
from omg_agent.sim.expert.screen import (
    Screen,
    anchor,
    back,
    fg,
    launch,
    report_declined,
    tap,
    tap_at,
    type_at,
    type_into,
    wait,
    where,
)
from omg_agent.sim.expert.tasks import (
    FEED,
    MESSAGES,
    NOTES,
    SHOP,
    MoveContext,
    Moves,
)

log = logging.getLogger(__name__)

SYSTEM = "android"  # the package of the phone's own dialogs (ANR, crash)
_ASKED = re.compile(r"The user was asked (.+) and answered: (.*)$")
POST_NUMBER = re.compile(r"(?:Post |第)(\d+)")
TOP_POSTS = 4  # posts whose Like button shows on a Feed scrolled to the top


def ask(question: str, *, secret: bool = False) -> dict[str, Any]:
    """An ``ask_user``; ``secret``: the question asks for a secret value (its answer is kept
    secret and comes back as a placeholder)."""
    return {"type": "ask_user", "question": question, **({"secret": True} if secret else {})}


def point(x: int, y: int) -> dict[str, Any]:
    return {"kind": "point", "x": x, "y": y}


def a_tap(**how: str) -> dict[str, Any]:
    """A tap on the element an anchor names (res / text / desc) on whatever screen is up."""
    return tap_at(anchor(**how))


def a_type(res: str, text: str) -> dict[str, Any]:
    return type_at(anchor(res=res), text)


def front(phone: Any, screen: Screen, package: str, then: Moves | None = None) -> Moves:
    """Moves that put ``package`` in front, past a system dialog (empty when it is);
    ``then`` is the anchored route to follow once it is launched."""
    if fg(phone) == SYSTEM:
        button = screen.find(text="Wait") or screen.find(text="App info")
        return [tap(button)] if button else [back()]
    return [] if fg(phone) == package else [launch(package), *(then or [])]


# -- the user's answers ------------------------------------------------------------------
def answer(ctx: MoveContext, question: str) -> str | None:
    """The user's answer to ``question`` as the request shows it, or None if not asked."""
    for line in reversed(ctx.request_text.splitlines()):
        m = _ASKED.search(line)
        if m and question in m.group(1):
            return m.group(2).strip()
    return None


def agreed(reply: str) -> bool:
    return is_yes(reply)


def confirm(ctx: MoveContext, question: str, move: dict[str, Any]) -> Moves:
    """Ask before an irreversible ``move``; make it once the user said yes, stop (the user
    declined) once they said no."""
    reply = answer(ctx, question)
    if reply is None:
        return [ask(question)]
    verdict = read_answer(reply)
    if verdict is None:
        return [ask(question)]
    return [move] if verdict == "yes" else [report_declined(f"the user said no to: {question}")]


def saved(ctx: MoveContext, key: str, value: str) -> bool:
    """Whether the memory listing in the request holds ``$key`` = ``value`` exactly."""
    return f"${key} = {json.dumps(value, ensure_ascii=False)}" in ctx.request_text


def with_wrong(ctx: MoveContext, key: str, moves: Moves) -> Moves:
    """``moves``, after a wrongly remembered ``$key`` when the noise says so (the expert
    reads the real value off the screen later, which overwrites it)."""
    if not ctx.wrong_memory or not moves:
        return moves
    return [{"type": "mem_save", "key": key, "value": "?"}, *moves]


# -- Notes -------------------------------------------------------------------------------
def notes_list(phone: Any, screen: Screen) -> Moves:
    """Moves to the Notes list; leaving an editor discards its draft."""
    return front(phone, screen, NOTES) or ([] if where(phone, NOTES) == "main" else [back()])


def open_note(phone: Any, screen: Screen, title: str, then: Moves | None = None) -> Moves:
    """Moves to the editor of the saved note titled ``title`` (empty when there), then the
    anchored ``then``."""
    route = [a_tap(res="note_item", text=title), *(then or [])]
    moves = front(phone, screen, NOTES, route)
    if moves:
        return moves
    app = phone.apps[NOTES]
    if app.screen.name == "editor":
        index = app.screen.params.get("index")
        same = index is not None and index < len(app.notes) and app.notes[index][
            "title"] == title
        return [] if same else [back()]
    item = screen.find(res="note_item", text=title)
    return [tap(item), *route[1:]] if item else [wait()]


def fill_and_save(phone: Any, screen: Screen, fields: dict[str, tuple[str, str]]) -> Moves:
    """In an open editor: type each field whose text differs, then tap Save.

    ``fields`` maps a field key (title / body) to (what to type, what it shows after):
    they differ when the text is a ``$var`` the operator substitutes.
    """
    app = phone.apps[NOTES]
    moves: Moves = []
    for key, (text, shown) in fields.items():
        box = screen.find(res=f"{key}_input")
        if box is not None and app.field(key) != shown:
            moves.append(type_into(box, text))
    save = screen.find(res="save")
    return [*moves, tap(save)] if save else moves or [wait()]


def write_note(phone: Any, screen: Screen, title: str, body: str,
               shown_body: str | None = None) -> Moves:
    """Moves that create the note (title, body) in Notes from any screen."""
    route = note_route(title, body)
    fill = route[1:]
    moves = front(phone, screen, NOTES, route)
    if moves:
        return moves
    app = phone.apps[NOTES]
    if app.screen.name != "editor":
        fab = screen.find(res="fab_new")
        return [tap(fab), *fill] if fab else [wait()]
    if app.screen.params.get("index") is not None:
        return [back()]  # another note's editor: leave it unsaved
    return fill_and_save(phone, screen, {"title": (title, title),
                                         "body": (body, shown_body or body)})


# -- Shop --------------------------------------------------------------------------------
def shop_front(phone: Any, screen: Screen) -> Moves:
    """Moves that bring the Shop up with no promo popup over it."""
    moves = front(phone, screen, SHOP)
    if moves:
        return moves
    if phone.apps[SHOP].popup_visible:
        no = screen.find(text="No thanks") or screen.find(res="close")
        return [tap(no)] if no else [back()]
    return []


def shop_cart(phone: Any, screen: Screen, then: Moves | None = None) -> Moves:
    """Moves to the Shop's cart (empty when there), then the anchored ``then``."""
    moves = shop_front(phone, screen)
    if moves or where(phone, SHOP) == "cart":
        return moves
    icon = screen.find(res="cart")
    return [tap(icon), *(then or [])] if icon else [back()]


# -- Messages ----------------------------------------------------------------------------
def open_thread(phone: Any, screen: Screen, contact: str, then: Moves | None = None) -> Moves:
    """Moves to the conversation with ``contact`` (empty when there), then the anchored
    ``then``."""
    route = [a_tap(res="conversation", desc=contact), *(then or [])]
    moves = front(phone, screen, MESSAGES, route)
    if moves:
        return moves
    app = phone.apps[MESSAGES]
    name = app.screen.name
    if name == "thread":
        return [] if app.screen.params.get("contact") == contact else [back()]
    if name != "main":
        return [back()]
    row = screen.find(res="conversation", desc=contact)
    return [tap(row), *route[1:]] if row else [wait()]


def reply_route(text: str) -> Moves:
    return [a_type("compose", text), a_tap(res="send")]


def note_route(title: str, body: str) -> Moves:
    """From the Notes list: a new note with ``title`` and ``body``, saved."""
    return [a_tap(res="fab_new"), a_type("title_input", title), a_type("body_input", body),
            a_tap(res="save")]


def reply_in_thread(phone: Any, screen: Screen, text: str) -> Moves:
    """In an open thread: type ``text`` (unless it is already there) and tap Send."""
    app = phone.apps[MESSAGES]
    box, send = screen.find(res="compose"), screen.find(res="send")
    moves = [type_into(box, text)] if box and app.field("compose") != text else []
    return [*moves, tap(send)] if send else moves or [wait()]


def new_message(phone: Any, screen: Screen, to: str, text: str,
                ctx: MoveContext | None = None, question: str = "") -> Moves:
    """Moves that send ``text`` to ``to`` from the New message screen; with ``question``,
    the user confirms before Send."""
    fill = [a_type("recipient", to), a_type("body", text)]
    if not question:
        fill.append(a_tap(res="send"))
    moves = front(phone, screen, MESSAGES, [a_tap(res="fab_new"), *fill])
    if moves:
        return moves
    app = phone.apps[MESSAGES]
    name = app.screen.name
    if name == "main":
        fab = screen.find(res="fab_new")
        return [tap(fab), *fill] if fab else [wait()]
    if name != "new":
        return [back()]
    box_to, box_body, send = (screen.find(res=r) for r in ("recipient", "body", "send"))
    moves = [type_into(box_to, to)] if box_to and app.field("to") != to else []
    moves += [type_into(box_body, text)] if box_body and app.field("body") != text else []
    if question and moves:
        return moves  # typed first; the question comes on the filled-in screen
    if send is None:
        return moves or [wait()]
    if question and ctx is not None:
        return confirm(ctx, question, tap(send))
    return [*moves, tap(send)]


# -- Feed --------------------------------------------------------------------------------
def visible_posts(screen: Screen) -> list[int]:
    """Post numbers on screen, from the Like buttons' desc and the posts' meta lines."""
    found = {int(e.desc.rsplit(" ", 1)[-1]) for e in screen.all(res="like")
             if e.desc.rsplit(" ", 1)[-1].isdigit()}
    for e in screen.all(res="meta"):
        m = POST_NUMBER.search(e.text)
        if m:
            found.add(int(m.group(1)))
    return sorted(found)


def scroll_feed(up: bool) -> dict[str, Any]:
    """One swipe on the Feed list: ``up`` reveals the posts below."""
    start, end = (point(500, 880), point(500, 200)) if up else (point(500, 200),
                                                                 point(500, 880))
    return {"type": "swipe", "from": start, "to": end}


def like_button(phone: Any, screen: Screen, post: int) -> Any:
    """The Like button of ``post`` when it shows WHOLE in the list (a sliver at an edge
    cannot be tapped reliably), else None."""
    how = {"res": "like", "desc": f"Like post {post}"}
    button = screen.find(**how)
    view = phone.find_view(resource_id=f"{FEED}:id/like", desc=how["desc"])
    feed = phone.find_view(resource_id=f"{FEED}:id/feed")
    if button is None or view is None or feed is None:
        return None
    inside = feed.bounds[1] <= view.bounds[1] and view.bounds[3] <= feed.bounds[3]
    return button if inside else None


def toggle_posts(phone: Any, screen: Screen, posts: list[int]) -> Moves:
    """Moves that tap Like on each post in ``posts`` (in order), scrolling to find it."""
    if not posts:
        return front(phone, screen, FEED)
    top = phone.apps[FEED].offset == 0  # the first posts show at launch
    moves = front(phone, screen, FEED, [a_tap(res="like", desc=f"Like post {n}")
                                        for n in posts if top and n <= TOP_POSTS])
    if moves:
        return moves
    for i, n in enumerate(posts):
        button = like_button(phone, screen, n)
        if button is not None:
            later = [a_tap(res="like", desc=f"Like post {m}") for m in posts[i + 1:]
                     if like_button(phone, screen, m)]  # liking scrolls nothing
            return [tap(button), *later]
    return [scroll_feed(up=below(screen, posts[0]))]


def below(screen: Screen, post: int) -> bool:
    """Whether ``post``'s Like button is further down the Feed than the screen shows."""
    button = screen.find(res="like", desc=f"Like post {post}")
    if button is not None:  # cut off at an edge
        return button.y > 500
    shown = visible_posts(screen)
    return not shown or post >= max(shown)  # a post whose head shows has its button below


def like_exactly(phone: Any, screen: Screen, want: set[int], allowed: set[int]) -> Moves:
    """Moves that leave every post of ``want`` liked and none outside ``allowed`` liked."""
    liked = phone.apps[FEED].liked
    todo = sorted((want - liked) | (liked - allowed))
    return toggle_posts(phone, screen, todo)
