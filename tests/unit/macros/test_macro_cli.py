"""``omg-agent macro detect|list|show|rm`` on a recorded run of a list app."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from omg_agent.cli import app
from omg_agent.core.actions import Tap
from omg_agent.drivers.base import ActionOutcome
from omg_agent.trace.recorder import TraceRecorder
from tests.unit.macros.listphone import LIKE, ListPhone

runner = CliRunner()


def record_likes(run_dir, posts):
    """A run folder of an agent tapping Like on ``posts`` one turn each."""
    phone = ListPhone(["Ann", "Bob", "Cid", "Dee", "Eve"])
    with TraceRecorder(run_dir, task="like posts") as rec:
        for step, n in enumerate(posts, start=1):
            obs = phone.observe()
            button = next(e for e in obs.elements if e.desc == f"Like post {n}")
            action = Tap(target={"kind": "element", "id": button.id})
            outcome = ActionOutcome(0, action, True, "tap", tuple(button.center), "element",
                                    button)
            rec.record_step(step, observation=obs, model_reply="{}", actions=[action],
                            results=[{"index": 0, "type": "tap", "ok": True,
                                      "point": outcome.point}])
            phone.tap(*button.center)
        rec.finish("done", "")


def test_detect_saves_a_macro_that_list_show_and_rm_then_manage(tmp_path):
    record_likes(tmp_path / "run", [1, 2, 3])
    store = str(tmp_path / "store")
    out = runner.invoke(app, ["macro", "detect", str(tmp_path / "run"), "--save",
                              "--store", store])
    assert out.exit_code == 0, out.output
    found = json.loads(out.output)
    assert found["macro"]["target"]["resource_id"] == LIKE
    assert found["saved"]["version"] == 1
    listed = runner.invoke(app, ["macro", "list", "--store", store, "--json"])
    assert [m["name"] for m in json.loads(listed.output)] == [found["macro"]["name"]]
    shown = runner.invoke(app, ["macro", "show", found["macro"]["name"], "--store", store])
    assert json.loads(shown.output)["versions"] == [1]
    gone = runner.invoke(app, ["macro", "rm", found["macro"]["name"], "--store", store])
    assert gone.exit_code == 0 and "removed 1" in gone.output
    assert runner.invoke(app, ["macro", "list", "--store", store]).output.strip() == \
        "no stored macros"


def test_bad_input_is_a_one_line_error(tmp_path):
    record_likes(tmp_path / "run", [1])
    out = runner.invoke(app, ["macro", "detect", str(tmp_path / "run")])
    assert out.exit_code == 1 and "no macro in" in out.output and "a macro needs 2" in out.output
    missing = runner.invoke(app, ["macro", "show", "nope", "--store", str(tmp_path)])
    assert missing.exit_code == 1 and "no stored macro named 'nope'" in missing.output
    notrun = runner.invoke(app, ["macro", "detect", str(tmp_path)])
    assert notrun.exit_code == 1 and "trace.jsonl" in notrun.output
