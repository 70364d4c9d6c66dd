"""Where a secret may be typed: the rule the secret typer applies to each field, below the
gate, so it holds for every caller of ``execute`` (the operator, flows, the Python API, MCP).

A ``{{secret:NAME}}`` goes only into a *password / secret field* — one the screen marks as a
password, or whose resource-id, hint or description says password, PIN, CVV, card number or
verification code (:func:`~omg_agent.perception.labels.is_secret_field`; never what the field
holds, which a page can write) — and only of the right app:

- the app (and field) the user bound it to (``--secret NAME@APP:FIELD``,
  :class:`~omg_agent.core.secrets.Binding`) — a field the user names that way may be any
  input (a user name, an account number);
- else an app the run's task names ("Sign in to Login …": com.omg.login), by its package,
  its last name part or a device-profile name (:func:`~omg_agent.drivers.profiles.app_named_in`);
- with no task at all (a flow, the Python API's ``act``), any password field — the gate
  above still asks before a secret is entered where nobody allowed it.

A URL bar, a search box, a message body, a note or another app's password field gets
:func:`refusal`'s one line instead, and the value never reaches the device.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from omg_agent.core.actions import AskUser, Done, MemSave, Tap, TypeText, Wait
from omg_agent.core.observation import Observation, UIElement
from omg_agent.core.secrets import SecretVault, placeholder
from omg_agent.drivers.ports import Planned
from omg_agent.drivers.profiles import app_matches, app_named_in
from omg_agent.perception.labels import is_secret_field

_KEEP_FOCUS = (Wait, MemSave, AskUser, Done)  # actions that leave the focused field alone


def is_secret_input(field: UIElement) -> bool:
    """Whether ``field`` is an input for a secret, by what it is (not what it holds)."""
    short_id = field.resource_id.rpartition("/")[2]
    return field.password or (field.editable and is_secret_field(
        short_id, field.desc, field.hint) is not None)


def refusal(vault: SecretVault, text: str, field: UIElement | None,
            screen: Observation | None) -> str | None:
    """Why ``text`` (with the vault's placeholders) may not be typed into ``field`` (on
    ``screen``), in one line — or ``None`` when it may."""
    names = vault.used(text)
    if not names:
        return None
    if field is None:
        shown = placeholder(names[0])
        return (f"refused: {shown} is typed only into a password field, and which field "
                "would take this text is not known — target the password field")
    where = _where(field)
    package = field.package or (screen.package if screen is not None else "")
    for name in names:
        bound = vault.binding(name)
        if bound.field is not None and field.editable and _is_field(bound.field, field) \
                and bound.app is not None and app_matches(bound.app, package):
            continue  # the very field the user named (a user name, an account number)
        if not is_secret_input(field):
            return (f"refused: {placeholder(name)} may be typed only into a password field; "
                    f"{where} is not one (bind it to a field with --secret {name}@APP:FIELD)")
        if bound.app is not None:
            if not app_matches(bound.app, package):
                return (f"refused: {placeholder(name)} may be typed only in {bound.app}; "
                        f"{where} is in {package or 'an unknown app'}")
            if bound.field is not None:
                return (f"refused: {placeholder(name)} may be typed only into {bound}; "
                        f"{where} is another field")
        elif vault.task is not None and not app_named_in(vault.task, package):
            return (f"refused: {placeholder(name)} may be typed only into a password field "
                    f"of the app the task names; {where} is in {package or 'an unknown app'}"
                    f" (bind it with --secret {name}@APP:FIELD)")
    return None


def typed_fields(planned: Sequence[Planned], screen: Observation | None
                 ) -> Iterator[tuple[Planned, UIElement | None]]:
    """Each planned ``type`` with the field its text goes into: its resolved target, else
    the field focused by then — the screen's, or one a tap earlier in the segment focused;
    after any other input the focus is unknown (``None``)."""
    focus = screen.focused if screen is not None else None
    for plan in planned:
        action = plan.action
        if isinstance(action, TypeText):
            field = plan.element if action.target is not None else focus
            yield plan, field
            focus = field
        elif isinstance(action, Tap) and plan.element is not None and plan.element.editable:
            focus = plan.element
        elif not isinstance(action, _KEEP_FOCUS):
            focus = None


def _is_field(name: str, field: UIElement) -> bool:
    want = name.strip().casefold()
    return want in (field.resource_id.casefold(),
                    field.resource_id.rpartition("/")[2].casefold(),
                    field.hint.strip().casefold(), field.desc.strip().casefold())


def _where(field: UIElement) -> str:
    label = field.resource_id.rpartition("/")[2] or field.hint or field.desc or field.role
    return f'the field "{label}"'


__all__ = ["is_secret_input", "refusal", "typed_fields"]
