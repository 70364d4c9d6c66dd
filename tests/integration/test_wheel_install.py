"""A wheel built from this checkout installs into a clean venv and works on a host without the
system's fonts (issue 28, item 6: any host, from a wheel).

``python -m build`` makes the sdist and, from it, the wheel (so the sdist's contents are
checked too); ``python -m venv`` + ``pip install <wheel>`` give a venv that holds no project
checkout: the package comes only from the wheel, its third-party dependencies from the package
index (pip's cache makes a second run cheap). The commands then run from a folder outside the
checkout, with fontconfig pointed at an empty folder and ``OMG_FONT_DIRS`` hiding the OS's font
folders, so only fonts shipped by dependencies are left; OCR reads the Chinese drawn on the
vphone's screen, which tofu boxes would not give.
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
from pathlib import Path

import pytest
from PIL import Image

from omg_agent.perception.ocr import OcrEngine
from omg_agent.vphone.apps.feed import AUTHORS, TOPICS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "omg_agent")
MODEL_ENV = ("OMG_MODEL", "OMG_BASE_URL", "OMG_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL",
             "OMG_CONFIG", "OMG_PLANNER_MODEL", "OMG_OPERATOR_MODEL")
EMPTY_FONTCONFIG = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>{folder}</dir><cachedir>{folder}/cache</cachedir></fontconfig>
"""

pytestmark = [pytest.mark.timeout(1200), pytest.mark.skipif(
    importlib.util.find_spec("build") is None,
    reason="the wheel cannot be built here: the `build` package (in the test extra) is not "
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
    run([sys.executable, "-m", "build", "--outdir", str(tmp / "dist"), str(src)], cwd=tmp)
    (wheel,) = (tmp / "dist").glob("omg_agent-*.whl")
    return wheel


def shipped_data_files() -> set[str]:
    """Every file under omg_agent/ that is not Python: profiles, prompts, flows, pages."""
    package = ROOT / "omg_agent"
    return {p.relative_to(ROOT).as_posix() for p in package.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}


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


def screen_text(png: bytes, tmp: Path) -> list[str]:
    shot = tmp / "feed.png"
    shot.write_bytes(png)
    return [box.text for box in OcrEngine().read(Image.open(shot).convert("RGB"))]


def test_the_wheel_installs_in_a_clean_venv_and_its_vphone_draws_chinese_without_host_fonts(
        tmp_path: Path) -> None:
    adb = shutil.which("adb")
    if adb is None:
        pytest.skip("the vphone's screen is read through the adb binary, not installed here")
    wheel = build_wheel(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    assert shipped_data_files() - names == set()  # profiles, prompts, flows, page templates

    venv = tmp_path / "venv"
    try:
        check_clean_venv(tmp_path, wheel, venv, adb)
    finally:  # ~800 MB: pytest keeps its last three temp folders
        shutil.rmtree(venv, ignore_errors=True)


def check_clean_venv(tmp_path: Path, wheel: Path, venv: Path, adb: str) -> None:
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    run([str(bin_dir / "python"), "-m", "pip", "install", "--no-compile", "-q", str(wheel)],
        cwd=tmp_path, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        timeout=900)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = clean_env(tmp_path, venv, path=os.pathsep.join([str(bin_dir), os.environ["PATH"]]))
    omg = str(bin_dir / "omg-agent")
    where = run([str(bin_dir / "python"), "-c", "import omg_agent; print(omg_agent.__file__)"],
                cwd=outside, env=env).stdout.strip()
    assert Path(where).is_relative_to(venv) and not Path(where).is_relative_to(ROOT)

    # doctor, with no adb on PATH: the adb bundled with adbutils, and the packaged fonts
    adb_port = str(free_port())
    bare = {**clean_env(tmp_path, venv, path=str(bin_dir)), "ANDROID_ADB_SERVER_PORT": adb_port}
    try:
        doctor = json.loads(run([omg, "doctor", "--only", "adb,fonts", "--json"], cwd=outside,
                                env=bare).stdout)
    finally:
        bundled = venv.glob("lib/python*/site-packages/adbutils/binaries/adb")
        for path in bundled:
            subprocess.run([str(path), "-P", adb_port, "kill-server"], capture_output=True,
                           timeout=30, stdin=subprocess.DEVNULL, check=False)
    checks = {c["name"]: c for c in doctor["checks"]}
    assert checks["adb"]["status"] == "ok" and "bundled with adbutils" in checks["adb"]["detail"]
    assert checks["vphone fonts"]["status"] == "ok", checks["vphone fonts"]
    assert "noto_cjk_sans_otc" in checks["vphone fonts"]["detail"]
    assert "NotoEmoji" in checks["vphone fonts"]["detail"]

    port = free_port()
    serial = json.loads(run([omg, "vphone", "start", "--port", str(port), "--connect", "--json"],
                            cwd=outside, env=env).stdout)["serial"]
    try:
        run([adb, "-s", serial, "shell", "am", "start", "-n", "com.omg.feed/.FeedActivity"],
            cwd=outside, env=env)
        png = subprocess.run([adb, "-s", serial, "exec-out", "screencap", "-p"],
                             capture_output=True, timeout=60, check=True).stdout
    finally:
        run([omg, "vphone", "stop", "--port", str(port)], cwd=outside, env=env)
        subprocess.run([adb, "disconnect", serial], capture_output=True, timeout=30, check=False)
    read = " ".join(screen_text(png, tmp_path))
    chinese = [w for w in (*AUTHORS, *TOPICS) if any("\u4e00" <= ch <= "\u9fff" for ch in w)]
    assert any(w in read for w in chinese), f"no Chinese read on the feed: {read!r}"

    demo = json.loads(run([omg, "demo", "--json", "--out", "out"], cwd=outside, env=env).stdout)
    assert demo["status"] == "done" and demo["ok"] is True, demo
    assert Path(demo["report"]).is_file() and Path(demo["report"]).is_relative_to(outside)
