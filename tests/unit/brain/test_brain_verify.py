"""A step check against one screen: what an element must show, said the way it was written."""

from __future__ import annotations

import pytest
from PIL import Image
from pydantic import TypeAdapter

from omg_agent.brain.verify import check_failure
from omg_agent.core.checks import StepCheck
from omg_agent.core.geometry import Bounds
from omg_agent.core.observation import Observation, UIElement

PAID = UIElement(3, "android.widget.TextView", "text", Bounds(0, 400, 1000, 480),
                 text="Payment successful 支付成功", resource_id="com.omg.shop:id/paid_title")
ORDER = UIElement(4, "android.widget.TextView", "text", Bounds(0, 500, 1000, 580),
                  text="Order #1001 · ¥239.00", resource_id="com.omg.shop:id/order_id")
OBS = Observation(Image.new("RGB", (1000, 2000)), (PAID, ORDER), package="com.omg.shop")
CHECK = TypeAdapter(StepCheck)


def failure(**check: object) -> str:
    return check_failure(CHECK.validate_python({"kind": "element", **check}), OBS,
                         lambda key: None)


@pytest.mark.parametrize("shows", ["Payment successful", "支付成功", "payment  SUCCESSFUL",
                                   "Payment successful 支付成功"])
def test_shows_is_contained_whatever_script_the_rest_of_the_label_is_in(shows: str) -> None:
    # Latin words inside a bilingual label: the label's Chinese once made the two compare
    # without spaces on one side only, and a true "done" was refused twice
    assert failure(resource_id="paid_title", shows=shows) == ""


def test_shows_still_fails_on_text_the_element_does_not_hold() -> None:
    assert failure(resource_id="paid_title", shows="Payment failed") == (
        'element resource_id="paid_title" shows "Payment failed": it shows '
        "'Payment successful 支付成功'")
    assert failure(resource_id="order_id", shows="¥239.00") == ""


def test_a_regex_check_is_described_as_written() -> None:
    check = CHECK.validate_python({"kind": "element", "text": r"1\D*3", "match": "regex"})
    assert check.describe() == r'element text="1\D*3" (regex)'


def like(liked: bool) -> Observation:
    button = UIElement(5, "android.widget.Button", "button", Bounds(0, 600, 300, 680),
                       text="Liked ♥" if liked else "Like", desc="Like post 10",
                       resource_id="com.omg.feed:id/like", clickable=True, selected=liked)
    return Observation(Image.new("RGB", (1000, 2000)), (button,), package="com.omg.feed")


def test_a_selected_check_proves_a_like_whatever_the_button_now_reads() -> None:
    check = CHECK.validate_python({"kind": "element", "desc": "Like post 10",
                                   "selected": True})
    assert check.describe() == 'element desc="Like post 10" is selected'
    assert check_failure(check, like(True), lambda key: None) == ""
    assert check_failure(check, like(False), lambda key: None) == (
        'element desc="Like post 10" is selected: it is not selected')


def test_an_absent_element_cannot_be_selected() -> None:
    with pytest.raises(ValueError, match="absent element"):
        CHECK.validate_python({"kind": "element", "desc": "Like", "present": False,
                               "selected": True})
