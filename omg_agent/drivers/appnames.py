"""App names as people say them → Android packages ("微信", "ＷｅＣｈａｔ", "open WeChat app").

Case, full-width forms, spaces and dashes are ignored; filler words around a name ("打开",
"app") are dropped. Used by device profiles and by both drivers' ``launch``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

PACKAGE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$")
_IGNORED_CHARS = re.compile(r"[\s\-_·・'’\"“”]+")
# Words around an app name that do not change which app is meant ("打开微信", "WeChat app").
_PREFIXES = ("open", "launch", "start", "打开", "启动", "开启", "进入", "打開", "啟動")
_SUFFIXES = ("application", "app", "应用程序", "应用", "客户端", "軟體", "程式", "應用")


def normalize_name(name: str) -> str:
    """An app name as compared: NFKC (full-width → ASCII), case-folded, no spaces/dashes."""
    return _IGNORED_CHARS.sub("", unicodedata.normalize("NFKC", name)).casefold()


def _strip_fillers(key: str) -> str:
    for prefix in _PREFIXES:
        if key.startswith(prefix) and len(key) > len(prefix):
            key = key[len(prefix):]
            break
    for suffix in _SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[: -len(suffix)]
    return key


def lookup_app(name: str, table: Mapping[str, Sequence[str]]) -> str | None:
    """The package ``name`` means in ``table`` (package → names), or ``None``.

    A package name comes back as given, whether or not the table knows it.
    """
    query = name.strip()
    if not query:
        return None
    if query in table:
        return query
    index = {normalize_name(alias): package
             for package, aliases in table.items() for alias in aliases}
    key = normalize_name(query)
    for candidate in (key, _strip_fillers(key)):
        if candidate in index:
            return index[candidate]
    if PACKAGE_RE.fullmatch(query):
        return query
    return None
