"""Sends a task names: who gets which message, as the user wrote it (English and Chinese).

A task that tells the agent to send a given text to contacts it names *is* the user's
instruction to send exactly that: `Send "On my way" to 妈妈 and to Bob in Messages`, `Text
Bob "running late"`, "Reply ok to Alice", "Tell Bob: dinner at 7", "给妈妈发消息说我到了",
"回复Alice：好的", "把“我到了”发给妈妈和Bob". :func:`sends` returns one ``(recipient, text)``
pair per recipient; the text is what the user wrote (quotes aside), never a description of it.
Nothing is returned where the text or a recipient is not stated — "send it to Bob", "send
Bob a message", "send Hi to my sister", "send Hi to 138…" (a number is not a name): those ask,
showing the text. Pure functions; :mod:`omg_agent.guards.authorisation` makes the grants.
``sends(text, anyone=True)`` also reads a text dictated to whom no name says — a number, "my
sister": a send the task asks for, not one it grants (honest done,
:func:`omg_agent.guards.ledger.stated_messages`: that text must be the one sent).
"""

from __future__ import annotations

import re

from omg_agent.guards.grant import QUOTES

_Q = r"[\"“”'‘’「」『』]"
_QUOTED = re.compile(r"\"(?P<a>[^\"]+)\"|“(?P<b>[^”]+)”|「(?P<c>[^」]+)」|『(?P<d>[^』]+)』"
                     r"|(?<![\w])'(?P<e>[^']+)'(?![\w])|‘(?P<f>[^’]+)’")
# "… in Messages", "… via the WhatsApp app": an app's name is capitalised ("in traffic" is text)
_APP_TAIL = re.compile(r"\s+(?i:in|on|via|using|through|with)\s+(?i:the\s+)?[A-Z][\w.]*"
                       r"(?:\s+(?i:app))?\s*$|\s+(?i:in|on)\s+(?i:the\s+)?(?i:conversation|chat|"
                       r"thread)\b.*$")
_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?(?:to\s+)?|\s+and\s+(?:to\s+)?|\s*&\s*|\s*、\s*|"
                         r"\s*和\s*|\s*跟\s*|\s*及\s*|\s*以及\s*|\s*与\s*|\s*，\s*", re.IGNORECASE)
_NOT_A_NAME = re.compile(r"(?:my|the|them|him|her|it|us|me|you|a|an|this|that|these|those|"
                         r"everyone|everybody|all|someone|somebody|anyone|whoever|each|every|"
                         r"his|their|our|your)\b|他|她|它|大家|所有人|每个人|某人|谁",
                         re.IGNORECASE)
_GENERIC_TEXT = re.compile(r"^(?:a|an|the|my|this|that|some|any)?\s*(?:message|text|sms|note|"
                           r"reply|response|msg|it|them|this|that|something|anything)s?$",
                           re.IGNORECASE)
# "send the price of the cable to Bob", "send my address to Bob": a description, not a text
_DESCRIBED = re.compile(r"^(?:the|my|this|that|these|those|your|his|her|their|our)\s")
_NUMBER = re.compile(r"(?:(?:the|my|a|his|her|their)\s+)?(?:new\s+)?(?:(?:phone|mobile)\s+)?"
                     r"(?:number\s+)?\+?\d[\d\s-]{2,}\d|(?:新)?(?:号码|手机号)?\+?\d{3,}",
                     re.IGNORECASE)
_RELATION = re.compile(r"him|her|them|us|(?:my|his|her|their|our)\s+[a-z]+|"
                       r"(?:我|他|她)(?:的)?[\u4e00-\u9fff]{1,3}", re.IGNORECASE)
_ZH_GENERIC = re.compile(r"^(?:一条|个|条)?(?:信息|消息|短信|微信|它|这个|那个)?$")
_SEP = r"(?:\s*[:：]\s*|\s*[,，]?\s*(?:saying|that\s+says|to\s+say|that|with)\s+|\s*[-—]\s*)"
_EN_VERB = r"(?:send|text|message|reply|write|sms|dm|tell|say)"

# verb TEXT to RECIPIENTS ("Send hi to Bob", "Reply ok to Alice", "Say hi to 妈妈")
_TEXT_TO = re.compile(rf"^\s*(?:please\s+)?{_EN_VERB}\s+(?:(?:a|an|the)\s+(?:message|text|sms|"
                      r"reply)\s+)?(?P<rest>.+)$", re.IGNORECASE)
# verb (to) RECIPIENTS SEP TEXT ("Text Bob: hi", "Reply to Alice with ok", "Tell Bob that …",
# "Send a message to Bob saying hi", "Message Alice 'hi'")
_TO_TEXT = re.compile(rf"^\s*(?:please\s+)?(?:{_EN_VERB})\s+(?:(?:a|an)\s+(?:message|text|sms|"
                      r"reply)\s+)?(?:to\s+)?(?P<who>[^:：\"“'‘「]+?)(?:'s\s+\w+(?:\s+message)?)?"
                      rf"(?:\s+(?:a|an)\s+(?:message|text|sms))?{_SEP}(?P<text>.+)$",
                      re.IGNORECASE)
# verb RECIPIENT "TEXT" / verb RECIPIENT TEXT (tell/text: one word names the contact)
_WHO_QUOTED = re.compile(rf"^\s*(?:please\s+)?{_EN_VERB}\s+(?:to\s+)?(?P<who>[^\"“'‘「]+?)\s*"
                         rf"(?P<text>{_Q}.+{_Q})\s*(?P<tail>.*)$", re.IGNORECASE)
_WHO_WORD = re.compile(r"^\s*(?i:please\s+)?(?i:tell|text|message)\s+(?P<who>[A-Z][\w-]*|"
                       r"[\u4e00-\u9fff]{1,6})\s+(?P<text>\S.*)$")
_REPLY_CONV = re.compile(r"\breply\b(?:\s+(?:with\s+)?(?P<text>.+?)\s+in)?.+?\bconversation\s+"
                         r"with\s+(?P<who>.+?)(?:\s+in\s+\w+)?\s*$", re.IGNORECASE)

_ZH_NAME = r"[^，。；,;\s：:“”\"'‘’「」]{1,20}?"
_ZH_MSG = r"(?:一条|一个|条|个)?(?:信息|消息|短信|微信|私信)?"
_ZH_SAY = r"(?:说|讲|告诉(?:他|她|他们)?|内容(?:是|为)?|[：:，,]|(?=[“\"'‘「]))"
_ZH_RULES = tuple(re.compile(rx) for rx in (
    # 给RECIPS发(送)消息说TEXT / 给RECIPS发送：TEXT / 给妈妈回复：TEXT
    rf"给(?P<who>{_ZH_NAME})(?:发送|发|回复|回)(?:一下)?{_ZH_MSG}\s*{_ZH_SAY}\s*(?P<text>.+)$",
    # 发消息给RECIPS说TEXT
    rf"(?:发送|发|回复)(?:一下)?{_ZH_MSG}给(?P<who>{_ZH_NAME})\s*{_ZH_SAY}\s*(?P<text>.+)$",
    # 回复RECIPS：TEXT / 告诉RECIPS：TEXT / 跟RECIP说TEXT
    rf"(?:回复|答复|回)(?P<who>{_ZH_NAME})\s*{_ZH_SAY}\s*(?P<text>.+)$",
    rf"告诉(?P<who>{_ZH_NAME})\s*{_ZH_SAY}\s*(?P<text>.+)$",
    rf"(?:跟|和|对)(?P<who>{_ZH_NAME})说\s*[：:，,]?\s*(?P<text>.+)$",
    # 把TEXT发(送)给RECIPS / 发送TEXT给RECIPS
    rf"把(?P<text>.+?)(?:发送|发|转发)给(?P<who>{_ZH_NAME})(?:[。；，,]|$)",
    rf"(?:发送|发)(?P<text>[“\"'‘「].+?[”\"'’」])给(?P<who>{_ZH_NAME})(?:[。；，,]|$)",
))
# 回复AliceTEXT: a Latin name then Chinese text
_ZH_LATIN_NAME = re.compile(r"(?:回复|告诉|给)(?P<who>[A-Za-z][A-Za-z .'-]{0,30}?)"
                            r"(?:发(?:送)?(?:消息|信息|短信)?)?(?P<text>[\u4e00-\u9fff].*)$")


def sends(text: str, *, anyone: bool = False) -> list[tuple[str, str]]:
    """``(recipient, text)`` for each send the task states in full (see the module); with
    ``anyone``, also to a recipient no name says (a number, "my sister")."""
    out: list[tuple[str, str]] = []
    for clause in _clauses(text):
        found = _en(clause, anyone) if re.search(r"[A-Za-z]", clause.split(" ")[0] or "x") \
            else _zh(clause, anyone)
        found = found or _en(clause, anyone) or _zh(clause, anyone)
        out += [pair for pair in found if pair not in out]
    return out


def _clauses(text: str) -> list[str]:
    """The task's clauses (sentences; ``;``, "then", "and then"), quoted texts kept whole."""
    quotes: list[str] = []

    def keep(m: re.Match[str]) -> str:
        quotes.append(m[0])
        return f"\x00{len(quotes) - 1}\x00"

    masked = _QUOTED.sub(keep, text)
    pieces = re.split(r"(?<=[.!?])\s+|[;；\n。！？]|\s+(?:and\s+)?then\s+|[,，]\s*then\s+"
                      r"|[,，]?\s*(?:然后|再)|[,，]?\s+but\s+|(?:[,，]|\s+and)\s+(?=(?i:send|text|"
                      r"message|reply|tell|write|say)\s)|[,，]\s*(?=给|回复|告诉|发)", masked)
    out = []
    for piece in pieces:
        piece = re.sub(r"\x00(\d+)\x00", lambda m: quotes[int(m[1])], piece)
        piece = piece.strip().rstrip(".")
        if piece:
            out.append(piece)
    return out


def _en(clause: str, anyone: bool) -> list[tuple[str, str]]:
    m = _REPLY_CONV.search(clause)
    if m and m["text"]:
        return _pairs(m["who"], m["text"], anyone=anyone)
    for rx in (_WHO_QUOTED, _TO_TEXT):
        m = rx.match(clause)
        if m and not (rx is _WHO_QUOTED and m["tail"].strip() and not _APP_TAIL.match(
                " " + m["tail"])):
            who = re.sub(r"^(?:a|an)\s+(?:message|text|sms)\s+to\s+", "", m["who"], flags=re.I)
            found = _pairs(who, m["text"], literal=True, anyone=anyone)
            if found:
                return found
    m = _TEXT_TO.match(clause)
    if m:
        found = _text_to(m["rest"], anyone)
        if found:
            return found
    m = _WHO_WORD.match(clause)
    return _pairs(m["who"], m["text"], anyone=anyone) if m else []


def _text_to(rest: str, anyone: bool) -> list[tuple[str, str]]:
    """TEXT to RECIPIENTS: the first " to " after which only names follow (``anyone``:
    else the first after which only recipients follow)."""
    for loose in (False, True) if anyone else (False,):
        for m in re.finditer(r"\s+to\s+", rest, flags=re.IGNORECASE):
            found = _pairs(rest[m.end():], rest[:m.start()], anyone=loose)
            if found:
                return found
    return []


def _zh(clause: str, anyone: bool) -> list[tuple[str, str]]:
    for rx in _ZH_RULES:
        m = rx.search(clause)
        if m:
            return _pairs(m["who"], m["text"], anyone=anyone)
    m = _ZH_LATIN_NAME.search(clause)
    return _pairs(m["who"], m["text"], anyone=anyone) if m else []


def _pairs(who: str, said: str, literal: bool = False, anyone: bool = False
           ) -> list[tuple[str, str]]:
    """One pair per recipient of ``who`` — none when a recipient is no name (``anyone``: no
    recipient, :func:`_recipient`) or the text is not stated (``literal``: a separator — a
    colon, "that", quotes — says the words are the text even when they start like a
    description)."""
    said = re.sub(r"^内容(?:是|为)[：:]?", "", _APP_TAIL.sub("", said.strip()).strip())
    said = said.strip(QUOTES).rstrip("。").strip() if _quoted(said) else said.rstrip("。")
    if not said or _GENERIC_TEXT.match(said) or _ZH_GENERIC.match(said) or (
            not literal and not _quoted(said) and _DESCRIBED.match(said)):
        return []
    who = _APP_TAIL.sub("", who.strip().rstrip(".。")).strip()
    names = [n.strip(QUOTES + ".,") for n in _LIST_SPLIT.split(who) if n.strip(QUOTES + ".,")]
    if not names or not all(is_name(n) or (anyone and _recipient(n)) for n in names):
        return []
    return [(n, said) for n in names]


def _recipient(target: str) -> bool:
    """Someone a message can go to though no name says who: a number ("13328033195", "the
    new number 133 2803 3195"), a pronoun or a relation ("him", "my sister", "我妈")."""
    return bool(_NUMBER.fullmatch(target.strip()) or _RELATION.fullmatch(target.strip()))


def _quoted(text: str) -> bool:
    return len(text) >= 2 and text[0] in QUOTES and text[-1] in QUOTES


def names_nobody(target: str) -> bool:
    """A pronoun or a relation ("him", "my sister", "them"): whom, the words do not say."""
    return _NOT_A_NAME.match(target.strip()) is not None


def is_name(target: str) -> bool:
    """A contact's name: not a number, a pronoun, a relation ("my sister"), a phrase."""
    t = target.strip()
    if not t or any(ch.isdigit() for ch in t) or _NOT_A_NAME.match(t):
        return False
    latin = t.split()
    if len(latin) > 3 or re.search(r"\b(?:to|in|on|at|with|for|from|saying|that)\b", t,
                                   re.IGNORECASE):
        return False
    return len(t) <= 30 and not re.search(r"[.!?，。：:]", t)


__all__ = ["is_name", "names_nobody", "sends"]
