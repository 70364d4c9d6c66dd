"""Screens for the guards' tests: a real VirtualPhone driven host-side, observed without adb
(``parse_elements(phone.dump_xml())``), and hand-built screens for what the vphone has no
app for (permission dialogs, web pages)."""

from __future__ import annotations

from PIL import Image

from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.perception.uitree import parse_elements
from omg_agent.vphone.phone import VirtualPhone

SHOP, NOTES, MESSAGES = "com.omg.shop", "com.omg.notes", "com.omg.messages"
FEED, LOGIN, SETTINGS = "com.omg.feed", "com.omg.login", "com.android.settings"


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def observe(phone: VirtualPhone) -> Observation:
    """What a driver would observe: the element list (the screenshot is blank: the gate
    reads no pixels) and the focused package."""
    with phone.lock:
        p = phone.profile
        return Observation(Image.new("RGB", (p.width, p.height)),
                           parse_elements(phone.dump_xml()), package=phone.focus()[0])


def element(obs: Observation, *, text: str | None = None, rid: str | None = None,
            desc: str | None = None) -> UIElement:
    """The first element with this text / resource-id suffix / description."""
    for e in obs.elements:
        if ((text is None or e.text == text) and (desc is None or e.desc == desc)
                and (rid is None or e.resource_id.endswith(f"/{rid}"))):
            return e
    raise LookupError(f"no element text={text} rid={rid} desc={desc} in "
                      f"{[(e.text, e.resource_id) for e in obs.elements]}")


def tap(phone: VirtualPhone, **how: str) -> None:
    e = element(observe(phone), **how)
    phone.tap(*e.center)


def made_screen(package: str, rows: list[dict], size: tuple[int, int] = (1080, 2400)
                ) -> Observation:
    """A hand-built screen: one dict of UIElement fields per element (bounds as a tuple)."""
    elements = []
    for i, row in enumerate(rows, start=1):
        fields = {"cls": "android.widget.TextView", "role": "text", "package": package,
                  **row}
        fields["bounds"] = Bounds(*fields["bounds"])
        elements.append(UIElement(id=i, **fields))
    return Observation(Image.new("RGB", size), tuple(elements), package=package)
