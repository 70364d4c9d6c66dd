"""A wheel built from this checkout installs as a user installs a tool — ``uv tool install``,
from the wheel alone — with only its core, works there, and then takes extras (issue 28,
item 6: any host, from a wheel; issue 37, item 1: a lean core with extras).

``uv build`` makes the sdist and, from it, the wheel (so the sdist's contents are checked
too; the same setuptools backend as ``python -m build``, the same files, in half its CPU).
``uv tool install <wheel>`` gives a venv that holds no project checkout: the
package comes only from the wheel, its third-party dependencies from the package index (uv's
cache makes a second run cheap; pipx does the same in ~30 s more, pip in a venv too). The
commands then run from a folder outside the checkout, with fontconfig pointed at an empty
folder and ``OMG_FONT_DIRS`` hiding the OS's font folders, so only fonts shipped by
dependencies are left. With the core alone, ``--help``, ``doctor`` (the bundled adb, the
packaged fonts, "OCR not installed" with its one line) and ``demo`` work, and a feature of a
missing extra (``omg-agent mcp``) stops with the one line that says how to install it. Then
``[ocr,video,mcp]`` go into the same venv and each one's feature works: ``observe --ocr``
reads the Chinese the vphone draws on its feed (which tofu boxes would not give), the
vphone's ``screenrecord`` streams H.264, and ``omg-agent mcp`` answers an MCP client's
``initialize``. (``ray``, 207 MB, and ``desktop``, an X display, have their own tests on the
dev venv's ``[all]``.)
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from omg_agent.vphone.apps.feed import AUTHORS, TOPICS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "omg_agent")
MODEL_ENV = ("OMG_MODEL", "OMG_BASE_URL", "OMG_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL",
             "OMG_CONFIG", "OMG_PLANNER_MODEL", "OMG_OPERATOR_MODEL")
EMPTY_FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>{folder}</dir><cachedir>{folder}/cache</cachedir></fontconfig>
"""
NEEDS_MCP = "error: omg-agent mcp needs omg-agent[mcp]: pip install 'omg-agent[mcp]'"
NEEDS_OCR = "OCR needs omg-agent[ocr]: pip install 'omg-agent[ocr]'"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "wheel-test", "version": "1"}}}

pytestmark = [pytest.mark.timeout(1200), pytest.mark.skipif(
    importlib.util.find_spec("uv") is None,
    reason="the wheel cannot be built and installed here: `uv` (in the test extra) is not "
           "installed; `pip install -e '.[test]'`")]


def run(args: list[str], *, cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, f"{args}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_wheel(tmp: Path) -> Path:
    """sdist, then the wheel from it, out of a copy of the sources (the checkout stays clean)."""
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, src / name)
    run([sys.executable, "-m", "uv", "build", "--quiet", "--out-dir", str(tmp / "dist"), str(src)],
        cwd=tmp, env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"})
    (wheel,) = (tmp / "dist").glob("omg_agent-*.whl")
    return wheel


def shipped_data_files() -> set[str]:
    """Every file under omg_agent/ that is not Python: profiles, prompts, flows, pages."""
    package = ROOT / "omg_agent"
    return {p.relative_to(ROOT).as_posix() for p in package.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}


@dataclass(frozen=True)
class Installed:
    """The tool install of the wheel: its venv, the folder of its ``omg-agent`` script."""

    venv: Path
    bin_dir: Path
    uv_env: dict[str, str]

    @property
    def omg(self) -> str:
        return str(self.bin_dir / "omg-agent")


def tool_install(tmp: Path, wheel: Path) -> Installed:
    """``uv tool install <wheel>`` (the core alone), its tools and scripts under ``tmp``."""
    tools, bin_dir = tmp / "tools", tmp / "bin"
    uv_env = {**{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
              "UV_TOOL_DIR": str(tools), "UV_TOOL_BIN_DIR": str(bin_dir),
              "UV_PYTHON_DOWNLOADS": "never"}
    run([sys.executable, "-m", "uv", "tool", "install", "--quiet", "--python", sys.executable,
         str(wheel)], cwd=tmp, env=uv_env, timeout=900)
    return Installed(tools / "omg-agent", bin_dir, uv_env)


def clean_env(tmp: Path, venv: Path, *, path: str) -> dict[str, str]:
    fonts = tmp / "no-fonts"
    (fonts / "cache").mkdir(parents=True, exist_ok=True)
    (tmp / "fonts.conf").write_text(EMPTY_FONTCONFIG.format(folder=fonts), encoding="utf-8")
    # PYTHONDONTWRITEBYTECODE goes too: the venv is a throwaway that pip filled without
    # bytecode (--no-compile), so each command would compile every module it imports from
    # source again; the first one writes the bytecode and the rest read it, as for a user
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE", *MODEL_ENV)}
    return {**env, "PATH": path, "VIRTUAL_ENV": str(venv), "COLUMNS": "200",
            "XDG_RUNTIME_DIR": str(tmp / "run"), "FONTCONFIG_FILE": str(tmp / "fonts.conf"),
            "OMG_FONT_DIRS": str(fonts)}


def test_the_wheel_installs_its_core_as_a_tool_then_its_extras_work_without_host_fonts(
        tmp_path: Path) -> None:
    adb = shutil.which("adb")
    if adb is None:
        pytest.skip("the vphone's screen is read through the adb binary, not installed here")
    wheel = build_wheel(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    assert shipped_data_files() - names == set()  # profiles, prompts, flows, page templates
    try:
        installed = tool_install(tmp_path, wheel)
        outside = tmp_path / "elsewhere"
        outside.mkdir()
        check_core(tmp_path, installed, outside)
        # extras into the same venv, as its pip would add them
        run([sys.executable, "-m", "uv", "pip", "install", "--quiet", "--python",
             str(installed.venv / "bin" / "python"), f"{wheel}[ocr,video,mcp]"], cwd=tmp_path,
            env=installed.uv_env, timeout=900)
        check_extras(tmp_path, installed, outside, adb)
    finally:  # pytest keeps its last three temp folders
        shutil.rmtree(tmp_path / "tools", ignore_errors=True)


def check_core(tmp_path: Path, installed: Installed, outside: Path) -> None:
    """The core alone: the package from the venv, --help, doctor, a missing extra, demo."""
    venv, omg = installed.venv, installed.omg
    env = clean_env(tmp_path, venv, path=os.pathsep.join([str(installed.bin_dir),
                                                          os.environ["PATH"]]))
    where = run([str(venv / "bin" / "python"), "-c",
                 "import omg_agent; print(omg_agent.__file__)"], cwd=outside, env=env)
    assert Path(where.stdout.strip()).is_relative_to(venv)
    assert not Path(where.stdout.strip()).is_relative_to(ROOT)
    assert "demo" in run([omg, "--help"], cwd=outside, env=env).stdout

    # doctor, with no adb on PATH: the adb bundled with adbutils, and the packaged fonts
    adb_port = str(free_port())
    bare = {**clean_env(tmp_path, venv, path=str(installed.bin_dir)),
            "ANDROID_ADB_SERVER_PORT": adb_port}
    try:
        doctor = json.loads(run([omg, "doctor", "--only", "adb,fonts,extras", "--json"],
                                cwd=outside, env=bare).stdout)
    finally:
        for path in venv.glob("lib/python*/site-packages/adbutils/binaries/adb"):
            subprocess.run([str(path), "-P", adb_port, "kill-server"], capture_output=True,
                           timeout=30, stdin=subprocess.DEVNULL, check=False)
    checks = {c["name"]: c for c in doctor["checks"]}
    assert checks["adb"]["status"] == "ok" and "bundled with adbutils" in checks["adb"]["detail"]
    assert checks["vphone fonts"]["status"] == "ok", checks["vphone fonts"]
    assert "noto_cjk_sans_otc" in checks["vphone fonts"]["detail"]
    assert "NotoEmoji" in checks["vphone fonts"]["detail"]
    assert checks["OCR"]["status"] == "warn" and checks["OCR"]["fix"] == NEEDS_OCR
    assert "labelled grid" in checks["OCR"]["detail"]

    # a feature whose extra is missing: one line, how to install it, no traceback
    mcp = subprocess.run([omg, "mcp"], cwd=outside, env=env, capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)
    assert (mcp.returncode, mcp.stderr.strip()) == (1, NEEDS_MCP), mcp.stderr

    # the whole agent on the vphone, perception without OCR: the tree, then the grid
    demo = json.loads(run([omg, "demo", "--json", "--out", "out"], cwd=outside, env=env).stdout)
    assert demo["status"] == "done" and demo["ok"] is True, demo
    assert Path(demo["report"]).is_file() and Path(demo["report"]).is_relative_to(outside)


def check_extras(tmp_path: Path, installed: Installed, outside: Path, adb: str) -> None:
    """[ocr]: ``observe --ocr`` reads the Chinese the vphone draws with packaged fonts;
    [video]: the vphone's ``screenrecord`` streams H.264; [mcp]: ``omg-agent mcp`` serves."""
    omg = installed.omg
    env = clean_env(tmp_path, installed.venv, path=os.pathsep.join([str(installed.bin_dir),
                                                                    os.environ["PATH"]]))
    hello = subprocess.run([omg, "mcp"], cwd=outside, env=env, capture_output=True, text=True,
                           timeout=120, input=json.dumps(INITIALIZE) + "\n")
    assert json.loads(hello.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == (
        "omg-agent"), hello.stderr
    port = free_port()
    serial = json.loads(run([omg, "vphone", "start", "--port", str(port), "--connect", "--json"],
                            cwd=outside, env=env).stdout)["serial"]
    try:
        run([adb, "-s", serial, "shell", "am", "start", "-n", "com.omg.feed/.FeedActivity"],
            cwd=outside, env=env)
        seen = json.loads(run([omg, "observe", "--device", serial, "--ocr", "--json"],
                              cwd=outside, env=env).stdout)
        video = subprocess.run([adb, "-s", serial, "exec-out", "screenrecord", "--time-limit",
                                "1", "--size", "540x1200", "--output-format=h264", "-"],
                               capture_output=True, timeout=60, check=False)
    finally:
        run([omg, "vphone", "stop", "--port", str(port)], cwd=outside, env=env)
        subprocess.run([adb, "disconnect", serial], capture_output=True, timeout=30, check=False)
    assert video.stdout.startswith(b"\x00\x00\x00\x01"), video.stderr  # an H.264 start code
    assert seen["package"] == "com.omg.feed", seen["package"]
    read = " ".join(box["text"] for box in seen["ocr"])
    chinese = [w for w in (*AUTHORS, *TOPICS) if any("\u4e00" <= ch <= "\u9fff" for ch in w)]
    assert any(w in read for w in chinese), f"no Chinese read on the feed: {read!r}"
