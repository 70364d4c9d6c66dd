"""The permission controller shows two kinds of screens: the grant dialog (a prompt the
guard answers by rule) and an app's permission page with radio buttons (where the user, or a
task, chooses). Only the first is a "permission" situation: treating the page as a prompt
made the guard tap "Don't allow" on it (issue 36: Recorder's "Open settings" route)."""

from __future__ import annotations

from omg_agent.guards.system import situation_of
from omg_agent.vphone.phone import VirtualPhone

try:
    from .gate_screens import observe
except ImportError:
    from gate_screens import observe

REC = "com.omg.recorder"


def test_the_grant_dialog_is_a_prompt_and_the_permission_page_is_not() -> None:
    phone = VirtualPhone()
    try:
        phone.start_activity(REC)
        phone.tap_view(resource_id=f"{REC}:id/record_button")
        assert situation_of(observe(phone)) == "permission"
        phone.tap_view(text="Don't allow")
        phone.surfaces.permissions.block(REC, "microphone")
        phone.tap_view(resource_id=f"{REC}:id/record_button")
        phone.tap_view(resource_id=f"{REC}:id/open_settings")
        obs = observe(phone)
        assert obs.package == "com.android.permissioncontroller"
        assert situation_of(obs) is None
    finally:
        phone.close()
