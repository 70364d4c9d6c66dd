"""How every command's ``--help`` names its parameters: the one place, for the whole app.

typer's rich help shows a Python type beside each parameter (``--json <bool>``,
``--device <list[str]>``, ``--vphones <int range> [0<=x<=64]``) and a required argument
as ``{run_dir}`` in the usage line. A user reads none of that. :class:`PlainHelpGroup` is the
root group's class (:func:`omg_agent.cli.build_app`): when the app is built it walks every
command below it once and shows

- a flag as itself: ``--connect``;
- an option that takes a value with a metavar: its own if the command gave one
  (``--planning MODE``, ``--device SERIAL``), else its long name in capitals (``--port
  PORT``, ``--max-steps MAX_STEPS``);
- an argument in capitals, ``[TASK]`` in the usage line when it may be left out;
- a number's bounds in words after its help (``[at least 1]``, ``[from 0 to 64]``).

Validation is untouched: typer checks values and bounds from the parameter's declaration.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperGroup, TyperOption


class _PlainOption(TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        if self.is_flag or self.count:
            return None
        return self.metavar

    def _get_number_range_help_str(self) -> str | None:
        return None


class _PlainArgument(TyperArgument):
    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")

    def _get_number_range_help_str(self) -> str | None:
        return None


def bounds_in_words(low: float | None, high: float | None) -> str | None:
    """``at least 1``, ``at most 5``, ``from 0 to 64`` — or None for an unbounded number."""
    if low is None and high is None:
        return None
    if high is None:
        return f"at least {low}"
    if low is None:
        return f"at most {high}"
    return f"from {low} to {high}"


def _given(metavar: str | None) -> bool:
    """A metavar the command wrote itself (typer never sets one on its own)."""
    return bool(metavar) and not str(metavar).startswith(("<", "{"))


def _option_metavar(param: TyperOption) -> str:
    longs = [opt for opt in param.opts if opt.startswith("--")] or list(param.opts)
    return max(longs, key=len).lstrip("-").replace("-", "_").upper()


def plain(param: Any) -> None:
    """Show ``param`` in help as described in this module's docstring (once)."""
    if isinstance(param, (_PlainOption, _PlainArgument)):
        return
    if isinstance(param, TyperOption):
        param.__class__ = _PlainOption
        if not (param.is_flag or param.count or _given(param.metavar)):
            param.metavar = _option_metavar(param)
    elif isinstance(param, TyperArgument):
        param.__class__ = _PlainArgument
        param.metavar = str(param.metavar if _given(param.metavar) else param.name).upper()
    else:
        return
    bounds = bounds_in_words(getattr(param, "min", None), getattr(param, "max", None))
    if bounds and not getattr(param, "count", False):
        help_text = getattr(param, "help", None) or ""
        param.help = f"{help_text}  [{bounds}]" if help_text else f"[{bounds}]"


def plain_commands(command: Any, help_names: list[str]) -> None:
    """:func:`plain` for every parameter of ``command`` and of every command below it, its
    ``--help`` included (made now with ``help_names``: click makes it once per command)."""
    for param in command.params:
        plain(param)
    help_option = command.get_help_option(command.context_class(
        command, help_option_names=help_names))
    if help_option is not None:
        plain(help_option)
    for sub in getattr(command, "commands", {}).values():
        plain_commands(sub, help_names)


class PlainHelpGroup(TyperGroup):
    """The root group: built once the whole tree of commands under it is built, so its
    constructor shows every parameter of the app plainly (:func:`plain_commands`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        plain_commands(self, (self.context_settings or {}).get("help_option_names", ["--help"]))

    def get_params(self, ctx: Any) -> list[Any]:
        """Its parameters, typer's shell-completion options (added after the constructor)
        shown plainly too."""
        params: list[Any] = super().get_params(ctx)
        for param in params:
            plain(param)
        return params


__all__ = ["PlainHelpGroup", "bounds_in_words", "plain", "plain_commands"]
