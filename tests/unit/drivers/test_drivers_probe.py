"""Probe parsing: wm size/density, getprop, and bar heights from each kind of evidence
(dumpsys window insets on Android 11–14, window frames on older releases, the hierarchy)."""

from __future__ import annotations

import pytest

from omg_agent.drivers.probe import (
    bars_from_dumpsys,
    bars_from_hierarchy,
    parse_getprop,
    parse_wm_density,
    parse_wm_size,
)
from omg_agent.vphone.phone import VirtualPhone

ANDROID_13_DISPLAYS = """\
WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)
  Display: mDisplayId=0 rootTasks=3
    init=1080x2400 440dpi cur=1080x2400 app=1080x2274
  WindowInsetsStateController
    InsetsState
      mDisplayFrame=Rect(0, 0 - 1080, 2400)
        InsetsSource type=ITYPE_STATUS_BAR frame=[0,0][1080,118] visible=true
        InsetsSource type=ITYPE_NAVIGATION_BAR frame=[0,2274][1080,2400] visible=true
        InsetsSource type=ITYPE_IME frame=[0,0][0,0] visible=false
"""
ANDROID_14_DISPLAYS = """\
  WindowInsetsStateController
    InsetsState
        InsetsSource id=3e570000 type=statusBars frame=[0,0][1080,136] visible=true flags=
        InsetsSource id=3e570005 type=mandatorySystemGestures frame=[0,0][1080,170] visible=true
        InsetsSource id=3e570001 type=navigationBars frame=[0,2337][1080,2400] visible=true
"""
ANDROID_11_PROVIDER = """\
    InsetsSourceProvider
      mSource=InsetsSource: {mType=ITYPE_STATUS_BAR, mFrame=[0,0][1080,80], mVisible=true}
"""
GESTURE_HIDDEN_NAV = """\
        InsetsSource type=ITYPE_STATUS_BAR frame=[0,0][1080,84] visible=true
        InsetsSource type=ITYPE_NAVIGATION_BAR frame=[0,0][0,0] visible=false
"""
ANDROID_10_WINDOWS = """\
WINDOW MANAGER WINDOWS (dumpsys window windows)
  Window #0 Window{aa11 u0 NavigationBar}:
    mAttrs={(0,0)(fillxfill) ty=NAVIGATION_BAR fmt=TRANSLUCENT}
    mFrame=[0,2208][1080,2340] last=[0,2208][1080,2340]
  Window #1 Window{bb22 u0 StatusBar}:
    mAttrs={(0,0)(fillx63) gr=TOP ty=STATUS_BAR fmt=TRANSLUCENT}
    mFrame=[0,0][1080,63] last=[0,0][1080,63]
  Window #2 Window{cc33 u0 StatusBarPanel}:
    mAttrs={(0,0)(fillxfill) ty=STATUS_BAR_PANEL fmt=TRANSLUCENT}
    mFrame=[0,0][1080,2340] last=[0,0][1080,2340]
"""


def test_getprop_lines_become_a_dict() -> None:
    props = parse_getprop("[ro.product.model]: [Pixel 7]\n[ro.product.brand]: [google]\n")
    assert props == {"ro.product.model": "Pixel 7", "ro.product.brand": "google"}


def test_wm_size_and_density_prefer_the_override() -> None:
    assert parse_wm_size("Physical size: 1080x2400\n") == (1080, 2400)
    assert parse_wm_size("Physical size: 1080x2400\nOverride size: 720x1600\n") == (720, 1600)
    assert parse_wm_density("Physical density: 440\nOverride density: 320\n") == 320
    with pytest.raises(ValueError, match="no size"):
        parse_wm_size("wm: command not found")


@pytest.mark.parametrize(("dump", "height", "expected"), [
    (ANDROID_13_DISPLAYS, 2400, (118, 126, "insets")),
    (ANDROID_14_DISPLAYS, 2400, (136, 63, "insets")),
    (ANDROID_11_PROVIDER, 2400, (80, None, "insets")),
    (GESTURE_HIDDEN_NAV, 2400, (84, None, "insets")),
    (ANDROID_10_WINDOWS, 2340, (63, 132, "windows")),
    ("WINDOW MANAGER WINDOWS\n  mCurrentFocus=Window{1 u0 a/b}\n", 2400, (None, None,
                                                                            "windows")),
])
def test_bars_come_from_dumpsys_window(dump: str, height: int, expected: tuple) -> None:
    assert bars_from_dumpsys(dump, 1080, height) == expected


@pytest.mark.parametrize("profile", ["default", "compact", "tablet", "legacy"])
def test_bars_come_from_the_content_frame_of_the_hierarchy(profile: str) -> None:
    phone = VirtualPhone(profile)
    try:
        p = phone.profile
        xml = phone.dump_xml() + "\nUI hierchary dumped to: /dev/tty\n"
        assert bars_from_hierarchy(xml, p.width, p.height) == (p.status_bar_height,
                                                               p.nav_bar_height)
    finally:
        phone.close()


def test_a_hierarchy_without_a_content_frame_gives_nothing() -> None:
    edge_to_edge = ('<hierarchy rotation="0"><node bounds="[0,0][1080,2400]" />'
                    '<node bounds="[40,600][1040,700]" /></hierarchy>')
    assert bars_from_hierarchy(edge_to_edge, 1080, 2400) == (None, None)
    assert bars_from_hierarchy("ERROR: could not get idle state.", 1080, 2400) == (None, None)
