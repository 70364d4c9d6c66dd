"""Which of a task's verbs ask for which sensitive class: the one verb table that both the
authorisation reader (:mod:`.authorisation`, :func:`.task_objects.deleted_names`: what the
user's words let through) and the done rule (:func:`.ledger.task_classes`: what a run must
have done) read, so the two never disagree about a sentence.

"remove" is decided by its object, the way the gate treats the control: taking something
out of a cart ("Remove the cable from the cart in Shop") is the cart's own Remove button,
which the gate holds as harmless (:func:`.cues.label_class`) — no delete, so none is granted
and none is required; removing anything else ("Remove the note Milk") is a delete, as is
every "delete"/"删除" (a Delete control is always held).
"""

from __future__ import annotations

import re

from omg_agent.guards.cues import SensitiveClass

VERB_CLASS: dict[str, SensitiveClass] = {
    "pay": "payment", "buy": "payment", "purchase": "payment", "order": "payment",
    "checkout": "payment", "支付": "payment", "付款": "payment", "购买": "payment",
    "付": "payment", "spend": "payment", "买": "payment", "下单": "payment",
    "delete": "delete", "remove": "delete", "clear": "delete", "erase": "delete",
    "uninstall": "delete", "reset": "delete", "删除": "delete", "清空": "delete",
    "send": "send", "text": "send", "message": "send", "post": "send", "share": "send",
    "call": "send", "reply": "send", "发送": "send", "发": "send", "分享": "send",
    "发布": "send", "拨打": "send", "回复": "send",
    "install": "install", "安装": "install",
    "grant": "permission", "allow": "permission", "授权": "permission",
    "enter": "secret_entry", "type": "secret_entry",
}
# the forms of "remove" whose class depends on what is removed
REMOVE_WORDS = frozenset({"remove", "removing", "removes", "removed"})
# a "remove" whose words say it takes something out of a cart (or a list of wishes, a
# basket, a bag): what it removes is kept where it was, nothing is deleted
_OUT_OF_A_CART = re.compile(
    r"\b(?:from|out\s+of|off)\s+(?:the\s+|my\s+|your\s+|this\s+)?(?:shopping\s+)?"
    r"(?:cart|carts|basket|bag|trolley|wish\s*list|wishlist|favou?rites)\b|购物车",
    re.IGNORECASE)


def removes_from_a_cart(verb: str, rest: str) -> bool:
    """Whether ``verb`` is a "remove" that takes something out of a cart, ``rest`` being
    the words after it in its clause ("Remove USB-C 数据线 from the cart in Shop")."""
    return verb.casefold() in REMOVE_WORDS and _OUT_OF_A_CART.search(rest) is not None


def verb_class(verb: str, rest: str = "") -> SensitiveClass | None:
    """The class a task's ``verb`` asks for (``None``: none), ``rest`` the words after it
    in its clause — "remove" is no delete where it takes something out of a cart."""
    if removes_from_a_cart(verb, rest):
        return None
    return VERB_CLASS.get(verb.casefold())  # (the Chinese verbs fold to themselves)


__all__ = ["REMOVE_WORDS", "VERB_CLASS", "removes_from_a_cart", "verb_class"]
