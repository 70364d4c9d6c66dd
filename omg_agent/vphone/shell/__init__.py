"""The vphone's ``/system/bin/sh``: a small POSIX-ish shell plus the Android commands.

``Shell(phone).run(cmdline, io) -> exit status`` is called by adbd for ``adb shell``/``exec:``
streams. See ``runner.py`` for execution, ``lexer.py``/``parse.py`` for the syntax and
``commands/`` for the command table.
"""

from omg_agent.vphone.shell.runner import Shell
from omg_agent.vphone.shell.syntax import ShellSyntaxError

__all__ = ["Shell", "ShellSyntaxError"]
