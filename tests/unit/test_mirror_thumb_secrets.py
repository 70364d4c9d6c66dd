"""No mirror thumbnail of a screen that could show a secret (issue 34 §3): the probe's page
showed "AAAA…omg5865" — the hook checked texts the run had already masked, so nothing
matched, while the JPEG is the screen as it was. Here the hook gets the progress the way the
run hands it (masked with the run's vault) and the way a device shows it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from PIL import Image

from omg_agent.brain.run_state import Progress
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.secrets import SecretVault
from omg_agent.hitl.attach import progress_hook
from omg_agent.hitl.channel import PageChannel

SECRET = "omg5865"


def _field(text: str, **more: Any) -> UIElement:
    return UIElement(id=1, cls="android.widget.EditText", role="input", editable=True,
                     bounds=Bounds(0, 0, 500, 100), text=text, **more)


def _screen(shade: int, *elements: UIElement) -> Observation:
    return Observation(Image.new("RGB", (1080, 2400), (shade, 90, 160)), elements,
                       screen_hash=str(shade))


def _thumbs(*screens: Observation, masked: bool) -> list[bool]:
    vault = SecretVault({"pw": SECRET})
    channel = PageChannel()
    hook = progress_hook(SimpleNamespace(channel=channel), None, vault.scrub, "Sign in")
    for n, screen in enumerate(screens):
        progress = Progress("act", (), "sign in", f"tap 'item {n}'", 1, 30, 0, 0,
                            acted_on=screen)
        hook(vault.scrub(progress) if masked else progress)  # as taskrun hands it
    assert channel.run is not None
    return [bool(a["thumb"]) for a in channel.run["recent"]]


def test_a_screen_showing_a_secret_gets_no_thumbnail_when_the_run_hands_it_masked() -> None:
    shown = _thumbs(_screen(10, _field("A" * 54 + SECRET)), _screen(20, _field("Balance")),
                    masked=True)
    assert shown == [False, True]


def test_a_piece_of_a_secret_on_the_screen_is_enough_to_show_no_thumbnail() -> None:
    cut = _screen(30, _field("A" * 50 + SECRET[:5] + "…"))  # the field cut on the screen
    assert _thumbs(cut, _screen(40, _field("Balance")), masked=False) == [False, True]


def test_a_pin_field_that_is_not_flagged_as_a_password_gets_no_thumbnail() -> None:
    pin = _screen(50, _field("", hint="PIN", resource_id="com.bank:id/pin"))
    assert _thumbs(pin, masked=False) == [False]
