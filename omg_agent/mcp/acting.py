"""One client action on the phone, with what the screen says before and after (issue 37
item 5).

Every action goes through :meth:`omg_agent.phone.Phone.act` — the gate's choke point, as a
tap from the CLI or the Python API — and this module adds what an MCP client needs around
it, read from the screen and never decided here:

* an element number is the one the client's last ``observe`` showed: if the element under
  that number is not the same now, nothing is done and the client is told to observe again;
* typing with no field focused is refused (it would type into nothing and say ``ok``);
* what the action changed is read before and after
  (:func:`omg_agent.brain.effects.effect_note`, the agent's own words): a swipe that moved
  nothing says so (the end of a list), not "moved 500 units";
* ``scroll_until_visible`` swipes — each swipe through the gate — until an anchor shows,
  and stops at the end of the list;
* ``stop_app`` and ``open_url`` are judged by the choke point as what they start
  (:func:`judged_start`): a package is harmless, a URL or intent cannot be classified —
  it may pay or send — so the user is asked.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from omg_agent.errors import ConfigError
from omg_agent.mcp.shapes import Acted

if TYPE_CHECKING:
    from omg_agent.core.observation import Observation, UIElement
    from omg_agent.mcp.server import Hub
    from omg_agent.phone import Phone

Op = dict[str, Any] | Callable[["Hub", "Phone", Any], Acted]
UNCHANGED = "screen unchanged"  # effect_note's words for a screen that did not move
MAX_SWIPES = 30


def act_checked(hub: Hub, phone: Phone, action: Op, confirm: Any) -> Acted:
    """``action`` on ``phone`` through the gate (``confirm``: who approves a held input),
    checked against the screen before, and what it changed read after."""
    if callable(action):
        return action(hub, phone, confirm)
    before = phone.observe()
    check(hub, phone.serial, action, before)
    done = phone.act(action, confirm=confirm)
    return outcome(action, done.ok, done.detail, before, phone.observe())


def check(hub: Hub, serial: str, action: dict[str, Any], before: Observation) -> None:
    """Refuse what would act on the wrong thing: an element number whose element changed
    since the client's observe, or typing with no text field focused."""
    target = action.get("target") or {}
    if target.get("kind") == "element":
        same_element(hub.seen.get(serial), before, int(target["id"]))
    if action["type"] == "type" and not target and not any(
            e.focused and e.editable for e in before.elements):
        raise ConfigError("no text field has focus — give element=N of the "
                          "field (observe marks fields 'editable'), or tap it first")


def same_element(seen: Observation | None, now: Observation, number: int) -> None:
    """Element ``number`` of the client's last observe is still element ``number`` now."""
    if seen is None:
        raise ConfigError(f"element={number}: observe first — the number is one of the "
                          "element list observe returns")
    was, is_now = seen.element(number), now.element(number)
    if was is None:
        raise ConfigError(f"element={number}: the last observe listed elements 1–"
                          f"{len(seen.elements)}")
    if is_now is None or _identity(was) != _identity(is_now):
        raise ConfigError(f"element={number}: the screen changed since the last observe "
                          f"(it was {_name(was)}) — observe again; nothing was done")


def _identity(e: UIElement) -> tuple[Any, ...]:
    return e.text, e.desc, e.resource_id, e.role, e.bounds


def _name(e: UIElement) -> str:
    return repr(e.text or e.desc or e.resource_id.rsplit("/", 1)[-1] or e.role)


def outcome(action: dict[str, Any], ok: bool, detail: str, before: Observation,
            after: Observation) -> Acted:
    """The tool's answer: the driver's words, and what the screen shows changed."""
    from omg_agent.brain.effects import effect_note

    effect = effect_note(before, after) or None
    if action["type"] == "swipe" and effect == UNCHANGED:
        detail = (f"nothing moved: the screen is the same after the swipe "
                  f"{action.get('direction') or ''} — the end of the list, or nothing "
                  "scrolls there").replace("  ", " ")
    return Acted(status="ok" if ok else "failed", detail=detail, effect=effect)


def scroll_until(anchor: dict[str, str], direction: str, max_swipes: int) -> Op:
    """Swipe ``direction`` (each swipe through the gate) until ``anchor`` shows inside the
    safe zone; stop when the list stops moving or after ``max_swipes``."""
    from omg_agent.core.actions import AnchorTarget
    from omg_agent.perception.anchor import match_anchor

    wanted = AnchorTarget.model_validate({"kind": "anchor", **anchor})

    def scroll(hub: Hub, phone: Phone, confirm: Any) -> Acted:
        swipe = {"type": "swipe", "direction": direction, "distance": 500}
        obs = phone.observe()
        for done in range(max_swipes + 1):
            hit = match_anchor(wanted, obs.elements, obs.screen.safe_zone)
            if hit is not None and obs.screen.safe_zone.contains(hit.element.center):
                hub.seen[phone.serial] = obs  # its number is valid for tap element=N
                return Acted(status="ok", detail=f"{_name(hit.element)} is element "
                             f"[{hit.element.id}] after {done} swipe(s) {direction}")
            if done == max_swipes:
                break
            phone.act(swipe, confirm=confirm)
            before, obs = obs, phone.observe()
            if outcome(swipe, True, "", before, obs).effect == UNCHANGED:
                return Acted(status="failed", detail=f"not found: the list stopped moving "
                             f"after {done + 1} swipe(s) {direction} (its end)")
        return Acted(status="failed", detail=f"not found after {max_swipes} swipe(s) "
                     f"{direction}")
    return scroll


def stop_app(package: str) -> Op:
    """Force-stop ``package`` (judged as what it names: a package is harmless)."""
    def stop(hub: Hub, phone: Phone, confirm: Any) -> Acted:
        installed = _packages(phone.serial)
        if package not in installed:
            raise ConfigError(f"stop_app: {package!r} is not installed (list_apps lists "
                              "the package names)")
        with judged_start(phone, package, confirm):
            _shell(phone.serial, f"am force-stop {shlex.quote(package)}")
        return Acted(status="ok", detail=f"stopped {package}")
    return stop


def open_url(url: str) -> Op:
    """Open ``url`` (a web link, a deep link, an intent URI) with the app that handles it;
    judged by the choke point first — what a link does cannot be classified (it may pay
    or send), so the user is asked unless the settings allow it."""
    def opened(hub: Hub, phone: Phone, confirm: Any) -> Acted:
        before = phone.observe()
        with judged_start(phone, url, confirm, before):
            said = _shell(phone.serial, "am start -a android.intent.action.VIEW -d "
                          + shlex.quote(url))
        if "Error" in said:
            return Acted(status="failed", detail=f"no app opens {url!r}: {said.strip()[:200]}")
        return outcome({"type": "open_url"}, True, f"opened {url}", before, phone.observe())
    return opened


@contextmanager
def judged_start(phone: Phone, what: str, confirm: Any,
                 screen: Observation | None = None) -> Iterator[None]:
    """A block that starts ``what`` (a package, a URL) on ``phone``, judged first by the
    phone's choke point — with a gate made as :meth:`Phone.act` makes it — under the
    phone's lease; :class:`~omg_agent.phone.ActionHeld` when it is held."""
    from omg_agent.brain.agent import gatekeeper, run_secrets
    from omg_agent.drivers.inputs import judge_of
    from omg_agent.drivers.lease import phone_lease
    from omg_agent.drivers.ports import InputEffect, InputHeld, InputScene
    from omg_agent.guards.choke import bind
    from omg_agent.phone import ActionHeld, channel

    lease = phone_lease(phone.serial, f"omg-agent mcp {what[:60]!r}")
    lease.acquire(0.0)
    try:
        vault = run_secrets("", phone.settings)
        keeper = gatekeeper(phone.settings, "", channel(confirm), phone.driver.observe,
                            secrets=vault)
        with bind(phone.driver, keeper, vault.mask):
            judge = judge_of(phone.driver)
            if judge is not None:
                try:
                    judge.judge(InputEffect("start", package=what), InputScene(screen, 0))
                except InputHeld as held:
                    raise ActionHeld(held.request, declined=held.answer is False) from None
            yield
    finally:
        lease.release()


def _packages(serial: str) -> list[str]:
    import adbutils

    return list(adbutils.AdbClient().device(serial).list_packages())


def _shell(serial: str, command: str) -> str:
    import adbutils

    return str(adbutils.AdbClient().device(serial).shell(command, timeout=20))
