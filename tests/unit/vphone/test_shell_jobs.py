"""``sh FILE ARGS``, ``$1``/``$#``/``$!``, ``read`` from the live stream, ``kill`` of a
background job and ``wait``: what adbutils' screenrecord script needs (issue 29)."""

from __future__ import annotations

import threading

from omg_agent.vphone.shell import Shell
from omg_agent.vphone.shellio import CollectingIO

try:
    from .shell_fake_phone import FakePhone, run
except ImportError:
    from shell_fake_phone import FakePhone, run


def test_a_script_file_gets_its_arguments(shell: Shell, phone: FakePhone) -> None:
    phone.fs.write("/data/local/tmp/s.sh", b'#!/system/bin/sh\necho "$# $1 [$2]"\n')
    assert run(shell, "sh /data/local/tmp/s.sh a 'b c'") == (0, "2 a [b c]\n", "")
    status, _, err = run(shell, "sh /data/local/tmp/none.sh")
    assert status == 127 and "No such file or directory" in err


def test_read_takes_a_line_the_client_sends_later(shell: Shell) -> None:
    lines = iter(["hello world again"])
    io = CollectingIO()
    io.read_line = lambda: next(lines, None)
    assert shell.run('read A B; echo "$B|$A"; read C || echo eof', io) == 0
    assert io.out == b"world again|hello\neof\n"


def test_read_prefers_a_pipes_stdin(shell: Shell) -> None:
    assert run(shell, "echo piped | read X") == (0, "", "")


def test_kill_ends_a_background_job_and_wait_waits_for_it(shell: Shell) -> None:
    started = threading.Event()
    io = CollectingIO()
    io.read_line = lambda: (started.set(), "go")[1]
    # `sleep 100 &` would run 100 s; kill -INT $! ends it, and wait returns once it has.
    script = "sleep 100 & PID=$!; read ANY; kill -INT $PID; wait; echo done $PID"
    assert shell.run(script, io) == 0
    assert started.is_set()
    out = io.out.decode()
    assert out.startswith("done ") and int(out.split()[1]) > 0
    assert shell.state.jobs == {}
