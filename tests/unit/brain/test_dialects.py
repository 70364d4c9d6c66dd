"""Dialect conformance (issue 18): replies written exactly as each model's public prompt and
parser document them parse to the right typed action; coordinates convert exactly on three
screen sizes, resize rules included; a malformed reply is retried with feedback in the
model's own format.

Sources of the formats (read, not copied):
- AutoGLM-Phone: zai-org/Open-AutoGLM ``phone_agent/config/prompts_zh.py`` and
  ``prompts_en.py`` (action list, 0–999 coordinates), ``phone_agent/actions/handler.py``
  (``parse_action``; points scaled ``x / 1000 * width``).
- UI-TARS-1.5: bytedance/UI-TARS ``codes/ui_tars/prompt.py`` (``MOBILE_USE_DOUBAO``),
  ``codes/ui_tars/action_parser.py`` (``smart_resize``: factor 28, 100·28·28 to
  16384·28·28 pixels; points divided by the resized width/height).
- Qwen2.5-VL ``mobile_use``: QwenLM/Qwen2.5-VL ``cookbooks/utils/agent_function_call.py``
  (class ``MobileUse``: actions, ``coordinate``/``coordinate2``, "The screen's resolution
  is WxH"); processor defaults min 3,136 / max 12,845,056 pixels.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from PIL import Image

try:  # the openai SDK's HTTP library: httpx2 in openai 3, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

from omg_agent.brain.budget import StepBudget
from omg_agent.brain.dialects import (
    DIALECTS,
    DialectTurn,
    adapt_settings,
    detect,
    dialect_for,
    judgeless,
    smart_resize,
)
from omg_agent.brain.dialects.autoglm import AutoGLM
from omg_agent.brain.dialects.qwen_mobile import QwenMobile
from omg_agent.brain.dialects.uitars import UITars
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.structured import InvalidReply
from omg_agent.config import Settings
from omg_agent.core.actions import (
    AskUser,
    Back,
    DoubleTap,
    Home,
    Key,
    Launch,
    LongPress,
    MemSave,
    PointTarget,
    Swipe,
    Tap,
    TypeText,
    Wait,
)
from omg_agent.core.contracts import DecisionBundle
from omg_agent.core.geometry import ScreenGeometry
from omg_agent.core.observation import Observation
from omg_agent.errors import ConfigError, LLMReplyError

SIZES = [(1080, 2400), (720, 1600), (1600, 2560)]


def only(bundle: DecisionBundle) -> Any:
    assert bundle.execute_now is not None and len(bundle.actions) == 1
    return bundle.actions[0]


def pixel(target: Any, size: tuple[int, int]) -> tuple[int, int]:
    assert isinstance(target, PointTarget)
    return tuple(ScreenGeometry.of_screen(size).to_pixels((target.x, target.y)))  # type: ignore[return-value]


# -- AutoGLM -------------------------------------------------------------------------------
AUTOGLM = [  # (reply as the prompts document it, expected action type, check)
    ('<think>先打开设置</think>\n<answer>do(action="Launch", app="设置")</answer>', Launch,
     lambda a: a.app == "设置"),
    ('<think>tap Wi-Fi</think><answer>do(action="Tap", element=[500,300])</answer>', Tap,
     lambda a: (a.target.x, a.target.y) == (500, 300)),
    ('<think>pay</think><answer>do(action="Tap", element=[120,880], message="重要操作")'
     '</answer>', Tap, lambda a: pixel(a.target, (1080, 2400)) == (129, 2112)),
    ('<think>t</think><answer>do(action="Type", text="Hello World")</answer>', TypeText,
     lambda a: a.text == "Hello World" and a.clear),
    ('<think>t</think><answer>do(action="Type_Name", text="张三")</answer>', TypeText,
     lambda a: a.text == "张三"),
    ('<think>s</think><answer>do(action="Swipe", start=[500,800], end=[500,200])</answer>',
     Swipe, lambda a: (a.from_.y, a.to.y) == (800, 200)),
    ('<think>l</think><answer>do(action="Long Press", element=[300,400])</answer>', LongPress,
     lambda a: a.target.x == 300),
    ('<think>d</think><answer>do(action="Double Tap", element=[300,400])</answer>', DoubleTap,
     lambda a: a.target.y == 400),
    ('<think>b</think><answer>do(action="Back")</answer>', Back, lambda a: True),
    ('<think>h</think><answer>do(action="Home")</answer>', Home, lambda a: True),
    ('<think>w</think><answer>do(action="Wait", duration="3 seconds")</answer>', Wait,
     lambda a: a.seconds == 3),
    ('<think>login</think><answer>do(action="Take_over", message="请登录")</answer>', AskUser,
     lambda a: "请登录" in a.question),
    ('<think>which</think><answer>do(action="Interact")</answer>', AskUser,
     lambda a: "which" in a.question),
    ('<think>note</think><answer>do(action="Note", message="True")</answer>', MemSave,
     lambda a: a.from_screen is not None and a.from_screen.region is not None),
]


@pytest.mark.parametrize(("reply", "kind", "check"), AUTOGLM)
def test_autoglm_actions_parse_to_typed_actions(reply: str, kind: type, check: Any) -> None:
    action = only(AutoGLM().parse_reply(reply, AutoGLM().frame_for((1080, 2400))))
    assert isinstance(action, kind) and check(action)


def test_autoglm_finish_type_with_quotes_and_call_api() -> None:
    d = AutoGLM()
    frame = d.frame_for((1080, 2400))
    done = d.parse_reply('<think>ok</think><answer>finish(message="价格是 ¥7,999")</answer>',
                         frame)
    assert done.goal_complete and done.answer == "价格是 ¥7,999" and done.thought == "ok"
    typed = only(d.parse_reply('<think>t</think><answer>do(action="Type", text="say "hi"")'
                               '</answer>', frame))
    assert typed.text == 'say "hi"'
    with pytest.raises(InvalidReply, match="Call_API"):
        d.parse_reply('<think>x</think><answer>do(action="Call_API", instruction="sum")'
                      '</answer>', frame)


# -- UI-TARS -------------------------------------------------------------------------------
UITARS = [
    ("Thought: open settings\nAction: open_app(app_name='Settings')", Launch,
     lambda a: a.app == "Settings"),
    ("Thought: t\nAction: click(point='<point>546 1204</point>')", Tap, lambda a: True),
    ("Thought: t\nAction: long_press(point='<point>546 1204</point>')", LongPress,
     lambda a: True),
    ("Thought: t\nAction: type(content='MacBook\\n')", TypeText,
     lambda a: a.text == "MacBook" and a.submit),
    ("Thought: t\nAction: type(content='hello')", TypeText,
     lambda a: a.text == "hello" and not a.submit),
    ("Thought: t\nAction: scroll(point='<point>546 1204</point>', direction='down')", Swipe,
     lambda a: a.direction == "up" and a.start is not None),
    ("Thought: t\nAction: drag(start_point='<point>100 200</point>', end_point='<point>100 "
     "900</point>')", Swipe, lambda a: a.from_ is not None and a.to is not None),
    ("Thought: t\nAction: press_home()", Home, lambda a: True),
    ("Thought: t\nAction: press_back()", Back, lambda a: True),
    ("Thought: t\nAction: click(start_box='(546,1204)')", Tap, lambda a: True),
]


@pytest.mark.parametrize(("reply", "kind", "check"), UITARS)
def test_uitars_actions_parse_to_typed_actions(reply: str, kind: type, check: Any) -> None:
    action = only(UITars().parse_reply(reply, UITars().frame_for((1080, 2400))))
    assert isinstance(action, kind) and check(action)


def test_uitars_finished_is_the_goal_claim() -> None:
    done = UITars().parse_reply("Thought: all set\nAction: finished(content='Wi-Fi is off')",
                                UITars().frame_for((1080, 2400)))
    assert done.goal_complete and done.answer == "Wi-Fi is off"


# -- Qwen mobile_use -----------------------------------------------------------------------
def call(**arguments: Any) -> str:
    body = json.dumps({"name": "mobile_use", "arguments": arguments})
    return f"<tool_call>\n{body}\n</tool_call>"


QWEN = [
    (call(action="key", text="volume_up"), Key, lambda a: a.key == "volume_up"),
    (call(action="click", coordinate=[546, 1204]), Tap, lambda a: True),
    (call(action="long_press", coordinate=[546, 1204], time=2), LongPress,
     lambda a: a.duration_ms == 2000),
    (call(action="swipe", coordinate=[546, 1800], coordinate2=[546, 600]), Swipe,
     lambda a: a.from_.y > a.to.y),
    (call(action="type", text="MacBook Air 13"), TypeText, lambda a: a.text == "MacBook Air 13"),
    (call(action="system_button", button="Back"), Back, lambda a: True),
    (call(action="system_button", button="Home"), Home, lambda a: True),
    (call(action="system_button", button="Menu"), Key, lambda a: a.key == "menu"),
    (call(action="system_button", button="Enter"), Key, lambda a: a.key == "enter"),
    (call(action="open", text="Settings"), Launch, lambda a: a.app == "Settings"),
    (call(action="wait", time=2), Wait, lambda a: a.seconds == 2),
]


@pytest.mark.parametrize(("reply", "kind", "check"), QWEN)
def test_qwen_mobile_actions_parse_to_typed_actions(reply: str, kind: type, check: Any) -> None:
    action = only(QwenMobile().parse_reply(reply, QwenMobile().frame_for((1080, 2400))))
    assert isinstance(action, kind) and check(action)


def test_qwen_terminate_success_and_failure() -> None:
    frame = QwenMobile().frame_for((1080, 2400))
    assert QwenMobile().parse_reply(call(action="terminate", status="success"),
                                    frame).goal_complete
    assert QwenMobile().parse_reply(call(action="terminate", status="failure"),
                                    frame).goal_infeasible


# -- coordinates ---------------------------------------------------------------------------
def test_smart_resize_follows_the_published_rule() -> None:
    # worked by hand from the rule: round each side to a multiple of 28; over max_pixels,
    # scale both by sqrt(area / max) and floor to 28
    big = 16384 * 28 * 28
    assert smart_resize(2400, 1080, min_pixels=100 * 784, max_pixels=big) == (2408, 1092)
    assert smart_resize(1600, 720, min_pixels=100 * 784, max_pixels=big) == (1596, 728)
    assert smart_resize(2560, 1600, min_pixels=100 * 784, max_pixels=big) == (2548, 1596)
    assert smart_resize(6000, 4000, min_pixels=3136, max_pixels=12845056) == (4368, 2912)
    assert smart_resize(2400, 1080, min_pixels=100 * 784, max_pixels=1280 * 784) == (1484, 672)


def _reference(dialect: str, x: float, y: float, size: tuple[int, int]) -> tuple[float, float]:
    """Where the model's own harness puts (x, y): written from the sources, not our code."""
    if dialect == "autoglm":
        return x / 1000 * size[0], y / 1000 * size[1]
    h, w = smart_resize(size[1], size[0], min_pixels=100 * 784 if dialect == "uitars"
                        else 3136, max_pixels=16384 * 784)
    return x / w * size[0], y / h * size[1]


def _tap_reply(dialect: str, x: int, y: int) -> str:
    return {"autoglm": f'<think>t</think><answer>do(action="Tap", element=[{x},{y}])</answer>',
            "uitars": f"Thought: t\nAction: click(point='<point>{x} {y}</point>')",
            "qwen-mobile": call(action="click", coordinate=[x, y])}[dialect]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_points_round_trip_within_one_pixel(name: str, size: tuple[int, int]) -> None:
    dialect = DIALECTS[name]()
    frame = dialect.frame_for(size)
    top = (999, 999) if name == "autoglm" else (int(frame.width) - 1, int(frame.height) - 1)
    for x, y in [(0, 0), top, (top[0] // 2, top[1] // 3), (17, top[1] - 5), (333, 777)]:
        target = only(dialect.parse_reply(_tap_reply(name, x, y), frame)).target
        px = pixel(target, size)
        ref = _reference(name, x, y, size)
        assert abs(px[0] - ref[0]) <= 1 and abs(px[1] - ref[1]) <= 1, (x, y, px, ref)
        back = frame.from_pixels(*ref, size)
        assert abs(back[0] - x) <= 1 and abs(back[1] - y) <= 1


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", ["uitars", "qwen-mobile"])
def test_the_screenshot_goes_at_the_size_coordinates_refer_to(name: str,
                                                              size: tuple[int, int]) -> None:
    dialect = DIALECTS[name]()
    sent = dialect.encode(Image.new("RGB", size, (40, 40, 40)))
    frame = dialect.frame_for(size)
    assert sent.size == (frame.width, frame.height)


def test_qwen_tool_description_states_the_resized_resolution() -> None:
    dialect = QwenMobile()
    obs = Observation(Image.new("RGB", (1080, 2400)), ())
    messages, _ = dialect.messages(DialectTurn("Turn off Wi-Fi", obs))
    assert "The screen's resolution is 1092x2408." in messages[0]["content"]


def test_out_of_screen_points_are_reply_errors() -> None:
    with pytest.raises(InvalidReply, match="outside"):
        UITars().parse_reply("Thought: t\nAction: click(point='<point>5000 10</point>')",
                             UITars().frame_for((1080, 2400)))


# -- malformed replies: feedback in the model's own format ------------------------------------
BAD = {"autoglm": ("<think>tap</think><answer>tap the switch</answer>", "<answer>do(action="),
       "uitars": ("Thought: tap\nclick the switch", "Thought: ...\nAction: ..."),
       "qwen-mobile": (call(action="click"), '<tool_call>\n{"name": "mobile_use"')}


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_a_malformed_reply_is_retried_with_feedback_in_its_format(name: str) -> None:
    bad, marker = BAD[name]
    good = _tap_reply(name, 100, 200)
    requests: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(json.loads(request.content))
        text = bad if len(requests) == 1 else good
        return httpx.Response(200, json={
            "id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})

    settings = Settings(base_url="http://models.test/v1", model="m", dialect=name)
    budget = StepBudget(10)
    dialect = DIALECTS[name]()
    obs = Observation(Image.new("RGB", (1080, 2400)), ())
    http = httpx.Client(transport=httpx.MockTransport(handler))
    with LLMClient(settings, "operator", http_client=http) as llm:
        bundle, _ = dialect.decide(llm, DialectTurn("Turn off Wi-Fi", obs), budget)
    assert isinstance(only(bundle), Tap)
    assert budget.counts["decision"] == 2
    retry = requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": bad}
    assert marker in retry[-1]["content"]
    assert dialect.turns[-1][1] == good  # the valid reply joins the history, the bad not


def test_replies_that_never_parse_end_in_llm_reply_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={
            "id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "no idea"}}]})

    settings = Settings(base_url="http://models.test/v1", model="m", parse_attempts=2)
    obs = Observation(Image.new("RGB", (720, 1600)), ())
    http = httpx.Client(transport=httpx.MockTransport(handler))
    with LLMClient(settings, "operator", http_client=http) as llm, \
            pytest.raises(LLMReplyError, match="2 attempt"):
        AutoGLM().decide(llm, DialectTurn("t", obs), StepBudget(10))


# -- choosing a dialect ----------------------------------------------------------------------
@pytest.mark.parametrize(("model", "name"), [
    ("autoglm-phone-9b", "autoglm"), ("zai-org/AutoGLM-Phone-9B-Multilingual", "autoglm"),
    ("ByteDance-Seed/UI-TARS-1.5-7B", "uitars"), ("mPLUG/GUI-Owl-7B", "qwen-mobile"),
    ("qwen2.5-vl-72b-instruct", "json"), ("gpt-4o", "json"), (None, "json")])
def test_detect_from_the_model_name(model: str | None, name: str) -> None:
    assert detect(model) == name


def _settings(**env: str) -> Settings:
    return Settings.load(env={"OMG_BASE_URL": "http://m.test/v1", **env})


def test_a_dialect_runs_flat_with_a_json_planner() -> None:
    s = adapt_settings(_settings(OMG_OPERATOR_MODEL="ui-tars-1.5-7b", OMG_MODEL="gpt-4o"))
    assert (s.dialect, s.planning) == ("uitars", "flat")
    assert isinstance(dialect_for(s), UITars)
    assert dialect_for(adapt_settings(_settings(OMG_MODEL="gpt-4o"))) is None
    assert adapt_settings(_settings(OMG_MODEL="gpt-4o")).planning == "unified"


def test_impossible_combinations_are_one_line_errors() -> None:
    with pytest.raises(ConfigError, match="planning must be 'flat'"):
        adapt_settings(_settings(OMG_MODEL="autoglm-phone-9b", OMG_PLANNER_MODEL="gpt-4o",
                                 OMG_PLANNING="adaptive"))
    with pytest.raises(ConfigError, match="OMG_DIALECT.*'qwen-mobile'"):
        _settings(OMG_DIALECT="cogagent")


@pytest.mark.parametrize("model", ["autoglm-phone-9b", "ui-tars-1.5-7b"])
def test_a_phone_model_alone_starts_and_has_no_judge(model: str) -> None:
    """One endpoint, one phone model (issue 28): no refusal to start; the run knows no
    model can confirm a finished task (it ends unverified, brain/dialects/solo.py)."""
    alone = adapt_settings(_settings(OMG_MODEL=model))
    assert alone.planning == "flat" and judgeless(alone)
    paired = adapt_settings(_settings(OMG_MODEL=model, OMG_PLANNER_MODEL="gpt-4o"))
    assert not judgeless(paired)
    assert not judgeless(adapt_settings(_settings(OMG_MODEL="gpt-4o")))


def test_run_dialect_flag_rejects_an_unknown_format_in_one_line() -> None:
    from typer.testing import CliRunner

    from omg_agent.cli import app

    result = CliRunner().invoke(app, ["run", "Turn off Wi-Fi", "--dialect", "cogagent"],
                                env={"OMG_MODEL": "m", "OMG_BASE_URL": "http://m.test/v1",
                                     "OMG_CONFIG": ""})
    assert result.exit_code == 1
    assert "--dialect 'cogagent':" in result.output and "'qwen-mobile'" in result.output


def test_doctor_line_names_the_dialect_and_how_it_was_chosen() -> None:
    from omg_agent.doctor_model import dialect_check

    line = dialect_check(_settings(OMG_MODEL="gpt-4o", OMG_OPERATOR_MODEL="GUI-Owl-7B"))
    assert (line.name, line.status) == ("dialect", "ok")
    assert "speaks qwen-mobile (detected from the model name 'GUI-Owl-7B')" in line.detail
    forced = dialect_check(_settings(OMG_MODEL="autoglm-phone-9b", OMG_DIALECT="json"))
    assert forced.status == "ok" and "set by OMG_DIALECT" in forced.detail


# -- doctor's pixel probe ----------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_the_pixel_probe_passes_when_the_server_keeps_the_image_size(name: str) -> None:
    from omg_agent.brain.dialects.probe import judge, probe_messages
    from omg_agent.sim.dialect_doubles import ProbeModel

    dialect = DIALECTS[name]()
    messages, _ = probe_messages(dialect)
    result = judge(dialect, str(ProbeModel(name).reply({"messages": messages})))
    assert result.status == "ok", result


@pytest.mark.parametrize("name", ["uitars", "qwen-mobile"])
def test_the_pixel_probe_catches_a_server_pixel_limit_below_the_format(name: str) -> None:
    from omg_agent.brain.dialects.probe import judge, probe_messages
    from omg_agent.sim.dialect_doubles import ProbeModel

    dialect = DIALECTS[name]()
    messages, _ = probe_messages(dialect)
    shrunk = ProbeModel(name, server_max_pixels=1280 * 28 * 28)  # vLLM ignoring max_pixels
    result = judge(dialect, str(shrunk.reply({"messages": messages})))
    assert result.status == "fail" and "max_pixels" in result.fix, result


def test_relative_coordinates_survive_a_smaller_server_image() -> None:
    from omg_agent.brain.dialects.probe import judge, probe_messages
    from omg_agent.sim.dialect_doubles import ProbeModel

    messages, _ = probe_messages(AutoGLM())
    result = judge(AutoGLM(), str(ProbeModel("autoglm", 1280 * 28 * 28).reply(
        {"messages": messages})))
    assert result.status == "ok"


def test_autoglm_speaks_the_task_language_and_keeps_its_own_history() -> None:
    from omg_agent.core.geometry import Bounds
    from omg_agent.core.observation import UIElement

    obs = Observation(Image.new("RGB", (720, 1600)), (
        UIElement(1, "android.widget.Switch", "switch", Bounds(600, 300, 700, 360),
                  text="WLAN", resource_id="com.android.settings:id/wifi_switch"),),
        package="com.android.settings")
    zh = AutoGLM(elements=True)
    first, _ = zh.messages(DialectTurn("打开设置，关闭WLAN", obs))
    assert "严格按以下格式回复" in first[0]["content"]
    text = first[-1]["content"][0]["text"]
    assert text.startswith("打开设置，关闭WLAN") and '"current_app": "com.android.settings"' \
        in text and "WLAN" in text.split("\n\n")[-1]
    assert "上一条回复无法执行" in zh.feedback("bad")["content"]
    zh.turns.append((text, '<think>关</think><answer>do(action="Tap", element=[900,206])'
                           "</answer>"))
    second, _ = zh.messages(DialectTurn("打开设置，关闭WLAN", obs, history=("tap → ok",)))
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[-1]["content"][0]["text"].startswith("** Screen Info **")
    assert "Result of the last action: tap → ok" in second[-1]["content"][0]["text"]
    en = AutoGLM()
    assert "Reply in exactly this form" in en.messages(DialectTurn("Turn off Wi-Fi", obs))[0][0][
        "content"]


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_a_pixel_only_dialect_gets_the_screenshot_even_with_vision_never(name: str) -> None:
    requests: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(json.loads(request.content))
        return httpx.Response(200, json={
            "id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": _tap_reply(name, 100, 200)}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})

    settings = Settings(base_url="http://models.test/v1", model="m", dialect=name,
                        vision="never")
    obs = Observation(Image.new("RGB", (1080, 2400)), ())
    http = httpx.Client(transport=httpx.MockTransport(handler))
    with LLMClient(settings, "operator", http_client=http) as llm:
        DIALECTS[name]().decide(llm, DialectTurn("Turn off Wi-Fi", obs), StepBudget(5))
    parts = [p for m in requests[0]["messages"] if isinstance(m["content"], list)
             for p in m["content"]]
    assert any(p.get("type") == "image_url" for p in parts)
