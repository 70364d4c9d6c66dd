"""Replies compared with the official parsers (issue 28): what each model's own runtime does
with a reply, and what our dialect does with it.

Each :class:`Case` holds one reply, the outcome of the official parser measured by
``scripts/compare_dialect_parsers.py`` (Open-AutoGLM's ``_parse_response`` + ``parse_action``
+ its action handler's coordinate rule; the PyPI ``ui-tars`` 0.5.1
``parse_action_to_structure_output``), the outcome our dialect must give, and — where the two
differ — why. The conformance test (``tests/unit/brain/test_dialects_conformance.py``)
checks our side against this table; the script checks the official side, so the table is
what was measured, not what was guessed.

Outcomes are one line in one vocabulary on a 1080×2400 screen: ``tap(x,y)`` in pixels,
``type("…")`` (``+enter`` when it submits), ``swipe(x,y->x,y)``, ``scroll(down)`` (the
direction the content is asked to show), ``launch(App)``, ``finish("…")``, ``ask_user``,
``note``, ``wait(3s)``; several actions joined by `` ; ``. ``rejected`` is OMG's answer to a
reply it will not run: the model is told what is wrong in its own format and asked again.
"""

from __future__ import annotations

from dataclasses import dataclass

SIZE = (1080, 2400)
UNREADABLE = "finish(the raw reply)"  # Open-AutoGLM's agent on a parse error: the run ends


@dataclass(frozen=True)
class Case:
    name: str
    reply: str
    official: str  # what the official parser (and its runtime's rule) does, measured
    omg: str  # what our dialect does
    why: str = ""  # why they differ (empty: they agree)


AUTOGLM = [
    Case("tagged tap", '<think>打开设置</think><answer>do(action="Tap", element=[500,300])'
         "</answer>", UNREADABLE, "tap(540,720)",
         "its prompt documents the <answer> tags; served with them kept, the action ends "
         "in </answer> and its parser fails"),
    Case("thinking, newline, action", '打开设置\ndo(action="Tap", element=[500,300])',
         "tap(540,720)", "tap(540,720)"),
    Case("thinking and action on one line", '我将点击设置图标 do(action="Tap", element=[100,200])',
         "tap(108,480)", "tap(108,480)"),
    Case("bare action", 'do(action="Tap", element=[100,200])', "tap(108,480)", "tap(108,480)"),
    Case("point cut, not rounded", 'do(action="Tap", element=[333,777])', "tap(359,1864)",
         "tap(359,1864)"),
    Case("corner 999", 'do(action="Tap", element=[999,999])', "tap(1078,2397)",
         "tap(1078,2397)"),
    Case("corner 0", 'do(action="Tap", element=[0,0])', "tap(0,0)", "tap(0,0)"),
    Case("sensitive tap", '点击支付 do(action="Tap", element=[120,880], message="重要操作")',
         "tap(129,2112)", "tap(129,2112)"),
    Case("type", 'do(action="Type", text="Hello World")', 'type("Hello World")',
         'type("Hello World")'),
    Case("type a name", 'do(action="Type_Name", text="张三")', 'type("张三")', 'type("张三")'),
    Case("type with quotes", 'do(action="Type", text="say "hi"")', 'type("say "hi"")',
         'type("say "hi"")'),
    Case("type two lines", 'do(action="Type", text="line1\nline2")', 'type("line1\nline2")',
         'type("line1\nline2")'),
    Case("swipe", 'do(action="Swipe", start=[500,800], end=[500,200])',
         "swipe(540,1920->540,480)", "swipe(540,1920->540,480)"),
    Case("long press", 'do(action="Long Press", element=[300,400])', "long_press(324,960)",
         "long_press(324,960)"),
    Case("double tap", 'do(action="Double Tap", element=[300,400])', "double_tap(324,960)",
         "double_tap(324,960)"),
    Case("back", '返回 do(action="Back")', "back", "back"),
    Case("home", 'do(action="Home")', "home", "home"),
    Case("launch", '打开微信 do(action="Launch", app="微信")', "launch(微信)", "launch(微信)"),
    Case("wait", 'do(action="Wait", duration="3 seconds")', "wait(3s)", "wait(3s)"),
    Case("take over", 'do(action="Take_over", message="请登录")', "ask_user", "ask_user"),
    Case("interact", 'do(action="Interact")', "nothing (no handler)", "ask_user",
         "its handler only returns a message; OMG asks the user which option"),
    Case("note", 'do(action="Note", message="True")', "nothing (placeholder)", "note",
         "its handler is a placeholder; OMG saves the screen's text to memory"),
    Case("Call_API", 'do(action="Call_API", instruction="总结价格")', "nothing (placeholder)",
         "rejected", "deliberate: an API we do not have is never pretended; the model is "
         "told to write the summary into finish"),
    Case("finish after thinking", '任务完成 finish(message="已关闭 Wi-Fi")',
         'finish("已关闭 Wi-Fi")', 'finish("已关闭 Wi-Fi")'),
    Case("tagged finish", '<think>ok</think><answer>finish(message="价格是 ¥7,999")</answer>',
         'finish("价格是 ¥7,999")</answe")', 'finish("价格是 ¥7,999")',
         "its parser keeps part of the closing tag in the message"),
    Case("finish with quotes", 'finish(message="He said "ok"")', 'finish("He said "ok"")',
         'finish("He said "ok"")'),
    Case("unknown action", 'do(action="Scroll", direction="down")',
         "fails (unknown action), goes on", "rejected",
         "both run nothing; OMG tells the model which actions exist"),
    Case("tap without a point", 'do(action="Tap")', "fails (no element), goes on", "rejected",
         "both run nothing; OMG tells the model the point is missing"),
    Case("prose, no action", "I should tap the settings icon.", UNREADABLE, "rejected",
         "deliberate: an unreadable reply is sent back, never taken as the task finished"),
    Case("text after the action", 'do(action="Back")\nthen check the list', UNREADABLE,
         "rejected", "deliberate: an unreadable reply is sent back, never taken as the task "
         "finished"),
    Case("thinking mentions finish", '不要 finish(message=...) 还没完成 do(action="Back")',
         'finish("..) 还没完成 do(action="Back")', "back",
         "its rule takes finish( anywhere first; OMG takes the first marker the rest of the "
         "reply reads as one call from"),
]

UITARS = [
    Case("click", "Thought: 打开设置\nAction: click(point='<point>546 1204</point>')",
         "tap(540,1200)", "tap(540,1200)"),
    Case("click start_box", "Thought: t\nAction: click(start_box='(546,1204)')",
         "tap(540,1200)", "tap(540,1200)"),
    Case("click box tokens", "Thought: t\nAction: click(start_box='<|box_start|>(546,1204)"
         "<|box_end|>')", "error", "tap(540,1200)",
         "older UI-TARS box tokens are read too"),
    Case("long press", "Thought: t\nAction: long_press(point='<point>100 200</point>')",
         "long_press(99,199)", "long_press(99,199)"),
    Case("type", "Thought: t\nAction: type(content='hello')", 'type("hello")',
         'type("hello")'),
    Case("type and submit", "Thought: t\nAction: type(content='hello\\n')", 'type("hello")+enter',
         'type("hello")+enter'),
    Case("type with a quote", "Thought: t\nAction: type(content='it's fine')",
         'type("it\'s fine")', 'type("it\'s fine")'),
    Case("type two lines", "Thought: t\nAction: type(content='a\nb')", "error",
         'type("a\nb")', "read as written (a newline inside the text)"),
    Case("scroll at a point", "Thought: t\nAction: scroll(point='<point>546 1204</point>', "
         "direction='down')", "scroll(down) at 540,1200", "scroll(down) at 540,1200"),
    Case("scroll", "Thought: t\nAction: scroll(direction='up')", "scroll(up)", "scroll(up)"),
    Case("scroll left", "Thought: t\nAction: scroll(direction='left')", "scroll(left)",
         "scroll(left)"),
    Case("drag", "Thought: t\nAction: drag(start_point='<point>100 200</point>', "
         "end_point='<point>300 400</point>')", "swipe(99,199->297,399)",
         "swipe(99,199->297,399)"),
    Case("open app", "Thought: t\nAction: open_app(app_name='设置')", "launch(设置)",
         "launch(设置)"),
    Case("home", "Thought: t\nAction: press_home()", "home", "home"),
    Case("back", "Thought: t\nAction: press_back()", "back", "back"),
    Case("finished", "Thought: t\nAction: finished(content='Wi-Fi is off')",
         'finish("Wi-Fi is off")', 'finish("Wi-Fi is off")'),
    Case("finished with a quote", "Thought: t\nAction: finished(content='It\\'s done')",
         'finish("It\'s done")', 'finish("It\'s done")'),
    Case("wait", "Thought: t\nAction: wait()", "wait(5s)", "wait(5s)"),
    Case("call user", "Thought: 需要登录\nAction: call_user()", "ask_user", "ask_user"),
    Case("reflection format", "Reflection: the page loaded\nAction_Summary: tap Wi-Fi\n"
         "Action: click(point='<point>546 1204</point>')", "tap(540,1200)", "tap(540,1200)"),
    Case("no thought", "Action: press_back()", "back", "back"),
    Case("two actions", "Thought: search\nAction: click(point='<point>546 200</point>')\n\n"
         "type(content='milk')", 'tap(540,199) ; type("milk")',
         'tap(540,199) ; type("milk")'),
    Case("three actions", "Thought: t\nAction: press_home()\n\nopen_app(app_name='Notes')\n\n"
         "wait()", "home ; launch(Notes) ; wait(5s)", "home ; launch(Notes) ; wait(5s)"),
    Case("action then finished", "Thought: t\nAction: press_back()\n\nfinished(content='ok')",
         'back ; finish("ok")', "rejected",
         "deliberate: a task is reported finished only after the phone was looked at again"),
    Case("end-of-sequence token", "Thought: t\nAction: press_home()[EOS]", "error", "home",
         "the token is dropped (its parser drops it only from replies with a <point>)"),
    Case("last pixel", "Thought: t\nAction: click(point='<point>1091 2407</point>')",
         "tap(1079,2399)", "tap(1079,2399)"),
    Case("point off the image", "Thought: t\nAction: click(point='<point>5000 10</point>')",
         "tap(4945,10)", "rejected", "deliberate: a point off the screen is sent back"),
    Case("hotkey", "Thought: t\nAction: hotkey(key='enter')", "hotkey(enter)", "rejected",
         "not in the mobile action space its prompt gives; the model is told which are"),
    Case("no Action line", "Thought: I will click the switch", "error", "rejected",
         "both run nothing; OMG tells the model the output format"),
    Case("Action: without a space", "Thought: t\nAction:press_back()", "error", "back",
         "read as written"),
    Case("thought on two lines", "Thought: the list is long.\nI scroll down.\nAction: "
         "scroll(direction='down')", "scroll(down)", "scroll(down)"),
    Case("fractional point", "Thought: t\nAction: click(point='<point>546.5 1204</point>')",
         "error", "tap(540,1200)", "read as written"),
]

# the thought our AutoGLM dialect records (the trace shows it) for untagged replies
AUTOGLM_THOUGHTS = {"thinking, newline, action": "打开设置",
                    "thinking and action on one line": "我将点击设置图标",
                    "tagged tap": "打开设置", "finish after thinking": "任务完成"}


def omg_outcome(dialect: str, reply: str, size: tuple[int, int] = SIZE) -> str:
    """What our ``dialect`` does with ``reply`` on a ``size`` screen, in the table's words."""
    from omg_agent.brain.dialects import DIALECTS
    from omg_agent.brain.structured import InvalidReply

    speaker = DIALECTS[dialect]()
    try:
        bundle = speaker.parse_reply(reply, speaker.frame_for(size))
    except InvalidReply:
        return "rejected"
    if bundle.goal_complete:
        return f'finish("{bundle.answer}")'
    return " ; ".join(_said(action, size) for action in bundle.actions)


_CONTENT = {"up": "down", "down": "up", "left": "right", "right": "left"}  # finger → content


def _said(action: object, size: tuple[int, int]) -> str:
    from omg_agent.core import actions as a
    from omg_agent.core.geometry import ScreenGeometry

    def px(target: object) -> str:
        assert isinstance(target, a.PointTarget)
        x, y = ScreenGeometry.of_screen(size).to_pixels((target.x, target.y))
        return f"{x},{y}"

    match action:
        case a.Tap() | a.LongPress() | a.DoubleTap():
            return f"{action.type}({px(action.target)})"
        case a.Swipe() if action.direction is not None:
            at = f" at {px(action.start)}" if action.start is not None else ""
            return f"scroll({_CONTENT[action.direction]}){at}"
        case a.Swipe():
            return f"swipe({px(action.from_)}->{px(action.to)})"
        case a.TypeText():
            return f'type("{action.text}")' + ("+enter" if action.submit else "")
        case a.Launch():
            return f"launch({action.app})"
        case a.Wait():
            return f"wait({action.seconds:g}s)"
        case a.MemSave():
            return "note"
        case a.AskUser():
            return "ask_user"
    return str(getattr(action, "type", action))
