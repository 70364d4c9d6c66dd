"""The vphone shell's commands, one table mapping a command name to its handler.

Each module exports ``COMMANDS: dict[str, handler]``; :func:`build_command_table` merges them
(a duplicate name is a programming error). Handlers are ``handler(ctx, args) -> exit code``
with ``args`` excluding the command name.
"""

from __future__ import annotations

from omg_agent.vphone.shell.commands import (
    am_cmd,
    app_process,
    cond_cmd,
    dumpsys_cmd,
    file_cmds,
    input_cmd,
    log_cmds,
    net_cmds,
    pm_cmds,
    screen_cmds,
    screenrecord_cmd,
    system_cmds,
    text_cmds,
)
from omg_agent.vphone.shell.context import CommandTable

MODULES = (input_cmd, screen_cmds, system_cmds, dumpsys_cmd, am_cmd, pm_cmds, file_cmds,
           text_cmds, cond_cmd, log_cmds, net_cmds, app_process,
           screenrecord_cmd)


def build_command_table() -> CommandTable:
    table: CommandTable = {}
    for module in MODULES:
        clash = table.keys() & module.COMMANDS.keys()
        if clash:
            raise ValueError(f"commands defined twice: {sorted(clash)}")
        table.update(module.COMMANDS)
    return table
