"""The uiautomator2 server double: HTTP transport, JSON-RPC shapes and selector matching.

The server runs against a small fake phone (same attribute names as VirtualPhone) and is
spoken to with http.client, and through uiautomator2's own client functions, as on a device.
"""

from __future__ import annotations

import base64
import http.client
import io
import json
import socket
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image
from uiautomator2 import core as u2core
from uiautomator2._selector import Selector
from uiautomator2.exceptions import RPCUnknownError, UiObjectNotFoundError

from omg_agent.vphone.u2rpc import U2Methods
from omg_agent.vphone.u2server import U2Server
from omg_agent.vphone.u2touch import TouchTracker

SAMPLE_XML = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout"
        package="com.android.launcher3" content-desc="" checkable="false" checked="false"
        clickable="false" enabled="true" focusable="false" focused="false" scrollable="false"
        long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">
    <node index="0" text="Settings" resource-id="com.android.launcher3:id/icon"
          class="android.widget.TextView" package="com.android.launcher3" content-desc="Settings"
          checkable="false" checked="false" clickable="true" enabled="true" focusable="true"
          focused="false" scrollable="false" long-clickable="true" password="false"
          selected="false" bounds="[100,200][300,400]" />
    <node index="1" text="Shop" resource-id="com.android.launcher3:id/icon"
          class="android.widget.TextView" package="com.android.launcher3" content-desc="Shop app"
          checkable="false" checked="false" clickable="true" enabled="true" focusable="true"
          focused="false" scrollable="false" long-clickable="true" password="false"
          selected="false" bounds="[400,200][600,400]" />
    <node index="2" text="" resource-id="com.android.launcher3:id/row"
          class="android.widget.LinearLayout" package="com.android.launcher3" content-desc=""
          checkable="false" checked="false" clickable="false" enabled="true" focusable="false"
          focused="false" scrollable="true" long-clickable="false" password="false"
          selected="false" bounds="[0,2000][1080,2500]">
      <node index="0" text="Notes" resource-id="" class="android.widget.TextView"
            package="com.android.launcher3" content-desc="" checkable="false" checked="false"
            clickable="true" enabled="true" focusable="true" focused="false" scrollable="false"
            long-clickable="false" password="false" selected="false"
            bounds="[0,2000][200,2200]" />
      <node index="1" text="" resource-id="com.android.launcher3:id/search"
            class="android.widget.EditText" package="com.android.launcher3" content-desc=""
            checkable="false" checked="false" clickable="true" enabled="true"
            focusable="true" focused="true" scrollable="false" long-clickable="false"
            password="false" selected="false" bounds="[200,2300][1000,2500]" />
    </node>
  </node>
</hierarchy>"""


class FakePhone:
    """Records every gesture; serves a fixed (or scripted) hierarchy."""

    def __init__(self) -> None:
        self.profile = SimpleNamespace(
            name="default", width=1080, height=2400, density=440, model="vPhone 1",
            brand="omg", manufacturer="OMG", device="vphone", product="vphone_x86_64",
            sdk=34, release="14", serialno="VPHONE0001", status_bar_height=110,
            nav_bar_height=66)
        self.lock = threading.RLock()
        self.calls: list[tuple[Any, ...]] = []
        self.tcp: dict[int, int] = {}
        self.xmls = [SAMPLE_XML]  # dump_xml() pops until one is left

    def _record(self, *call: Any) -> None:
        with self.lock:
            self.calls.append(call)

    def tap(self, x: int, y: int) -> None:
        self._record("tap", x, y)

    def long_press(self, x: int, y: int, duration_ms: int = 600, *, hold: bool = True) -> None:
        self._record("long_press", x, y, duration_ms)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300, *,
              hold: bool = True) -> None:
        self._record("swipe", x1, y1, x2, y2, duration_ms)

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 600, *,
             hold: bool = True) -> None:
        self._record("drag", x1, y1, x2, y2, duration_ms)

    def key(self, keycode: int) -> None:
        self._record("key", keycode)

    def input_text(self, text: str) -> None:
        self._record("input_text", text)

    def clear_text(self) -> None:
        self._record("clear_text")

    def screenshot(self) -> Image.Image:
        return Image.new("RGBA", (self.profile.width, self.profile.height), (10, 20, 30, 255))

    def dump_xml(self) -> str:
        with self.lock:
            return self.xmls.pop(0) if len(self.xmls) > 1 else self.xmls[0]

    def focus(self) -> tuple[str, str]:
        return ("com.android.launcher3", ".Launcher")

    def command_latency(self, kind: str) -> float:
        return 0.0

    def register_tcp(self, device_port: int, host_port: int) -> None:
        self.tcp[device_port] = host_port

    def unregister_tcp(self, device_port: int) -> None:
        self.tcp.pop(device_port, None)


@pytest.fixture
def phone() -> FakePhone:
    return FakePhone()


@pytest.fixture
def server(phone: FakePhone):
    u2 = U2Server(phone)
    u2.start(9008)
    yield u2
    u2.stop()


class FakeAdbDevice:
    """What uiautomator2's AdbHTTPConnection needs of an AdbDevice: create_connection."""

    def __init__(self, phone: FakePhone) -> None:
        self.phone = phone
        self.serial = "fake"

    def create_connection(self, network: Any, port: int) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.phone.tcp[port]), timeout=10)


def send(phone: FakePhone, method: str, path: str, body: bytes | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", phone.tcp[9008], timeout=10)
    try:
        conn.request(method, path, body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def rpc(phone: FakePhone, method: str, *params: Any) -> dict[str, Any]:
    payload = {"jsonrpc": "2.0", "id": 7, "method": method, "params": list(params)}
    status, body = send(phone, "POST", "/jsonrpc/0", json.dumps(payload).encode())
    assert status == 200
    return json.loads(body)


def result(phone: FakePhone, method: str, *params: Any) -> Any:
    response = rpc(phone, method, *params)
    assert "error" not in response, response
    return response["result"]


def client_call(phone: FakePhone, method: str, *params: Any) -> Any:
    """The uiautomator2 client's own request + error mapping code path."""
    return u2core._jsonrpc_call(FakeAdbDevice(phone), 9008, method, list(params), 10, False)


# -- transport -----------------------------------------------------------------------------


def test_ping_answers_pong_and_keeps_the_connection_alive(server, phone):
    conn = http.client.HTTPConnection("127.0.0.1", phone.tcp[9008], timeout=10)
    try:
        for _ in range(3):
            conn.request("GET", "/ping")
            response = conn.getresponse()
            assert response.status == 200
            assert response.getheader("Content-Length") == "4"
            assert response.read() == b"pong"
        payload = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "getDisplayRotation"})
        conn.request("POST", "/jsonrpc/0", payload, {"Content-Type": "application/json"})
        assert json.loads(conn.getresponse().read())["result"] == 0
    finally:
        conn.close()


def test_client_sees_server_alive_through_its_ping_check(server, phone):
    response = u2core._http_request(FakeAdbDevice(phone), 9008, "GET", "/ping")
    assert response.content == b"pong"


def test_info_describes_the_device(server, phone):
    status, body = send(phone, "GET", "/info")
    info = json.loads(body)
    assert status == 200
    assert info["serial"] == "VPHONE0001"
    assert info["sdkInt"] == 34
    assert info["display"] == {"width": 1080, "height": 2400, "density": 440}


def test_unknown_path_is_404(server, phone):
    assert send(phone, "GET", "/nope")[0] == 404
    assert send(phone, "POST", "/jsonrpc/1", b"{}")[0] == 404


def test_stop_unregisters_and_closes_idle_keepalive_connections(phone):
    u2 = U2Server(phone)
    host_port = u2.start(9008)
    assert phone.tcp == {9008: host_port}
    conn = http.client.HTTPConnection("127.0.0.1", host_port, timeout=10)
    conn.request("GET", "/ping")
    assert conn.getresponse().read() == b"pong"
    u2.stop()  # must not wait for the idle keep-alive client
    conn.close()
    assert phone.tcp == {}
    assert not u2.running
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", host_port), timeout=2).close()
    u2.stop()  # idempotent


def test_server_can_restart_after_stop(phone):
    u2 = U2Server(phone)
    u2.start(9008)
    u2.stop()
    with u2:
        u2.start(9008)
        assert send(phone, "GET", "/ping") == (200, b"pong")


def test_starting_twice_is_refused(server):
    with pytest.raises(RuntimeError):
        server.start(9008)


# -- JSON-RPC shapes -----------------------------------------------------------------------


def test_unknown_method_is_a_jsonrpc_method_not_found_error(server, phone):
    response = rpc(phone, "noSuchMethod")
    assert response["jsonrpc"] == "2.0"
    assert response["id"] == 7
    assert response["error"]["code"] == -32601
    assert "noSuchMethod" in response["error"]["message"]


def test_wrong_arguments_are_invalid_params(server, phone):
    assert rpc(phone, "pressKeyCode")["error"]["code"] == -32602


def test_unparsable_body_is_a_parse_error(server, phone):
    status, body = send(phone, "POST", "/jsonrpc/0", b"{not json")
    assert status == 200
    assert json.loads(body)["error"]["code"] == -32700


def test_keyword_params_are_accepted(server, phone):
    payload = {"jsonrpc": "2.0", "id": 1, "method": "deviceInfo", "params": {}}
    _, body = send(phone, "POST", "/jsonrpc/0", json.dumps(payload).encode())
    assert json.loads(body)["result"]["displayWidth"] == 1080


def test_void_methods_still_carry_a_result_field(server, phone):
    assert rpc(phone, "clearInputText") == {"jsonrpc": "2.0", "id": 7, "result": None}


def test_device_info_has_the_fields_the_client_reads(server, phone):
    info = result(phone, "deviceInfo")
    assert info == {
        "currentPackageName": "com.android.launcher3", "displayHeight": 2400,
        "displayRotation": 0, "displaySizeDpX": 393, "displaySizeDpY": 873,
        "displayWidth": 1080, "naturalOrientation": True, "productName": "vphone_x86_64",
        "screenOn": True, "sdkInt": 34,
    }


def test_dump_window_hierarchy_returns_the_phone_xml(server, phone):
    assert result(phone, "dumpWindowHierarchy", False, 50) == SAMPLE_XML


def test_dump_window_hierarchy_prunes_past_max_depth(server, phone):
    xml = result(phone, "dumpWindowHierarchy", False, 1)
    assert "<hierarchy" in xml
    assert "Settings" not in xml  # depth 2 nodes dropped


def test_take_screenshot_is_a_base64_jpeg_of_the_screen(server, phone):
    image = Image.open(io.BytesIO(base64.b64decode(result(phone, "takeScreenshot", 1, 80))))
    assert image.format == "JPEG"
    assert image.size == (1080, 2400)
    small = Image.open(io.BytesIO(base64.b64decode(result(phone, "takeScreenshot", 0.5, 80))))
    assert small.size == (540, 1200)


# -- gestures and keys ---------------------------------------------------------------------


def test_click_taps_and_click_with_duration_long_presses(server, phone):
    assert result(phone, "click", 540.7, 1200) is True
    result(phone, "click", 10, 20, 800)
    assert phone.calls == [("tap", 540, 1200), ("long_press", 10, 20, 800)]


def test_swipe_and_drag_turn_steps_into_milliseconds(server, phone):
    result(phone, "swipe", 1, 2, 3, 4, 55)
    result(phone, "drag", 5, 6, 7, 8, 100)
    result(phone, "swipePoints", [0, 0, 100, 0, 100, 100], 40)
    assert phone.calls == [("swipe", 1, 2, 3, 4, 275), ("drag", 5, 6, 7, 8, 500),
                           ("swipe", 0, 0, 100, 0, 100), ("swipe", 100, 0, 100, 100, 100)]


def test_press_key_by_name_and_by_code(server, phone):
    assert result(phone, "pressKey", "home") is True
    assert result(phone, "pressKey", "BACK") is True
    assert result(phone, "pressKey", "recent") is True
    assert result(phone, "pressKey", "no-such-key") is False
    assert result(phone, "pressKeyCode", 66) is True
    assert result(phone, "pressKeyCode", 67, 1) is True
    assert phone.calls == [("key", 3), ("key", 4), ("key", 187), ("key", 66), ("key", 67)]


def test_touch_down_up_in_place_is_a_tap(server, phone):
    result(phone, "injectInputEvent", 0, 100, 200, 0)
    result(phone, "injectInputEvent", 1, 101, 201, 0)
    assert phone.calls == [("tap", 100, 200)]


def test_touch_down_move_up_is_a_swipe(server, phone):
    for action, x, y in [(0, 100, 1000), (2, 100, 800), (2, 100, 500), (1, 100, 400)]:
        assert result(phone, "injectInputEvent", action, x, y, 0) is True
    assert phone.calls[0][:5] == ("swipe", 100, 1000, 100, 400)


def test_touch_up_without_down_is_refused(server, phone):
    assert result(phone, "injectInputEvent", 1, 5, 5, 0) is False
    assert phone.calls == []


def test_held_touch_becomes_long_press_or_drag():
    phone = FakePhone()
    now = [0.0]
    touch = TouchTracker(phone, clock=lambda: now[0])
    touch.feed(0, 50, 60)
    now[0] = 0.8
    touch.feed(1, 52, 61)
    touch.feed(0, 50, 60)
    now[0] = 1.6
    touch.feed(2, 400, 60)
    now[0] = 2.0
    touch.feed(1, 500, 60)
    assert phone.calls == [("long_press", 50, 60, 800), ("drag", 50, 60, 500, 60, 1200)]


# -- text input ----------------------------------------------------------------------------


def test_send_keys_path_clipboard_then_paste_types_into_focused_field(server, phone):
    result(phone, "setClipboard", None, "héllo 世界")
    assert result(phone, "getClipboard") == "héllo 世界"
    result(phone, "pasteClipboard")
    result(phone, "clearInputText")
    assert phone.calls == [("input_text", "héllo 世界"), ("clear_text",)]


def test_set_text_focuses_clears_and_types(server, phone):
    assert result(phone, "setText", Selector(text="Notes"), "abc") is True
    assert phone.calls == [("tap", 100, 2100), ("clear_text",), ("input_text", "abc")]


def test_set_text_on_focused_field_does_not_tap_it(server, phone):
    selector = Selector(resourceId="com.android.launcher3:id/search")
    result(phone, "clearTextField", selector)
    assert phone.calls == [("clear_text",)]


# -- selectors -----------------------------------------------------------------------------


@pytest.mark.parametrize(("fields", "texts"), [
    ({"text": "Settings"}, ["Settings"]),
    ({"textContains": "ett"}, ["Settings"]),
    ({"textMatches": "S.*"}, ["Settings", "Shop"]),
    ({"textMatches": "hop"}, []),  # whole-value match, like Java's matches()
    ({"textStartsWith": "No"}, ["Notes"]),
    ({"className": "android.widget.TextView"}, ["Settings", "Shop", "Notes"]),
    ({"classNameMatches": r".*\.EditText"}, [""]),
    ({"description": "Shop app"}, ["Shop"]),
    ({"descriptionContains": "app"}, ["Shop"]),
    ({"descriptionStartsWith": "Sett"}, ["Settings"]),
    ({"resourceId": "com.android.launcher3:id/icon"}, ["Settings", "Shop"]),
    ({"resourceIdMatches": ".*:id/ic.*"}, ["Settings", "Shop"]),
    ({"packageName": "com.android.launcher3", "clickable": True},
     ["Settings", "Shop", "Notes", ""]),
    ({"scrollable": True}, [""]),
    ({"focused": True}, [""]),
    ({"longClickable": True}, ["Settings", "Shop"]),
    ({"className": "android.widget.TextView", "index": 1}, ["Shop"]),
    ({"className": "android.widget.TextView", "instance": 2}, ["Notes"]),
    ({"className": "android.widget.TextView", "instance": 5}, []),
    ({"text": "Nope"}, []),
])
def test_selector_fields_match_like_uiselector(server, phone, fields, texts):
    selector = Selector(**fields)
    assert result(phone, "count", selector) == len(texts)
    assert [i["text"] for i in result(phone, "objInfoOfAllInstances", selector)] == texts
    assert result(phone, "exist", selector) is bool(texts)


def test_child_and_sibling_selectors(server, phone):
    child = Selector(scrollable=True).child(className="android.widget.TextView")
    assert [i["text"] for i in result(phone, "objInfoOfAllInstances", child)] == ["Notes"]
    sibling = Selector(text="Notes").sibling(className="android.widget.EditText")
    assert result(phone, "count", sibling) == 1


def test_obj_info_has_bounds_and_flags(server, phone):
    info = result(phone, "objInfo", Selector(text="Settings"))
    assert info["bounds"] == {"left": 100, "top": 200, "right": 300, "bottom": 400}
    assert info["visibleBounds"] == info["bounds"]
    assert info["className"] == "android.widget.TextView"
    assert info["resourceName"] == "com.android.launcher3:id/icon"
    assert info["contentDescription"] == "Settings"
    assert info["clickable"] is True and info["checked"] is False
    assert info["childCount"] == 0
    row = result(phone, "objInfo", Selector(scrollable=True))
    assert row["visibleBounds"]["bottom"] == 2400  # clipped to the screen
    assert row["childCount"] == 2


def test_get_text_and_selector_click(server, phone):
    assert result(phone, "getText", Selector(description="Shop app")) == "Shop"
    assert result(phone, "click", Selector(text="Settings")) is True
    result(phone, "longClick", Selector(text="Shop"))
    assert phone.calls == [("tap", 200, 300), ("long_press", 500, 300, 600)]


def test_missing_object_error_is_shaped_for_the_client(server, phone):
    response = rpc(phone, "objInfo", Selector(text="Nope"))
    assert response["error"]["code"] == -32002
    assert "uiautomator.UiObjectNotFoundException" in response["error"]["message"]
    assert "TEXT=Nope" in response["error"]["message"]
    with pytest.raises(UiObjectNotFoundError):
        client_call(phone, "getText", Selector(text="Nope"))


def test_bad_regex_is_reported_not_crashing(server, phone):
    with pytest.raises(RPCUnknownError, match="-32602"):
        client_call(phone, "count", Selector(textMatches="("))


def test_wait_for_exists_polls_until_the_object_shows_up(server, phone):
    phone.xmls = ["<hierarchy rotation=\"0\" />"] * 2 + [SAMPLE_XML]
    assert client_call(phone, "waitForExists", Selector(text="Settings"), 5000) is True
    assert result(phone, "waitForExists", Selector(text="Nope"), 300) is False
    assert result(phone, "waitUntilGone", Selector(text="Nope"), 300) is True


def test_scroll_forward_swipes_up_inside_the_element(server, phone):
    phone.xmls = [SAMPLE_XML, SAMPLE_XML, SAMPLE_XML.replace("Notes", "Notes 2")]
    assert result(phone, "scrollForward", Selector(scrollable=True), True, 20) is True
    assert phone.calls == [("swipe", 540, 2360, 540, 2040, 100)]
    assert result(phone, "scrollForward", Selector(scrollable=True), True, 20) is False


def test_stop_interrupts_a_long_wait(phone):
    u2 = U2Server(phone)
    u2.start(9008)
    outcome: list[Any] = []

    def wait_long() -> None:
        try:
            outcome.append(rpc(phone, "waitForExists", Selector(text="X"), 60000))
        except (OSError, http.client.HTTPException) as exc:  # cut mid-reply is fine too
            outcome.append(exc)

    waiter = threading.Thread(target=wait_long)
    waiter.start()
    deadline = time.monotonic() + 5
    while not u2._httpd._open and time.monotonic() < deadline:  # wait for the request
        time.sleep(0.01)
    started = time.monotonic()
    u2.stop()
    waiter.join(10)
    assert not waiter.is_alive()
    assert outcome
    assert time.monotonic() - started < 5


def test_methods_table_names_are_callable():
    methods = U2Methods(FakePhone(), threading.Event())
    table = methods.table()
    assert {"deviceInfo", "objInfo", "injectInputEvent", "takeScreenshot"} <= set(table)
    assert all(callable(fn) for fn in table.values())
