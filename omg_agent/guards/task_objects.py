"""What a task names besides sends and limits: a deleted object, an app signed in to with a
given secret, and the permissions it negates (English and Chinese).

* :func:`deleted_names` — "Delete the note titled old", "Delete the note 'Trip' in Notes",
  "删除备忘录old", "删除标题为old的备忘录", "把备忘录old删掉": the titles, never "all notes".
* :func:`sign_in_apps` — "Sign in to Login as demo with password {{secret:Pass}}", "Log into
  the Bank app with PIN …", "登录Login，密码{{secret:pw}}": the apps (a password must be named).
* :func:`listed_objects` — "Add MX Master 3S and AirPods Pro to the cart", "Buy a cable, a
  charger and a case", "把「A」和「B」加入购物车": the things a task lists for one verb to
  act on (two or more names; a second clause, "open Shop and add …", is no list).
* :func:`negations` — "don't pay", "never buy", "you may not delete", "without paying", "ask
  me before sending", "不要付款", "别删除", "付款前问我": ``(class, target)`` pairs; words that
  state a limit ("don't pay more than ¥100") or exclude the rest ("don't delete anything
  else", "其他的不要删") negate nothing.

Pure functions for :func:`omg_agent.guards.authorisation.parse_authorisations`.
"""

from __future__ import annotations

import re

from omg_agent.guards.cues import SensitiveClass
from omg_agent.guards.grant import QUOTES
from omg_agent.guards.spending_words import stated_limits
from omg_agent.guards.task_verbs import removes_from_a_cart

_KINDS_EN = (r"(?:note|file|photo|picture|image|contact|message|conversation|chat|event|alarm|"
             r"reminder|draft|post|entry|item|email|song|task|bookmark|album|document|folder|"
             r"expense|record|transaction|to-?do)")
_KINDS_ZH = (r"(?:备忘录|笔记|便签|文件|照片|图片|联系人|消息|短信|提醒|闹钟|日程|草稿|相册|文档|"
             r"支出|账目|记录|待办)")
_QUOTED = r"\"[^\"]+\"|“[^”]+”|'[^']+'|‘[^’]+’|「[^」]+」"
_DELETE_EN = re.compile(
    rf"\b(?:delete|remove|erase|trash)\s+(?:the\s+|my\s+)?{_KINDS_EN}\s+"
    rf"(?:(?:titled|named|called|with\s+(?:the\s+)?(?:title|name))\s+)?"
    rf"(?P<name>{_QUOTED}|[^\s,;.]+(?:\s+[^\s,;.]+){{0,3}}?)"
    r"(?=\s+(?:in|from|on)\s+(?:the\s+)?[\w.]+(?:\s+app)?\s*(?:[,;.]|$)|\s*[,;.]|\s*$|"
    r"\s+(?:and|but|then|only|from|in)\b)", re.IGNORECASE)
_DELETE_ZH = tuple(re.compile(rx) for rx in (
    rf"(?:删除|删掉|删)(?:掉|一下)?(?:标题为|名为|叫做?|标题是)\s*(?P<name>{_QUOTED}|[^\s，。；,;的]+)"
    rf"的{_KINDS_ZH}",
    rf"(?:删除|删掉)(?:掉|一下)?{_KINDS_ZH}(?:里的|中的)?(?:标题为|名为|叫做?|标题是)?\s*"
    rf"(?P<name>{_QUOTED}|[^\s，。；,;的]+)",
    rf"把{_KINDS_ZH}?(?:标题为|名为|叫做?)?\s*(?P<name>{_QUOTED}|[^\s，。；,;的]+?)"
    rf"(?:这条|这个)?(?:{_KINDS_ZH})?(?:删除|删掉|删了)",
))
_NOT_A_TITLE = re.compile(r"^(?:all|every|each|any|the|that|which|it|them|first|last|second|"
                          r"third|oldest|newest|latest|other|others|in|from|on|with|for|"
                          r"about|for|所有|全部|一切|这|那|它|其他|其它|别的|每|第)",
                          re.IGNORECASE)

_CLAUSE_END = re.compile(r"[,;.!?\n，。；！？]")

_PASSWORD = re.compile(r"\b(?:password|passcode|pin)\b|\{\{secret:|密码|口令", re.IGNORECASE)
_SIGN_IN_EN = re.compile(
    r"\b(?i:sign|log)\s*(?i:in|on)\s*(?i:to|into|at|on)?\s+(?i:the\s+)?(?P<app>[A-Z][\w.-]*)"
    r"|\b(?i:sign|log)\s*(?i:in|on)\b[^.;\n]*?\b(?i:in|on|to)\s+(?i:the\s+)?"
    r"(?P<app2>[A-Z][\w.-]*)|\b(?i:login)\s+(?i:to\s+)?(?i:the\s+)?(?P<app3>[A-Z][\w.-]*)"
    r"|\b(?i:open)\s+(?i:the\s+)?(?P<app4>[A-Z][\w.-]*)(?:\s+app)?[^.;\n]*?\b(?i:sign|log)\s*in")
_SIGN_IN_ZH = re.compile(r"登录(?:到)?\s*(?P<app>[A-Za-z][\w.-]*|[\u4e00-\u9fff]{1,6}?)"
                         r"(?:应用|app|App)?(?=[，,。；\s]|用|以|账号|帐号|，|$)"
                         r"|在\s*(?P<app2>[A-Za-z][\w.-]*|[\u4e00-\u9fff]{1,6}?)\s*(?:应用)?"
                         r"(?:里|中|上)[^。；\n]*?登录")
_NOT_AN_APP = frozenset({"as", "with", "using", "the", "to", "my", "your", "again", "first",
                         "and", "then", "in", "on", "password"})

_NEG_VERBS_EN = (r"(?P<verb>pay(?:ing)?|buy(?:ing)?|purchas(?:e|ing)|order(?:ing)?|"
                 r"check(?:ing)?\s*out|spend(?:ing)?|delet(?:e|ing)|remov(?:e|ing)|eras(?:e|ing)|"
                 r"send(?:ing)?|text(?:ing)?|messag(?:e|ing)|repl(?:y|ying)|post(?:ing)?|"
                 r"shar(?:e|ing)|install(?:ing)?)")
_NEG_EN = re.compile(
    r"(?:\b(?:don'?t|do\s+not|never|must\s+not|mustn'?t|should\s+not|shouldn'?t|may\s+not|"
    r"can\s?not|can'?t|(?:are|is)\s+not\s+(?:allowed|permitted)\s+to|aren'?t\s+(?:allowed|"
    r"permitted)\s+to|not\s+allowed\s+to|no\s+need\s+to|without|not\s+to|avoid)|"
    r"\b(?:ask|check\s+with)\s+me\s+(?:first\s+)?before(?:\s+you)?|"
    r"\bonly\s+after\s+i\s+(?:say|confirm)\w*\s+(?:you\s+)?(?:may|can)?)\s+"
    r"(?:(?:actually|ever|yet|really|accidentally|go\s+and|just|anything\s+or)\s+)?"
    + _NEG_VERBS_EN + r"\b(?P<rest>[^.;\n]*)", re.IGNORECASE)
_NEG_ZH = re.compile(
    r"(?:不要|别|不准|不许|不能|不可以|不得|禁止|切勿|勿|不用|无需|先不要|暂时不要|千万别|千万不要|先别|不必|"
    r"不需要|不允许你?|没有?授权你?|未(?:经)?授权你?)(?:帮我|给我|去|再)?(?:直接)?(?P<verb>付款|支付|付钱|购买|买|下单|结账|删除|删|清空|"
    r"发送|发|回复|分享|安装)(?P<rest>[^。；;\n]*)"
    r"|(?P<verb2>付款|支付|购买|下单|删除|发送)(?:之?前)(?:先|一定要|要|请)?(?:问我|问一下我|"
    r"跟我确认|和我确认|确认)")
_NEG_CLASS: tuple[tuple[str, SensitiveClass], ...] = (
    ("pay", "payment"), ("buy", "payment"), ("purchas", "payment"), ("order", "payment"),
    ("check", "payment"), ("spend", "payment"), ("delet", "delete"), ("remov", "delete"),
    ("eras", "delete"), ("send", "send"), ("text", "send"), ("messag", "send"),
    ("repl", "send"), ("post", "send"), ("shar", "send"), ("install", "install"),
    ("付", "payment"), ("支付", "payment"), ("购买", "payment"), ("买", "payment"),
    ("下单", "payment"), ("结账", "payment"), ("删", "delete"), ("清空", "delete"),
    ("发", "send"), ("回复", "send"), ("分享", "send"), ("安装", "install"))
_THE_REST = re.compile(r"\b(?:else|other|others|the\s+rest|more\s+than|over|above|beyond|"
                       r"exceed\w*)\b|其他|其它|别的|其余|超过|以上|多于", re.IGNORECASE)
_NEG_TARGET_EN = re.compile(r"\bto\s+(?P<who>[A-Z][\w-]*|[\u4e00-\u9fff]{1,6})\b")


def deleted_names(text: str) -> list[str]:
    """The titles of the objects a task tells the agent to delete by name."""
    # "Remove the item Cable from the cart": the cart's Remove, no delete (:mod:`.task_verbs`)
    found = [m["name"] for m in _DELETE_EN.finditer(text)
             if not removes_from_a_cart(m[0].split()[0], _CLAUSE_END.split(text[m.end():])[0])]
    found += [m["name"] for rx in _DELETE_ZH for m in rx.finditer(text)]
    out: list[str] = []
    for raw in found:
        name = raw.strip().strip(QUOTES).strip()
        if name and not _NOT_A_TITLE.match(raw.strip()) and name not in out:
            out.append(name)
    return out


def sign_in_apps(text: str) -> list[str]:
    """The apps a task signs in to with a password (or secret) it gives."""
    out: list[str] = []
    for clause in re.split(r"[;；\n。]|(?<=[a-z])\.\s", text):
        if not _PASSWORD.search(clause):
            continue
        m = _SIGN_IN_EN.search(clause) or _SIGN_IN_ZH.search(clause)
        app = next((g for g in (m.groupdict().values() if m else ()) if g), None)
        if app and app.lower().strip(" .,") not in _NOT_AN_APP:
            app = app.strip(" .,")
            out += [app] if app not in out else []
    return out


# a list verb opens a clause ("Add …", "…, then buy …", "and order …"): "the order in Shop"
# and "my pin is …" are nouns
_LIST_VERB = re.compile(r"(?:^|[,;:.!?，。；：]\s*|\b(?:and|then|please|also|now|first)\s+)"
                        r"(?:add|put|buy|order|purchase|select|pick|choose|like|star|"
                        r"bookmark|download|install|archive)\s+", re.IGNORECASE)
_LIST_END = re.compile(r"(?:^|\s+)(?:to|into|in|on|from|for|at|with|then)\s|\s*[;.!?\n]|"
                       r"\s*$", re.IGNORECASE)
# a comma parts items only before a space: "¥1,079" is one number
_LIST_SPLIT = re.compile(r"\s*,\s+(?:and\s+)?|\s+and\s+", re.IGNORECASE)
_LIST_ZH = re.compile(r"把(?P<list>.+?)(?:都)?(?:加入|加到|放进|放入|添加到|添加进)")
_LIST_SPLIT_ZH = re.compile(r"和|、|跟|以及")
_DETERMINER = re.compile(r"^(?:the|a|an|my|one|two|three|both|some|\d+)\s+", re.IGNORECASE)
_NAME = re.compile(r"[A-Z0-9\u4e00-\u9fff]")
_CLAUSE_VERBS = frozenset({
    "open", "go", "tap", "click", "press", "turn", "switch", "send", "pay", "delete", "remove",
    "check", "find", "search", "save", "add", "put", "buy", "order", "set", "type", "write",
    "reply", "share", "call", "close", "launch", "start", "make", "take", "tell", "ask",
    "show", "read", "look", "then", "like", "select", "pick", "return", "come", "leave"})


def listed_objects(text: str) -> list[str]:
    """The things ``text`` lists for one verb to act on, as written (quotes, articles and
    counts dropped): two or more names, or none — a list item that opens with a verb is a
    second clause, not an object, and an item with no capital, digit or Chinese character
    ("the red one") may be shown in other words: then the task lists nothing."""
    found: list[str] = []
    for m in _LIST_VERB.finditer(text):
        rest = text[m.end():]
        end = _LIST_END.search(rest)
        found += _items(_LIST_SPLIT.split(rest[:end.start() if end else len(rest)]))
    for m in _LIST_ZH.finditer(text):
        found += _items(_LIST_SPLIT_ZH.split(m["list"]))
    return list(dict.fromkeys(found))


def _items(parts: list[str]) -> list[str]:
    # a clause's comma stays on the last item ("Buy A and B, then pay"): not part of its name
    items = [_DETERMINER.sub("", p.strip().rstrip(",，").rstrip()).strip().strip(QUOTES).strip()
             for p in parts]
    if len(items) < 2 or not all(items):
        return []
    if any(i.split()[0].casefold() in _CLAUSE_VERBS for i in items if i.split()):
        return []
    # only names ("AirPods Pro", "MX Master 3S", "保温杯"): "the red and the blue one" may
    # be shown in other words than the task's
    return items if all(_NAME.search(i) for i in items) else []


def negations(text: str) -> list[tuple[SensitiveClass, str | None]]:
    """``(class, target)`` for each permission the task negates (target ``None``: all)."""
    out: list[tuple[SensitiveClass, str | None]] = []
    for m in [*_NEG_EN.finditer(text), *_NEG_ZH.finditer(text)]:
        verb = (m["verb"] or m["verb2"] or "").lower()
        rest = m["rest"] or "" if "rest" in m.groupdict() else ""
        before = text[max(0, m.start() - 8):m.start()]  # "其他的不要删"
        if _THE_REST.search(rest) or _THE_REST.search(before) or stated_limits(m[0]):
            continue  # a limit ("don't pay more than ¥100"), or "nothing else"
        cls = next(c for stem, c in _NEG_CLASS if verb.startswith(stem))
        who = _NEG_TARGET_EN.search(rest) if cls == "send" else None
        pair = (cls, who["who"] if who else None)
        out += [pair] if pair not in out else []
    return out


__all__ = ["deleted_names", "listed_objects", "negations", "sign_in_apps"]
