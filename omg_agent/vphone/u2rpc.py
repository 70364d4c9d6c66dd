"""The JSON-RPC methods of the uiautomator2 server double, implemented on a VirtualPhone.

``U2Methods.table()`` maps the method names the uiautomator2 3.x client calls
(``deviceInfo``, ``dumpWindowHierarchy``, ``click``, ``objInfo``, ...) to Python callables;
``u2server.py`` carries them over HTTP. Arguments arrive positionally, as the client sends them
(selectors are the client's mask-based dicts, see ``u2select.py``). Failures are raised as
:class:`RpcFault`, which the transport turns into a JSON-RPC error object shaped like the
real server's.

Timing: every call pays the phone's ``shell`` latency (one adb round trip); screenshots also pay
``screencap_raw`` (the real server grabs a bitmap, no PNG encode) and hierarchy dumps ``dump``.
All are 0 unless the phone runs with latencies on.
"""

from __future__ import annotations

import base64
import io
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from omg_agent.vphone import u2select
from omg_agent.vphone.u2select import SelectorError, UiNode
from omg_agent.vphone.u2touch import TouchTracker

logger = logging.getLogger(__name__)

OBJECT_NOT_FOUND = -32002
INVALID_PARAMS = -32602

# uiautomator's UiDevice.pressKey* names -> Android keycodes
KEY_NAMES: dict[str, int] = {
    "home": 3, "back": 4, "left": 21, "right": 22, "up": 19, "down": 20, "center": 23,
    "menu": 82, "search": 84, "enter": 66, "delete": 67, "del": 67, "recent": 187,
    "volume_up": 24, "volume_down": 25, "volume_mute": 164, "camera": 27, "power": 26,
}
POLL_S = 0.2
SCROLL_MARGIN = 0.1  # fraction of the element kept clear at each end of a scroll swipe


class RpcFault(Exception):
    """A JSON-RPC error to send back: ``code`` and ``message`` as the real server words them."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def object_not_found(selector: dict[str, Any]) -> RpcFault:
    text = u2select.describe(selector)
    return RpcFault(OBJECT_NOT_FOUND,
                    f"androidx.test.uiautomator.UiObjectNotFoundException: {text}", text)


class U2Methods:
    """Method table state: the phone, a clipboard, a touch tracker and a stop signal."""

    def __init__(self, phone: Any, stopping: threading.Event,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._phone = phone
        self._stopping = stopping
        self._clock = clock
        self._clipboard: str | None = None
        self._touch = TouchTracker(phone, clock)

    def table(self) -> dict[str, Callable[..., Any]]:
        names = [
            "deviceInfo", "dumpWindowHierarchy", "takeScreenshot", "click", "longClick",
            "swipe", "swipePoints", "drag", "dragTo", "pressKey", "pressKeyCode",
            "injectInputEvent", "setClipboard", "getClipboard", "pasteClipboard",
            "clearInputText", "exist", "waitForExists", "waitUntilGone", "objInfo",
            "objInfoOfAllInstances", "count", "getText", "setText", "clearTextField",
            "scrollForward", "scrollBackward", "scrollToBeginning", "scrollToEnd", "scrollTo",
            "flingForward", "flingBackward", "flingToBeginning", "flingToEnd",
            "getLastToast", "clearLastToast", "makeToast", "getLastTraversedText",
            "clearLastTraversedText", "waitForIdle", "waitForWindowUpdate", "setOrientation",
            "freezeRotation", "getDisplayRotation", "wakeUp", "sleep", "openNotification",
            "openQuickSettings",
        ]
        return {name: getattr(self, name) for name in names}

    # -- helpers -------------------------------------------------------------------------

    def pay_latency(self, kind: str) -> None:
        delay = self._phone.command_latency(kind)
        if delay > 0:
            self._stopping.wait(delay)

    def _nodes(self) -> list[UiNode]:
        return u2select.parse_nodes(self._phone.dump_xml())

    def _find_all(self, selector: Any) -> list[UiNode]:
        if not isinstance(selector, dict):
            raise RpcFault(INVALID_PARAMS, f"selector must be an object, got {selector!r}")
        try:
            return u2select.find_all(self._nodes(), selector)
        except SelectorError as exc:
            raise RpcFault(INVALID_PARAMS, f"java.lang.IllegalArgumentException: {exc}") from exc

    def _find(self, selector: Any) -> UiNode:
        found = self._find_all(selector)
        if not found:
            raise object_not_found(selector)
        return found[0]

    def _size(self) -> tuple[int, int]:
        return self._phone.profile.width, self._phone.profile.height

    def _visible_center(self, node: UiNode) -> tuple[int, int]:
        left, top, right, bottom = u2select.visible_bounds(node.bounds, *self._size())
        return (left + right) // 2, (top + bottom) // 2

    def _poll(self, condition: Callable[[], bool], timeout_ms: Any) -> bool:
        deadline = self._clock() + max(0.0, float(timeout_ms) / 1000.0)
        while True:
            if condition():
                return True
            left = deadline - self._clock()
            if left <= 0 or self._stopping.wait(min(POLL_S, left)):
                return False

    # -- device ----------------------------------------------------------------------------

    def deviceInfo(self) -> dict[str, Any]:
        profile = self._phone.profile
        package, _activity = self._phone.focus()
        return {
            "currentPackageName": package,
            "displayHeight": profile.height,
            "displayRotation": 0,
            "displaySizeDpX": round(profile.width * 160 / profile.density),
            "displaySizeDpY": round(profile.height * 160 / profile.density),
            "displayWidth": profile.width,
            "naturalOrientation": True,
            "productName": profile.product,
            "screenOn": True,
            "sdkInt": profile.sdk,
        }

    def dumpWindowHierarchy(self, compressed: bool = False, max_depth: int = 50,
                            root_in_active: bool | None = None) -> str:
        self.pay_latency("u2_dump")
        return u2select.prune_depth(self._phone.dump_xml(), int(max_depth))

    def takeScreenshot(self, scale: float = 1.0, quality: int = 100) -> str:
        self.pay_latency("u2_screenshot")
        image = self._phone.screenshot().convert("RGB")
        scale = float(scale)
        if 0 < scale != 1.0:
            size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
            image = image.resize(size)
        buffer = io.BytesIO()
        image.save(buffer, format="JPEG", quality=max(1, min(100, int(quality))))
        return base64.b64encode(buffer.getvalue()).decode("ascii")

    def getDisplayRotation(self) -> int:
        return 0

    def setOrientation(self, orientation: str) -> None:
        # The vphone has a fixed natural orientation; rotation requests are accepted and ignored.
        logger.debug("setOrientation(%r) ignored", orientation)

    def freezeRotation(self, freeze: bool = True) -> None:
        logger.debug("freezeRotation(%r) ignored", freeze)

    def wakeUp(self) -> None:
        self._phone.key(224)  # KEYCODE_WAKEUP

    def sleep(self) -> None:
        self._phone.key(223)  # KEYCODE_SLEEP

    def waitForIdle(self, timeout: int = 0) -> bool:
        return True

    def waitForWindowUpdate(self, package: str | None = None, timeout: int = 0) -> bool:
        return True

    def getLastToast(self) -> None:
        return None

    def clearLastToast(self) -> bool:
        return True

    def makeToast(self, text: str, duration_ms: float = 1000) -> bool:
        logger.debug("makeToast(%r) not rendered by the vphone", text)
        return True

    def getLastTraversedText(self) -> None:
        return None

    def clearLastTraversedText(self) -> None:
        return None

    def openNotification(self) -> bool:
        width, height = self._size()
        self._phone.swipe(width // 2, 1, width // 2, height * 2 // 3, 300)
        return True

    def openQuickSettings(self) -> bool:
        self.openNotification()
        return self.openNotification()

    # -- gestures ------------------------------------------------------------------------

    def click(self, *args: Any) -> bool:
        if args and isinstance(args[0], dict):  # click(selector): the UiObject.click() RPC
            self._phone.tap(*self._visible_center(self._find(args[0])))
            return True
        if len(args) not in (2, 3):
            raise RpcFault(INVALID_PARAMS, "click expects (x, y[, duration_ms]) or (selector)")
        x, y = int(args[0]), int(args[1])
        if len(args) == 3 and int(args[2]) > 0:
            self._phone.long_press(x, y, int(args[2]))
        else:
            self._phone.tap(x, y)
        return True

    def longClick(self, selector: dict[str, Any]) -> bool:
        x, y = self._visible_center(self._find(selector))
        self._phone.long_press(x, y, 600)
        return True

    def swipe(self, fx: float, fy: float, tx: float, ty: float, steps: int = 55) -> bool:
        # uiautomator throttles each step to ~5 ms.
        self._phone.swipe(int(fx), int(fy), int(tx), int(ty), max(1, int(steps) * 5))
        return True

    def swipePoints(self, points: list[int], steps: int = 100) -> bool:
        coords = [(int(points[i]), int(points[i + 1])) for i in range(0, len(points) - 1, 2)]
        if len(coords) < 2:
            raise RpcFault(INVALID_PARAMS, "swipePoints needs at least two points")
        per_segment = max(1, int(steps) * 5 // (len(coords) - 1))
        for (x1, y1), (x2, y2) in zip(coords, coords[1:], strict=False):
            self._phone.swipe(x1, y1, x2, y2, per_segment)
        return True

    def drag(self, sx: float, sy: float, ex: float, ey: float, steps: int = 100) -> bool:
        self._phone.drag(int(sx), int(sy), int(ex), int(ey), max(1, int(steps) * 5))
        return True

    def dragTo(self, selector: dict[str, Any], *target: Any) -> bool:
        sx, sy = self._visible_center(self._find(selector))
        if target and isinstance(target[0], dict):
            ex, ey = self._visible_center(self._find(target[0]))
            steps = target[1] if len(target) > 1 else 100
        elif len(target) >= 2:
            ex, ey = int(target[0]), int(target[1])
            steps = target[2] if len(target) > 2 else 100
        else:
            raise RpcFault(INVALID_PARAMS, "dragTo expects (selector, x, y, steps)")
        self._phone.drag(sx, sy, ex, ey, max(1, int(steps) * 5))
        return True

    def pressKey(self, name: str) -> bool:
        keycode = KEY_NAMES.get(str(name).lower())
        if keycode is None:
            return False
        self._phone.key(keycode)
        return True

    def pressKeyCode(self, keycode: int, meta: int = 0) -> bool:
        self._phone.key(int(keycode))
        return True

    def injectInputEvent(self, action: int, x: float, y: float, meta_state: int = 0) -> bool:
        return self._touch.feed(int(action), int(x), int(y))

    # -- text --------------------------------------------------------------------------

    def setClipboard(self, label: str | None, text: str) -> None:
        self._clipboard = text

    def getClipboard(self) -> str | None:
        return self._clipboard

    def pasteClipboard(self) -> None:
        if self._clipboard:
            self._phone.input_text(self._clipboard)

    def clearInputText(self) -> None:
        self._phone.clear_text()

    def _focus_field(self, selector: dict[str, Any]) -> None:
        node = self._find(selector)
        if not node.flag("focused"):
            self._phone.tap(*self._visible_center(node))

    def setText(self, selector: dict[str, Any], text: str) -> bool:
        self._focus_field(selector)
        self._phone.clear_text()
        if text:
            self._phone.input_text(str(text))
        return True

    def clearTextField(self, selector: dict[str, Any]) -> None:
        self._focus_field(selector)
        self._phone.clear_text()

    # -- selectors ---------------------------------------------------------------------

    def exist(self, selector: dict[str, Any]) -> bool:
        return bool(self._find_all(selector))

    def waitForExists(self, selector: dict[str, Any], timeout_ms: int = 0) -> bool:
        return self._poll(lambda: bool(self._find_all(selector)), timeout_ms)

    def waitUntilGone(self, selector: dict[str, Any], timeout_ms: int = 0) -> bool:
        return self._poll(lambda: not self._find_all(selector), timeout_ms)

    def objInfo(self, selector: dict[str, Any]) -> dict[str, Any]:
        return u2select.object_info(self._find(selector), *self._size())

    def objInfoOfAllInstances(self, selector: dict[str, Any]) -> list[dict[str, Any]]:
        return [u2select.object_info(n, *self._size()) for n in self._find_all(selector)]

    def count(self, selector: dict[str, Any]) -> int:
        return len(self._find_all(selector))

    def getText(self, selector: dict[str, Any]) -> str:
        return self._find(selector).get("text")

    # -- scrolling (UiScrollable on the vphone: swipes inside the element's bounds) --------

    def _scroll_once(self, selector: dict[str, Any], vertical: bool, forward: bool,
                     steps: int) -> bool:
        """One swipe inside the element; True when the screen changed (more to scroll)."""
        left, top, right, bottom = u2select.visible_bounds(self._find(selector).bounds,
                                                           *self._size())
        cx, cy = (left + right) // 2, (top + bottom) // 2
        if vertical:
            near, far = (top + int((bottom - top) * SCROLL_MARGIN),
                         bottom - int((bottom - top) * SCROLL_MARGIN))
            start, end = ((cx, far), (cx, near)) if forward else ((cx, near), (cx, far))
        else:
            near, far = (left + int((right - left) * SCROLL_MARGIN),
                         right - int((right - left) * SCROLL_MARGIN))
            start, end = ((far, cy), (near, cy)) if forward else ((near, cy), (far, cy))
        before = self._phone.dump_xml()
        self._phone.swipe(*start, *end, max(1, int(steps) * 5))
        return self._phone.dump_xml() != before

    def scrollForward(self, selector: dict[str, Any], vertical: bool = True,
                      steps: int = 55) -> bool:
        return self._scroll_once(selector, vertical, True, steps)

    def scrollBackward(self, selector: dict[str, Any], vertical: bool = True,
                       steps: int = 55) -> bool:
        return self._scroll_once(selector, vertical, False, steps)

    def _scroll_until_stuck(self, selector: dict[str, Any], vertical: bool, forward: bool,
                            max_swipes: int, steps: int) -> bool:
        for _ in range(int(max_swipes)):
            if self._stopping.is_set() or not self._scroll_once(selector, vertical, forward,
                                                                steps):
                break
        return True

    def scrollToBeginning(self, selector: dict[str, Any], vertical: bool = True,
                          max_swipes: int = 500, steps: int = 55) -> bool:
        return self._scroll_until_stuck(selector, vertical, False, max_swipes, steps)

    def scrollToEnd(self, selector: dict[str, Any], vertical: bool = True,
                    max_swipes: int = 500, steps: int = 55) -> bool:
        return self._scroll_until_stuck(selector, vertical, True, max_swipes, steps)

    def scrollTo(self, selector: dict[str, Any], target: dict[str, Any],
                 vertical: bool = True) -> bool:
        for _ in range(30):  # UiScrollable's default max search swipes
            if self._find_all(target):
                return True
            if self._stopping.is_set() or not self._scroll_once(selector, vertical, True, 55):
                break
        return bool(self._find_all(target))

    def flingForward(self, selector: dict[str, Any], vertical: bool = True) -> bool:
        return self._scroll_once(selector, vertical, True, 5)

    def flingBackward(self, selector: dict[str, Any], vertical: bool = True) -> bool:
        return self._scroll_once(selector, vertical, False, 5)

    def flingToBeginning(self, selector: dict[str, Any], vertical: bool = True,
                         max_swipes: int = 500) -> bool:
        return self._scroll_until_stuck(selector, vertical, False, max_swipes, 5)

    def flingToEnd(self, selector: dict[str, Any], vertical: bool = True,
                   max_swipes: int = 500) -> bool:
        return self._scroll_until_stuck(selector, vertical, True, max_swipes, 5)
