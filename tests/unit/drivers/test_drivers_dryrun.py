"""``--dry-run`` says what it would send — and the caller's review (the gate) still judges
each segment first: a held action is not even said."""

from __future__ import annotations

from omg_agent.core.actions import parse_action
from omg_agent.drivers.dryrun import DryRunDriver
from tests.unit.drivers.test_drivers_segments import Review


def dry() -> tuple[DryRunDriver, list[str]]:
    said: list[str] = []
    return DryRunDriver(inner=None, on_action=said.append), said  # type: ignore[arg-type]


def test_a_dry_run_says_the_segment_up_to_what_the_review_holds() -> None:
    driver, said = dry()
    actions = [parse_action(a) for a in (
        {"type": "type", "text": "hi", "target": {"kind": "anchor", "text": "Message"}},
        {"type": "mem_save", "key": "k", "value": "v"},
        {"type": "tap", "target": {"kind": "anchor", "text": "Send"}},
        {"type": "back"})]
    review = Review(hold=2)
    result = driver.execute(actions, None, review=review)
    assert [i for i, _, _ in review.shown] == [0, 1, 2]  # the segment ends at the tap
    assert len(said) == 1 and said[0].startswith("would ") and '"type"' in said[0]
    assert result.executed == 2 and result.dropped == 2


def test_a_dry_run_never_goes_on_to_a_new_screen() -> None:
    driver, said = dry()
    review = Review(unseen=True)
    result = driver.execute([parse_action({"type": "back"})], None, review=review)
    assert review.why and said == [] and result.outcomes == ()
