"""The vphone's font lookup on any host, and doctor's adb hint per OS (issue 28, item 6)."""

from __future__ import annotations

import importlib.util
import platform
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from omg_agent import doctor
from omg_agent.vphone import adbhost
from omg_agent.vphone.ui import fonts

DEBIAN_CJK = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
PACKAGED = importlib.util.find_spec("noto_cjk_sans_otc") is not None


@pytest.fixture
def font_dirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """OMG_FONT_DIRS points at an empty folder: the host's fonts are hidden."""
    folder = tmp_path / "fonts"
    folder.mkdir()
    monkeypatch.setenv(fonts.FONT_DIRS_ENV, str(folder))
    fonts.reset()
    yield folder
    monkeypatch.undo()
    fonts.reset()


def ink(font: ImageFont.FreeTypeFont | ImageFont.ImageFont, text: str) -> Image.Image:
    image = Image.new("L", (200, 60), 0)
    ImageDraw.Draw(image).text((4, 4), text, font=font, fill=255)
    return image


def test_a_windows_font_name_is_found_in_the_font_folders_on_any_host(font_dirs: Path) -> None:
    if not DEBIAN_CJK.exists():
        pytest.skip(f"needs a CJK font file to stand in for msyh.ttc ({DEBIAN_CJK})")
    (font_dirs / "sub").mkdir()
    shutil.copyfile(DEBIAN_CJK, font_dirs / "sub" / "msyh.ttc")
    assert fonts.text_faces()[0] == (str(font_dirs / "sub" / "msyh.ttc"), 0)
    assert fonts.text_font(20).getname()[0].startswith("Noto Sans CJK")


def test_the_os_font_folders_are_searched_per_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(fonts.FONT_DIRS_ENV, raising=False)
    monkeypatch.setenv("WINDIR", r"D:\Win")
    assert Path(r"D:\Win") / "Fonts" in fonts.system_font_dirs("Windows")
    mac = fonts.system_font_dirs("Darwin")
    assert Path("/System/Library/Fonts") in mac and Path("/Library/Fonts") in mac
    assert Path("/usr/share/fonts") in fonts.system_font_dirs("Linux")
    monkeypatch.setenv(fonts.FONT_DIRS_ENV, "")
    assert fonts.system_font_dirs("Linux") == []


@pytest.mark.skipif(not PACKAGED, reason="noto-cjk-sans-otc (a dependency) is not installed")
def test_with_the_host_fonts_hidden_chinese_is_drawn_with_the_packaged_font(
        font_dirs: Path) -> None:
    path, index = fonts.text_faces()[0]
    assert Path(path).parent.name == "noto_cjk_sans_otc" and index == 2
    assert fonts.missing_fonts() == []
    drawn = ink(fonts.text_font(32), "设置中文")
    tofu = ink(ImageFont.load_default(size=32), "设置中文")  # a font without CJK glyphs
    assert drawn.getbbox() is not None and drawn.tobytes() != tofu.tobytes()
    check = doctor.check_fonts()
    assert check.status == "ok" and "noto_cjk_sans_otc" in check.detail


@pytest.mark.parametrize(("system", "words"), [
    ("Linux", "apt-get install -y adb"), ("Darwin", "brew install android-platform-tools"),
    ("Windows", "winget install Google.PlatformTools"), ("Plan9", "Platform-Tools")])
def test_doctor_says_how_to_get_adb_on_each_os_in_one_line(system: str, words: str) -> None:
    hint = doctor.install_adb_hint(system)
    assert words in hint and "\n" not in hint


def test_without_adb_on_path_the_copy_bundled_with_adbutils_is_used(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bundled = adbhost.bundled_adb()
    if bundled is None:
        pytest.skip(f"adbutils ships no adb for {platform.system()} {platform.machine()}")
    monkeypatch.setenv("PATH", str(tmp_path))  # a folder without adb
    assert adbhost.adb_path() == bundled
    check = doctor.check_adb()
    assert check.status == "ok" and "bundled with adbutils" in check.detail
    assert "Android Debug Bridge" in check.detail
