"""A yes given for one item of a menu whose items share a resource id (Chrome's app menu:
every row is ``menu_item_text``) still finds that item on the screen after the question
(issue 36: Chrome's Share… was refused as "not on the screen any more")."""

from __future__ import annotations

from omg_agent.guards.approvals import refind
from omg_agent.vphone.phone import VirtualPhone

try:
    from .gate_screens import element, observe
except ImportError:
    from gate_screens import element, observe


def test_a_menu_item_that_shares_its_id_is_found_again_in_its_place() -> None:
    phone = VirtualPhone()
    try:
        phone.open_url("https://example.com")
        phone.tap_view(resource_id="com.android.chrome:id/menu_button")
        asked = observe(phone)
        share = element(asked, text="Share…")
        assert sum(e.resource_id == share.resource_id for e in asked.elements) == 2
        again = refind(share, observe(phone))
        assert again is not None and again.text == "Share…"
    finally:
        phone.close()
