"""The system family's templates (issue 36, D): each check fails on the phone left as the
setup made it (impossible tasks: "nothing harmed" holds there) and on a near-miss end state
set on app state, and passes on the right end state set directly. The expert's runs are in
``tests/integration/test_suite_expert_runs.py`` (``-k system``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from suite_tools import task_named

from omg_agent.bench.suite.system_entries import ENTRIES
from omg_agent.bench.suite.system_tasks import NOTIFIERS
from omg_agent.sim.expert.tasks import MESSAGES, NOTES, SETTINGS
from omg_agent.vphone.phone import VirtualPhone

SEED = 0
PHONE_SEED = 3
IDS = [e.id for e in ENTRIES]
REC = "com.omg.recorder"
CHROME = "com.android.chrome"
Setter = Callable[[Any, Any], None]


def _recording(name: str, seconds: float) -> Setter:
    return lambda phone, t: phone.apps[REC].recordings.insert(0, {"name": name,
                                                                  "seconds": seconds})


def _memo(delta: float, rename: bool = False) -> Setter:
    def set_it(phone: Any, t: Any) -> None:
        _recording(t.name + ("x" if rename else ""), t.seconds + delta)(phone, t)
    return set_it


def _renamed(which: Callable[[Any], int], new: Callable[[Any], str]) -> Setter:
    def set_it(phone: Any, t: Any) -> None:
        phone.apps[REC].recordings[which(t)]["name"] = new(t)
    return set_it


def _delete(which: Callable[[Any], int]) -> Setter:
    return lambda phone, t: phone.apps[REC].recordings.pop(which(t))


def _denied(phone: Any, t: Any) -> None:
    phone.surfaces.permissions.answers.append(
        {"package": REC, "permission": "microphone", "answer": "denied"})
    phone.surfaces.permissions.grants[REC] = {"microphone": "denied"}


def _granted_and_denied(phone: Any, t: Any) -> None:
    _denied(phone, t)
    phone.surfaces.permissions.grants[REC] = {"microphone": "foreground"}


def _bluetooth(on: bool) -> Setter:
    return lambda phone, t: setattr(phone.apps[SETTINGS], "bluetooth", on)


def _wifi_off(phone: Any, t: Any) -> None:
    phone.apps[SETTINGS].wifi = False


def _sent(text: Callable[[Any], str], to: Callable[[Any], str]) -> Setter:
    return lambda phone, t: phone.apps[MESSAGES].sent.append({"to": to(t), "text": text(t)})


def _dismiss_all_but(phone: Any, t: Any) -> None:
    shade = phone.surfaces.shade
    for n in list(shade.items):
        if n.title != NOTIFIERS[t.keep][1]:
            shade.dismiss(n.id)


def _note(title: str, body: str) -> Setter:
    return lambda phone, t: phone.apps[NOTES].notes.append({"title": title, "body": body})


def _form(**change: str) -> Setter:
    return lambda phone, t: phone.apps[CHROME].forms.append({**t.wanted(), **change})


# (the near miss, the right end state) per template
ENDS: dict[str, tuple[Setter, Setter]] = {
    "system.recorder.memo": (_memo(+4), _memo(+0.8)),
    "system.recorder.memo.zh": (_memo(0, rename=True), _memo(-1)),
    "system.recorder.deny_mic": (_granted_and_denied, _denied),
    "system.recorder.mic_blocked": (lambda phone, t: _recording("Recording 1", t.seconds + 3)(
        phone, t), lambda phone, t: _recording("Recording 1", t.seconds)(phone, t)),
    "system.recorder.rename": (_renamed(lambda t: (t.index + 1) % 3, lambda t: t.new),
                               _renamed(lambda t: t.index, lambda t: t.new)),
    "system.recorder.delete": (_delete(lambda t: (t.index + 1) % 3),
                               _delete(lambda t: t.index)),
    "system.shade.bluetooth": (_wifi_off, _bluetooth(True)),
    "system.shade.bluetooth.zh": (_wifi_off, _bluetooth(True)),
    "system.shade.reply": (_sent(lambda t: t.text, lambda t: "妈妈"),
                           _sent(lambda t: t.text, lambda t: t.contact)),
    "system.shade.dismiss_all_but": (lambda phone, t: phone.surfaces.shade.clear_all(),
                                     _dismiss_all_but),
    "system.share.page_to_notes": (_note("Example Domain", ""),
                                   _note("Example Domain", "https://example.com/")),
    "system.web.signup": (_form(plan="Free"), _form()),
    "system.web.signup_promo": (_form(promo=""), _form()),
    "system.web.signup.zh": (_form(email="x@example.com"), _form()),
}
# impossible templates whose "nothing harmed" already holds on the untouched phone
HOLDS_UNTOUCHED = {"system.recorder.deny_mic"}


def test_every_template_has_its_end_states() -> None:
    assert sorted(ENDS) == sorted(IDS)


@pytest.mark.parametrize("task_id", IDS)
def test_untouched_and_near_miss_fail_and_the_right_end_passes(task_id) -> None:
    task = task_named(task_id)
    near, right = ENDS[task_id]
    for end, want in ((None, task_id in HOLDS_UNTOUCHED), (near, False), (right, True)):
        phone = VirtualPhone(seed=PHONE_SEED)
        try:
            task.setup(phone)
            if end is not None:
                end(phone, task)
            assert task.check(phone) is want, (task_id, end)
        finally:
            phone.close()


def test_the_templates_are_tagged_and_the_permission_tasks_have_a_user() -> None:
    tasks = [task_named(i) for i in IDS]
    tags = {tag for t in tasks for tag in t.tags}
    assert {"permission", "popup", "timed", "webview", "non-home", "zh", "impossible",
            "cross-app"} <= tags
    for task in tasks:
        if "timed" in task.tags or "sensitive" in task.tags:
            assert callable(getattr(task, "answer_user", None)), task.id


def test_the_gate_asks_the_system_templates_only_where_they_delete_send_or_share() -> None:
    """The expert's moves one at a time on an in-process phone, judged by the gate (the
    measuring script of ``tests/unit/guards/test_gate_rate.py``): every template ends; the
    gate asks only at Recorder's Delete (once: the confirm dialog that follows is that
    delete) and Chrome's Share… (judged a send)."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).parents[3] / "scripts" / "gate_false_positives.py"
    spec = importlib.util.spec_from_file_location("gate_false_positives", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for task_id in IDS:
        _, asked, ok = module.run(task_named(task_id), SEED, False)
        assert ok, task_id
        kinds = {"system.recorder.delete": ["delete"],
                 "system.share.page_to_notes": ["send"]}.get(task_id, [])
        assert [a.split(":")[0] for a in asked] == kinds, (task_id, asked)
