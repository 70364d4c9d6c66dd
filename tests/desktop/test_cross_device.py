"""One run over two devices: a vphone (real adb server, AdbDriver) and the Tk app on Xvfb
(DesktopDriver), behind one :class:`~omg_agent.drivers.desktop.router.DeviceRouter`, with
one MemoryBank. The scripted model (over HTTP, the real openai client) reads a 6-digit code
shown in the phone's Messages, saves it (``mem_save``), and types ``$code`` into the
desktop field. The plan's steps name their device; the orchestrator's ``route`` hook
switches. The field's value is read from the app's own state; the expected code from the
phone's own state.
"""

from __future__ import annotations

import json
import re
from contextlib import ExitStack
from typing import Any

import pytest

from omg_agent.brain.agent import open_agent
from omg_agent.config import Settings
from omg_agent.core.contracts import TaskStep
from omg_agent.drivers.adb import AdbDriver
from omg_agent.drivers.desktop import open_desktop
from omg_agent.drivers.desktop.router import DeviceRouter, parse_devices
from omg_agent.errors import ConfigError
from omg_agent.sim.expert.screen import Screen, request_text
from omg_agent.sim.model_double import ModelDouble, contract_name

pytestmark = pytest.mark.timeout(240)
CODE = re.compile(r"(?<!\d)(\d{6})(?!\d)")
PLAN = {"goal": "Copy the code from the phone's Messages into OMG Desk", "steps": [
    {"description": "Read the 6-digit code in the phone's Messages", "device": "phone",
     "success_criteria": "the code is saved", "data_output": "code",
     "checks": [{"kind": "memory", "key": "code"}], "complexity": 2},
    {"description": "Type the code into OMG Desk's field", "device": "desktop",
     "success_criteria": "the field shows the code", "complexity": 2}]}


def bundle(*actions: dict[str, Any], step_complete: bool = False,
           goal_complete: bool = False) -> str:
    return json.dumps({"thought": "reading the screen", "last_action_result": "success",
                       "execute_now": {"intent": "act", "actions": list(actions)}
                       if actions else None,
                       "step_complete": step_complete, "goal_complete": goal_complete})


class CrossModel:
    """Decides from the request alone: the current step, the element list, the memory."""

    def reply(self, request: dict[str, Any]) -> str:
        name = contract_name(request)
        if name == "TaskPlan":
            return json.dumps(PLAN)
        if name == "Replan":  # asked to confirm the goal once every step is ticked
            return json.dumps({"status": "done", "response": "the code is in OMG Desk",
                               "evidence": [{"kind": "element", "text": "$code",
                                             "match": "contains", "in_field": True}]})
        text = request_text(request)
        screen = Screen(text)
        saved = re.search(r'\$code = "(\d{6})"', text)
        if "Current step 1:" in text:
            if saved:
                return bundle(step_complete=True)
            for e in screen.elements:
                if (found := CODE.search(e.text)) is not None:
                    return bundle({"type": "mem_save", "key": "code", "value": found[1]})
            thread = screen.find(text="10690")
            if thread is not None and "com.omg.messages" in text:
                return bundle({"type": "tap", "target": {"kind": "element", "id": thread.id}})
            return bundle({"type": "launch", "app": "Messages"})
        assert saved, "the code must be in memory on the desktop step"
        if any(saved[1] in re.sub(r"\s+", "", e.text) for e in screen.elements):
            return bundle(step_complete=True, goal_complete=True)
        return bundle({"type": "type", "text": "$code",
                       "target": {"kind": "anchor", "text": "Type here"}})


def test_a_code_read_on_the_phone_is_typed_into_the_desktop_app(
        vphone, xdisplay, desktop_app, ocr_engine, tmp_path) -> None:
    vphone.phone.enable_hazard("message_injection")  # a thread from 10690 with a code
    threads = vphone.phone.state()["apps"]["com.omg.messages"]["threads"]
    expected = CODE.search(" ".join(m["text"] for m in threads["10690"]))[1]  # type: ignore[index]
    task = "Read the verification code in Messages on my phone and type it into OMG Desk"
    with ModelDouble(CrossModel()) as double, ExitStack() as stack:
        settings = Settings(base_url=double.base_url, model="double", max_steps=20,
                            retry_backoff_s=0.001, retry_backoff_max_s=0.01, timeout_s=20,
                            runs_dir=tmp_path, planning="adaptive")
        router = DeviceRouter({"phone": AdbDriver(vphone.serial),
                               "desktop": open_desktop(f"desktop={xdisplay}",
                                                       ocr=ocr_engine)})
        stack.callback(router.close)
        orchestrator = open_agent(stack, router, settings, task, run_dir=tmp_path / "run",
                                  route=router.route)
        result = orchestrator.run(task)
        saved = orchestrator.memory.get("code")
    assert result.status == "done", result.summary()
    assert desktop_app.read()["entry"] == expected
    assert saved == expected  # one MemoryBank: saved on the phone, typed on the desktop
    trace = (tmp_path / "run" / "trace.jsonl").read_text(encoding="utf-8")
    switches = [json.loads(line)["data"] for line in trace.splitlines()
                if '"kind":"device"' in line]
    assert switches == [{"step": 2, "device": "desktop"}]


def test_omg_agent_run_with_a_phone_and_a_desktop(vphone, xdisplay, desktop_app,
                                                  tmp_path) -> None:
    """The same run through the CLI: ``--device phone=SERIAL --device desktop=:N``."""
    from typer.testing import CliRunner

    from omg_agent.cli import app

    vphone.phone.enable_hazard("message_injection")
    threads = vphone.phone.state()["apps"]["com.omg.messages"]["threads"]
    expected = CODE.search(" ".join(m["text"] for m in threads["10690"]))[1]  # type: ignore[index]
    with ModelDouble(CrossModel()) as double:
        env = {"OMG_MODEL": "double", "OMG_BASE_URL": double.base_url, "OMG_API_KEY": "",
               "OPENAI_API_KEY": "", "OMG_PLANNING": "adaptive"}
        result = CliRunner().invoke(app, [
            "run", "Read the verification code in Messages and type it into OMG Desk",
            "--device", f"phone={vphone.serial}", "--device", f"desktop={xdisplay}",
            "--json", "--runs-dir", str(tmp_path / "runs"), "--max-steps", "20"], env=env)
        plans = [r for r in double.requests if contract_name(r.body) == "TaskPlan"]
    assert result.exit_code == 0, result.output[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1])["status"] == "done"
    assert desktop_app.read()["entry"] == expected
    assert "Devices: phone, desktop" in request_text(plans[0].body)


def test_device_values_parse_into_named_devices() -> None:
    assert parse_devices(["phone=emulator-5554", "desktop=local"]) == {
        "phone": "emulator-5554", "desktop": "desktop=local"}
    assert parse_devices(["R58M", "desktop"]) == {"phone": "R58M", "desktop": "desktop"}
    with pytest.raises(ConfigError, match="given twice"):
        parse_devices(["phone=a", "phone=b"])
    with pytest.raises(ConfigError, match="bad --device"):
        parse_devices(["=x"])


def test_a_step_on_an_unknown_device_names_the_devices_there_are() -> None:
    class Quiet:
        closed = False

        def close(self) -> None:
            self.closed = True

    router = DeviceRouter({"phone": Quiet(), "desktop": Quiet()})  # type: ignore[dict-item]
    step = TaskStep(description="x", success_criteria="y", device="tablet")
    with pytest.raises(ConfigError, match="devices: phone, desktop"):
        router.route(step)
    assert router.route(TaskStep(description="x", success_criteria="y")) is None
    assert router.route(TaskStep(description="x", success_criteria="y",
                                 device="desktop")) == "desktop"
    router.close()
    assert all(d.closed for d in router.drivers.values())  # type: ignore[attr-defined]
