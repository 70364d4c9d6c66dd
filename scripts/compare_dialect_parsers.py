"""Run the official AutoGLM and UI-TARS parsers beside our dialects on the replies of
``omg_agent/sim/dialect_cases.py`` and print the comparison table (issue 28).

Official side: Open-AutoGLM's ``ModelClient._parse_response`` + ``parse_action`` (from a
checkout of zai-org/Open-AutoGLM; the package's ``__init__`` is not run, so none of its
dependencies is needed) with its handler's coordinate rule ``int(x / 1000 * width)``; the
PyPI ``ui-tars`` 0.5.1 ``parse_action_to_structure_output`` (qwen25vl, the screen's size as
the original image). They run in a child process under the Python that has ``ui-tars``
(``--official-python``); this process renders our side and compares. Each case also states
the official outcome it recorded: a changed official parser shows as ``recorded …``.

    python3 -m venv /tmp/uitars && /tmp/uitars/bin/pip install ui-tars==0.5.1
    git clone <Open-AutoGLM> /tmp/open-autoglm       # read only; run, never copied
    PYTHONPATH=$PWD .venv/bin/python scripts/compare_dialect_parsers.py \\
        --open-autoglm /tmp/open-autoglm --official-python /tmp/uitars/bin/python
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

W, H = 1080, 2400


# -- the official side (child process: no omg_agent import) -------------------------------
def _official_autoglm(root: str, replies: list[str]) -> list[str]:
    package = types.ModuleType("phone_agent")
    package.__path__ = [str(Path(root) / "phone_agent")]
    sys.modules["phone_agent"] = package  # its __init__ pulls the whole agent in
    sys.modules.setdefault("openai", types.SimpleNamespace(OpenAI=object))  # type: ignore
    from phone_agent.actions.handler import parse_action
    from phone_agent.model.client import ModelClient

    out = []
    for reply in replies:
        _, action = ModelClient._parse_response(None, reply)  # type: ignore[arg-type]
        try:
            parsed = parse_action(action)
        except ValueError:  # PhoneAgent.step: action = finish(message=response.action)
            out.append("finish(the raw reply)")
            continue
        out.append(_autoglm_said(parsed))
    return out


def _autoglm_said(a: dict[str, Any]) -> str:
    if a.get("_metadata") == "finish":
        return f'finish("{a.get("message")}")'

    def px(key: str) -> str | None:
        point = a.get(key)
        if not point:
            return None
        return f"{int(point[0] / 1000 * W)},{int(point[1] / 1000 * H)}"

    name = a.get("action")
    taps = {"Tap": "tap", "Long Press": "long_press", "Double Tap": "double_tap"}
    if name in taps:
        where = px("element")
        return f"{taps[name]}({where})" if where else "fails (no element), goes on"
    simple = {"Back": "back", "Home": "home", "Take_over": "ask_user",
              "Interact": "nothing (no handler)", "Note": "nothing (placeholder)",
              "Call_API": "nothing (placeholder)"}
    if name in simple:
        return simple[name]
    if name in ("Type", "Type_Name"):
        return f'type("{a.get("text")}")'
    if name == "Swipe":
        return f"swipe({px('start')}->{px('end')})"
    if name == "Launch":
        return f"launch({a.get('app')})"
    if name == "Wait":
        try:
            seconds = float(str(a.get("duration", "1 seconds")).replace("seconds", "").strip())
        except ValueError:
            seconds = 1.0
        return f"wait({seconds:g}s)"
    return "fails (unknown action), goes on"


def _official_uitars(replies: list[str]) -> list[str]:
    from ui_tars.action_parser import parse_action_to_structure_output

    out = []
    for reply in replies:
        try:
            actions = parse_action_to_structure_output(reply, 1000, H, W, "qwen25vl")
        except Exception:  # its own assertion / ValueError: nothing runs
            out.append("error")
            continue
        out.append(" ; ".join(_uitars_said(a) for a in actions))
    return out


def _uitars_said(a: dict[str, Any]) -> str:
    kind, inputs = a["action_type"], a["action_inputs"]

    def px(key: str) -> str:
        x1, y1, x2, y2 = json.loads(inputs[key])
        return f"{round((x1 + x2) / 2 * W)},{round((y1 + y2) / 2 * H)}"

    match kind:
        case "click" | "long_press":
            return f"{'tap' if kind == 'click' else kind}({px('start_box')})"
        case "type":
            content = inputs.get("content", "")
            enter = content.endswith(("\n", "\\n"))
            text = content.removesuffix("\\n").removesuffix("\n").replace("\\'", "'")
            return f'type("{text}")' + ("+enter" if enter else "")
        case "scroll":
            at = f" at {px('start_box')}" if "start_box" in inputs else ""
            return f"scroll({inputs.get('direction')}){at}"
        case "drag":
            return f"swipe({px('start_box')}->{px('end_box')})"
        case "open_app":
            return f"launch({inputs.get('app_name')})"
        case "press_home" | "press_back":
            return kind.removeprefix("press_")
        case "finished":
            return f'finish("{inputs.get("content", "").replace(chr(92) + chr(39), chr(39))}")'
        case "wait":
            return "wait(5s)"
        case "call_user":
            return "ask_user"
    return f"{kind}({', '.join(str(v) for v in inputs.values())})"


def official(root: str) -> None:
    """Child: read {autoglm: [...], uitars: [...]} on stdin, print the official outcomes."""
    cases = json.load(sys.stdin)
    with contextlib.redirect_stdout(sys.stderr):  # both parsers print as they go
        result = {"autoglm": _official_autoglm(root, cases["autoglm"]),
                  "uitars": _official_uitars(cases["uitars"])}
    json.dump(result, sys.stdout, ensure_ascii=False)


# -- our side and the table ---------------------------------------------------------------
def _cell(text: str) -> str:
    shown = text.replace("\n", "⏎").replace("|", "\\|")
    return f"`{shown}`" if len(shown) < 70 else f"`{shown[:67]}…`"


def compare(root: str, python: str) -> int:
    from omg_agent.sim.dialect_cases import AUTOGLM, UITARS, omg_outcome

    payload = json.dumps({"autoglm": [c.reply for c in AUTOGLM],
                          "uitars": [c.reply for c in UITARS]})
    done = subprocess.run([python, __file__, "--child", "--open-autoglm", root],
                          input=payload, capture_output=True, text=True, check=True)
    measured = json.loads(done.stdout)
    drift = 0
    for dialect, cases, source in (("autoglm", AUTOGLM, "Open-AutoGLM parse_action"),
                                   ("uitars", UITARS, "ui-tars 0.5.1")):
        print(f"\n### {dialect}: {len(cases)} replies, {source} beside OMG\n")
        print(f"| # | reply | {source} | OMG | |")
        print("|--:|---|---|---|---|")
        agree = 0
        for i, (case, got) in enumerate(zip(cases, measured[dialect], strict=True), 1):
            ours = omg_outcome(dialect, case.reply)
            note = case.why if ours != got else "same"
            agree += ours == got
            if got != case.official or ours != case.omg:
                drift += 1
                note = (f"DRIFT: recorded official {case.official!r}, OMG {case.omg!r}; "
                        + note)
            print(f"| {i} | {_cell(case.reply)} | {_cell(got)} | {_cell(ours)} | {note} |")
        print(f"\n{agree}/{len(cases)} the same; every difference is stated.")
    return 1 if drift else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--open-autoglm", required=True, help="a checkout of Open-AutoGLM")
    parser.add_argument("--official-python", default=sys.executable,
                        help="a Python with ui-tars==0.5.1 installed")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        official(args.open_autoglm)
        return 0
    return compare(args.open_autoglm, args.official_python)


if __name__ == "__main__":
    sys.exit(main())
