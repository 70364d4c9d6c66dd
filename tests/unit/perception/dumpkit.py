"""A small writer of ``uiautomator dump`` XML for the perception tests.

``node(...)`` writes one ``<node>`` with the attributes uiautomator writes (keyword names
with ``_`` become ``-``; ``cls`` is ``class``, ``desc`` is ``content-desc``); ``dump(...)``
wraps top-level nodes (one per window) in a ``<hierarchy>``.
"""

from __future__ import annotations

from xml.sax.saxutils import quoteattr


def node(*children: str, cls: str = "android.widget.FrameLayout", pkg: str = "com.app",
         bounds: str = "[0,0][1080,2400]", text: str = "", desc: str = "", res: str = "",
         **attrs: str) -> str:
    base = {"index": "0", "text": text, "resource-id": res, "class": cls, "package": pkg,
            "content-desc": desc, "checkable": "false", "checked": "false",
            "clickable": "false", "enabled": "true", "focusable": "false",
            "focused": "false", "scrollable": "false", "long-clickable": "false",
            "password": "false", "selected": "false", "bounds": bounds}
    base.update({k.replace("_", "-"): v for k, v in attrs.items()})
    body = " ".join(f"{k}={quoteattr(v)}" for k, v in base.items())
    inner = "".join(children)
    return f"<node {body}>{inner}</node>" if inner else f"<node {body} />"


def dump(*windows: str) -> str:
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            "<hierarchy rotation=\"0\">" + "".join(windows) + "</hierarchy>")


def text(value: str, bounds: str, **kw: str) -> str:
    return node(cls="android.widget.TextView", text=value, bounds=bounds, **kw)


def status_bar(pkg: str = "com.android.systemui", width: int = 1080) -> str:
    return node(
        text("12:22", "[40,40][170,90]", res="com.android.systemui:id/clock", pkg=pkg),
        node(cls="android.widget.ImageView", pkg=pkg, bounds="[180,0][240,130]",
             desc="WhatsApp notification: 6 messages from 3 chats"),
        node(cls="android.widget.ImageView", pkg=pkg, bounds="[960,40][1010,90]",
             desc="Battery 100 percent."),
        pkg=pkg, bounds=f"[0,0][{width},130]")


def nav_bar(pkg: str = "com.android.systemui") -> str:
    return node(
        node(cls="android.widget.ImageView", pkg=pkg, clickable="true", desc="Back",
             bounds="[100,2270][300,2400]"),
        node(cls="android.widget.ImageView", pkg=pkg, clickable="true", desc="Home",
             bounds="[440,2270][640,2400]"),
        pkg=pkg, bounds="[0,2270][1080,2400]", res="com.android.systemui:id/navigation_bar_frame")
