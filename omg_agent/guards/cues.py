"""The words that make a button, a switch or a field sensitive, English and Chinese.

The sensitive-action gate (:mod:`omg_agent.guards.sensitive`) reads a control's own label
through :func:`label_class` and a field's through :func:`is_secret_field`. Both compare
texts normalised by :mod:`omg_agent.perception.textmatch` (NFKC, case folded), so
``ＰＡＹ`` and ``pay`` are one cue. A label is a *button label* only when it is short:
English cues must open a label of at most :data:`MAX_LABEL_WORDS` words ("Pay ¥10,509.00",
"Delete all notes"), Chinese cues must sit in a label of at most :data:`MAX_CJK_CHARS`
characters ("立即支付") — so a message preview "Call me when you're free" or a paragraph that
mentions deleting is data, not a Delete button. A negation in front ("Don't allow",
"取消支付", "不允许") makes a label harmless.

Labels are split into words by :mod:`omg_agent.perception.labels`, which also holds the
short-label limits, the words of a *loading* screen and :func:`is_secret_field` (the
drivers read those — the secret typer checks the field a secret goes into — and the drivers
sit below the guards). Pure functions, no I/O.
"""

from __future__ import annotations

from typing import Literal

from omg_agent.perception.labels import (
    MAX_CJK_CHARS,
    MAX_LABEL_WORDS,
    cjk_part,
    is_secret_field,
    latin_words,
)

SensitiveClass = Literal["payment", "delete", "send", "install", "permission", "secret_entry",
                         "account_security"]
CLASSES: tuple[SensitiveClass, ...] = ("payment", "delete", "send", "install", "permission",
                                       "secret_entry", "account_security")

# Order matters: the first class whose cue fits wins ("Send reset link" is account security,
# not a send; "Factory reset" is a delete).
_LABEL_CUES: tuple[tuple[SensitiveClass, tuple[str, ...], tuple[str, ...]], ...] = (
    ("account_security",
     ("change password", "reset password", "send reset link", "two-factor", "2fa",
      "2-step verification", "two-step verification", "change pin"),
     ("修改密码", "更改密码", "重置密码", "重置链接", "两步验证", "双重验证", "二次验证",
      "解除绑定")),
    ("payment",
     ("pay", "pay now", "buy", "buy now", "place order", "confirm payment", "confirm order",
      "submit order", "complete purchase", "purchase", "confirm and pay", "checkout and pay",
      "subscribe"),
     ("支付", "付款", "确认订单", "立即购买", "提交订单", "购买", "下单")),
    ("delete",
     ("delete", "clear", "uninstall", "reset", "factory reset", "erase", "wipe", "remove all"),
     ("删除", "清空", "卸载", "重置", "恢复出厂", "清除数据", "抹掉")),
    ("send",
     ("send", "post", "publish", "share", "call", "dial", "forward"),
     ("发送", "发布", "分享", "拨打", "转发", "呼叫")),
    ("install", ("install",), ("安装",)),
    ("permission", ("allow", "grant"), ("允许", "授权")),
)
# Labels that contain a cue but name something harmless.
_HARMLESS_EN = (("clear", "search"), ("clear", "text"), ("clear", "query"), ("clear", "input"),
                ("share", "location", "off"))
_HARMLESS_ZH = ("支付宝",)  # an app's name on the launcher, not a payment
_NEGATIONS_EN = frozenset({"don't", "dont", "do", "not", "no", "never", "cancel", "deny",
                           "skip", "later", "stop"})
_NEGATIONS_ZH = ("不", "别", "取消", "拒绝", "禁止", "暂不", "稍后")

_PHRASES = [(cls, [tuple(latin_words(p)) for p in en], zh) for cls, en, zh in _LABEL_CUES]


def label_class(label: str, *, whole: bool = False) -> tuple[SensitiveClass, str] | None:
    """The sensitive class a control labelled ``label`` belongs to, with the cue that said
    so, or ``None`` for a harmless or long label. ``whole``: the cue must be the entire
    label (prices aside) — for list rows, whose titles are often the user's own words
    ("Call the plumber") and which navigate rather than act."""
    if not label.strip():
        return None
    words = latin_words(label)
    if words and len(words) <= MAX_LABEL_WORDS and words[0] not in _NEGATIONS_EN \
            and not any(tuple(words[:len(h)]) == h for h in _HARMLESS_EN):
        for cls, phrases, _ in _PHRASES:
            for phrase in sorted(phrases, key=len, reverse=True):
                if tuple(words[:len(phrase)]) == phrase and (
                        not whole or len(words) == len(phrase)):
                    return cls, " ".join(phrase)
    han = cjk_part(label)
    if han and len(han) <= MAX_CJK_CHARS and not han.startswith(_NEGATIONS_ZH) \
            and not any(h in han for h in _HARMLESS_ZH):
        for cls, _, cues in _PHRASES:
            for cue in cues:
                if cue == han or (not whole and cue in han):
                    return cls, cue
    return None


def is_search_field(*texts: str) -> bool:
    """Whether a field with these texts is a search box (ENTER searches, never sends)."""
    return any(w in ("search", "query", "find") for t in texts for w in latin_words(
        t.replace("_", " "))) or any("搜索" in cjk_part(t) or "查找" in cjk_part(t)
                                     for t in texts)


def is_recipient_field(*texts: str) -> bool:
    """Whether a field with these texts holds a recipient (To / 收件人), not a message."""
    words = {w for t in texts for w in latin_words(t.replace("_", " "))}
    return bool(words & {"to", "recipient", "recipients", "number"}) or any(
        z in cjk_part(t) for t in texts for z in ("收件人", "号码"))


__all__ = ["CLASSES", "SensitiveClass", "is_recipient_field", "is_search_field",
           "is_secret_field", "label_class"]
