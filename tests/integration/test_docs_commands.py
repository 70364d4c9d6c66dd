"""Every shell command the README and docs/ show runs as written, from a folder outside the
checkout with the project's venv on PATH, and ends with the exit code the page expects (0
unless it says otherwise). Commands that need what CI has not — a real phone, a provider's
key, minutes of benchmark — are marked skip with the reason in the page's source; the
checkout's setup commands are checked to name scripts and programs that exist.

Each page's chain of commands gets its own folder, HOME and adb server; the vphone and
endpoint ports the docs show (5555, 8765) become free ones, and a value the docs show as
captured (a vphone's serial, a run folder) becomes the one this run printed. Chains run side
by side. The convention: tests/integration/docs_commands.py, docs/reference/docs-check.md.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import threading
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.integration.docs_commands import ROOT, Block, all_blocks, blocks_in

VENV_BIN = Path(sys.executable).parent
PORTS = ("5555", "8765")  # the vphone and sim-serve ports the docs show
TIMEOUT_S = 120.0
SETUP_PROGRAMS = {"python", "pip", "mkdocs", "pytest"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Chain:
    """One page's chain of commands in a shell of its own: folder, HOME, adb server."""

    def __init__(self, name: str, blocks: list[Block], base: Path) -> None:
        self.name, self.blocks = name, blocks
        self.work, home = base / "work", base / "home"
        self.work.mkdir(parents=True)
        home.mkdir()
        self.state = base / "env.sh"
        self.state.write_text("")
        self.adb_port = _free_port()
        self.subs = {port: str(_free_port()) for port in PORTS}
        keep = {k: v for k, v in os.environ.items()
                if not k.startswith(("OMG_", "OPENAI_", "XDG_", "ANDROID_"))}
        self.env = {**keep, "PATH": f"{VENV_BIN}{os.pathsep}{keep.get('PATH', '')}",
                    "HOME": str(home), "ANDROID_ADB_SERVER_PORT": str(self.adb_port),
                    "PYTHONPATH": str(ROOT), "COLUMNS": "200", "NO_COLOR": "1",
                    "TERM": "dumb"}
        self.background: list[tuple[subprocess.Popen[str], threading.Thread]] = []
        self.failures: list[str] = []

    def substitute(self, command: str) -> str:
        for text, value in sorted(self.subs.items(), key=lambda sub: -len(sub[0])):
            pattern = rf"(?<!\d){re.escape(text)}(?!\d)" if text.isdigit() else re.escape(text)
            command = re.sub(pattern, value, command)
        return command

    def _script(self, command: str) -> str:
        return (f"source {shlex.quote(str(self.state))}\nset -o pipefail\n{command}\n"
                f"rc=$?\nexport -p > {shlex.quote(str(self.state))}\nexit $rc\n")

    def _capture(self, block: Block, output: str, *, last: bool) -> None:
        """Take the block's captures its output holds so far; at its end, each must have."""
        for text, pattern in block.captures:
            found = [m.group(1) for m in pattern.finditer(output)]
            if found:
                self.subs[text] = found[-1]  # the latest: a block may print several
            elif last:
                self.failures.append(f"{block.where}: nothing in the output matched "
                                     f"{pattern.pattern!r} (to stand for {text!r}):\n"
                                     f"{output[-1500:]}")

    def _start(self, block: Block, command: str) -> None:
        proc = subprocess.Popen(["bash", "-c", self._script(f"exec {command}")],
                                cwd=self.work, env=self.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                if all(p.search("".join(lines)) for _, p in block.captures):
                    ready.set()
            ready.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        self.background.append((proc, reader))
        if not ready.wait(TIMEOUT_S) or proc.poll() is not None:
            self.failures.append(f"{block.where}: `{command}` (background) did not start:\n"
                                 + "".join(lines)[-1500:])
            return
        self._capture(block, "".join(lines), last=True)

    def _serve_sim(self, serial: str) -> None:
        """The chain's model: ``sim serve`` on a free port, named by OMG_BASE_URL; its phone
        stands for ``serial`` (when the page names one)."""
        port = _free_port()
        serve = Block(self.name, 0, [f"omg-agent sim serve --port {port}"], background=True,
                      captures=[(serial or "<sim serve's vphone>",
                                 re.compile(r"driving vphone (\S+)"))])
        self._start(serve, serve.commands[0])
        self.env.update(OMG_BASE_URL=f"http://127.0.0.1:{port}/v1", OMG_MODEL="sim")

    def run(self) -> list[str]:
        subprocess.run(["adb", "-P", str(self.adb_port), "start-server"], env=self.env,
                       capture_output=True, check=True, timeout=60)
        try:
            for block in self.blocks:
                for name, text in block.files.items():
                    (self.work / name).write_text(text, encoding="utf-8")
            sims = [block.sim for block in self.blocks if block.sim is not None]
            if sims:
                self._serve_sim(sims[0])
            for block in self.blocks:
                if not self._block(block):
                    break
        finally:
            self.close()
        return self.failures

    def _block(self, block: Block) -> bool:
        output = ""
        for shown in block.commands:
            command = self.substitute(shown)
            if block.background:
                self._start(block, command)
                return not self.failures
            done = subprocess.run(["bash", "-c", self._script(command)], cwd=self.work,
                                  env=self.env, stdin=subprocess.DEVNULL, text=True,
                                  capture_output=True, timeout=TIMEOUT_S)
            output += done.stdout + done.stderr
            self._capture(block, output, last=False)
            if done.returncode != block.exit_code:
                self.failures.append(
                    f"{block.where}: `{shown}` exited {done.returncode} (the page expects "
                    f"{block.exit_code}); ran `{command}` in {self.work}:\n"
                    f"{(done.stdout + done.stderr)[-2000:]}")
                return False
        self._capture(block, output, last=True)
        return not self.failures

    def close(self) -> None:
        for proc, _ in self.background:
            proc.terminate()
        for proc, reader in self.background:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            reader.join(timeout=30)
            if proc.stdout is not None:
                proc.stdout.close()
        listed = subprocess.run(["omg-agent", "vphone", "list", "--json"], cwd=self.work,
                                env=self.env, capture_output=True, text=True, timeout=60)
        for phone in json.loads(listed.stdout or "[]") if listed.returncode == 0 else []:
            subprocess.run(["omg-agent", "vphone", "stop", "--port", str(phone["port"])],
                           cwd=self.work, env=self.env, capture_output=True, timeout=60)
        subprocess.run(["adb", "-P", str(self.adb_port), "kill-server"], env=self.env,
                       capture_output=True, timeout=60)


def _chains(blocks: list[Block]) -> dict[tuple[str, str], list[Block]]:
    chains: dict[tuple[str, str], list[Block]] = {}
    for block in blocks:
        if block.skip is None and not block.setup:
            chains.setdefault((block.page, block.chain), []).append(block)
    return chains


def _setup_problems(block: Block) -> list[str]:
    """What a setup command names that the checkout does not have."""
    scripts = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"])
    problems = []
    for command in block.commands:
        for word in shlex.split(command):
            if word.startswith("scripts/") and not (ROOT / word).is_file():
                problems.append(f"{block.where}: `{command}` names {word}, which is not there")
            if word.startswith(".venv/bin/") and word[10:] not in scripts | SETUP_PROGRAMS:
                problems.append(f"{block.where}: `{command}` runs {word}, which setup does "
                                "not install")
    return problems


def test_the_pages_mark_what_they_do_not_run() -> None:
    """Every block is run, checked as setup, or skipped with a reason; the README's two
    quick-start commands are the setup blocks."""
    blocks = all_blocks()
    assert sum(len(b.commands) for b in blocks if b.skip is None and not b.setup) >= 40
    readme = [b for b in blocks_in(ROOT / "README.md") if b.setup]
    assert [c for b in readme for c in b.commands] == [
        "bash scripts/setup.sh && .venv/bin/omg-agent demo",
        "bash scripts/setup.sh && .venv/bin/python -m pytest -q -n 3 --maxschedchunk 2"]
    problems = [p for b in blocks if b.setup for p in _setup_problems(b)]
    assert not problems, "\n".join(problems)


@pytest.mark.timeout(900)  # ~70 commands, each a new process: 2 min on a loaded 2-core machine
def test_every_command_in_the_docs_runs(tmp_path_factory: pytest.TempPathFactory) -> None:
    chains = [Chain(f"{page}#{name}", blocks, tmp_path_factory.mktemp("docs-commands"))
              for (page, name), blocks in _chains(all_blocks()).items()]
    assert all(not str(c.work).startswith(str(ROOT)) for c in chains)
    chains.sort(key=lambda chain: -sum(len(b.commands) for b in chain.blocks))
    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = [f for found in pool.map(Chain.run, chains) for f in found]
    assert not failures, "\n\n".join(failures)
