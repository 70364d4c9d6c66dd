"""A desktop run end to end on a recorded Mac: the real loop (operator, executor, gate,
verifier) over the desktop driver and the macOS backend reading TextEdit's Save sheet
through the AX seam; the model (the real openai client on httpx.MockTransport) is told
"desktop" with the app and window, names the file and saves it, and its end check (the
saved window's title) ends the run without another call."""

from __future__ import annotations

import json
from typing import Any

from test_mac_ax import RecordedMac, driver_for

from omg_agent.brain.agent import gatekeeper
from omg_agent.brain.llm import LLMClient
from omg_agent.brain.memory import MemoryBank
from omg_agent.brain.orchestrator import Orchestrator
from omg_agent.config import Settings

try:  # the openai SDK's HTTP library: httpx2 in openai 3, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

TASK = "Save the document as todo"
SAVE_IT = {"thought": "the Save sheet is open: name the file, save", "last_action_result":
           "success", "execute_now": {"intent": "save as todo", "actions": [
               {"type": "type", "text": "todo", "clear": True,
                "target": {"kind": "anchor", "desc": "Save As:"}},
               {"type": "tap", "target": {"kind": "anchor", "text": "Save"}}]},
           "todo": ["[ ] name the file todo", "[ ] save it"],
           # the saved document's window is titled by its name
           "end_checks": [{"kind": "element", "text": "todo.rtf"}]}


class TextEdit(RecordedMac):
    """The recorded Save sheet, and what TextEdit does on its Save: the sheet closes and the
    window takes the file's name."""

    def ax_perform(self, ref: Any, action: str) -> bool:
        pressed = super().ax_perform(ref, action)
        window = self.ax.apps[501]["AXWindows"][0]
        sheet = next(c for c in window["AXChildren"] if c["AXRole"] == "AXSheet")
        if pressed and ref.get("ref") == "save":  # the handle is the recorded node
            name = next(c for c in sheet["AXChildren"] if c.get("ref") == "saveas")["AXValue"]
            window["AXChildren"].remove(sheet)
            window["AXTitle"] = f"{name}.rtf"
        return pressed


def test_a_desktop_run_names_the_file_and_its_end_check_ends_it() -> None:
    requests: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(json.loads(request.content))
        return httpx.Response(200, json={
            "id": "c1", "object": "chat.completion", "created": 0, "model": "scripted",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": json.dumps(SAVE_IT)}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})

    mac = TextEdit("save_sheet")
    config = Settings(base_url="http://model.test/v1", model="scripted", max_steps=4,
                      retry_backoff_s=0.001, retry_backoff_max_s=0.001, planning="unified")
    http = httpx.Client(transport=httpx.MockTransport(answer))
    with LLMClient(config, "operator", http_client=http) as llm, \
            MemoryBank(None, "unit") as memory:
        result = Orchestrator(driver_for(mac), llm, llm, memory, config,
                              gatekeeper=gatekeeper(config, TASK, None)).run(TASK)
    assert result.status == "done", result.stopped_because
    assert len(requests) == 1
    assert mac.ax.calls == [("set", "saveas", "todo"), ("perform", "save", "AXPress")]
    assert mac.window_title(501) == "todo.rtf"
    system, user = (m["content"] for m in requests[0]["messages"][:2])
    text = user if isinstance(user, str) else "\n".join(p.get("text", "") for p in user)
    assert system.startswith("You operate a desktop computer") and "phone" not in system
    assert 'Foreground app: TextEdit — window "Untitled"' in text
    assert "-- popup: TextEdit --" in text and '"Save"' in text
