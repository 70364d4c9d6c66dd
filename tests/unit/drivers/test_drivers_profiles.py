"""Device profiles: every shipped YAML loads, aliases resolve in English and Chinese, bad
files are reported by file and field, and a connected device finds its profile."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from omg_agent.core.geometry import ScreenGeometry
from omg_agent.drivers.profiles import (
    DeviceProfileSpec,
    available_profiles,
    builtin_dir,
    driver_profile,
    load_common,
    load_profile,
    match_profile,
    normalize_name,
    profile_name_for,
    resolve_app,
    save_profile,
    update_profile,
)
from omg_agent.errors import ConfigError
from omg_agent.perception.screenhash import ScreenHash
from omg_agent.vphone.profile import PROFILES as VPHONE_PROFILES

SHIPPED = sorted(e.name.removesuffix(".yaml") for e in builtin_dir().iterdir()
                 if e.name.endswith(".yaml") and not e.name.startswith("_"))
VPHONE_NAMES = [f"vphone-{name}" for name in VPHONE_PROFILES]


def _has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_profile_loads_with_a_usable_geometry(name: str) -> None:
    profile = load_profile(name)
    assert profile.name == name
    assert isinstance(profile.geometry(), ScreenGeometry)
    assert profile.apps["com.android.settings"]  # the common layer is merged in
    assert ScreenHash.for_profile(profile).status_bar == profile.status_bar_height


def test_there_is_a_profile_per_vphone_profile_and_some_real_models() -> None:
    assert set(VPHONE_NAMES) <= set(SHIPPED)
    assert {"pixel-7", "redmi-note-12", "galaxy-s23", "huawei-p30"} <= set(SHIPPED)
    assert [p.name for p in available_profiles()] == SHIPPED


@pytest.mark.parametrize("key", sorted(VPHONE_PROFILES))
def test_vphone_profiles_match_the_simulator_exactly(key: str) -> None:
    sim = VPHONE_PROFILES[key]
    spec = load_profile(f"vphone-{key}")
    assert (spec.width, spec.height, spec.density) == (sim.width, sim.height, sim.density)
    assert (spec.status_bar_height, spec.nav_bar_height) == (sim.status_bar_height,
                                                             sim.nav_bar_height)
    assert sim.model in spec.models and spec.brand == sim.brand


def test_every_common_app_has_an_english_and_a_chinese_name() -> None:
    for package, names in load_common().apps.items():
        assert any(n.isascii() for n in names), package
        if package not in {"com.zhiliaoapp.musically"}:  # TikTok is not sold in China
            assert any(_has_cjk(n) for n in names), package


@pytest.mark.parametrize(("query", "profile", "package"), [
    ("Settings", "pixel-7", "com.android.settings"),
    ("设置", "galaxy-s23", "com.android.settings"),
    ("settings", "vphone-default", "com.android.settings"),
    ("WeChat", "redmi-note-12", "com.tencent.mm"),
    ("微信", "huawei-p30", "com.tencent.mm"),
    ("ＷｅＣｈａｔ", "pixel-7", "com.tencent.mm"),  # full-width letters
    ("We Chat", "pixel-7", "com.tencent.mm"),
    ("打开微信", "pixel-7", "com.tencent.mm"),
    ("WeChat app", "pixel-7", "com.tencent.mm"),
    ("淘宝", "pixel-7", "com.taobao.taobao"),
    ("Taobao", "pixel-7", "com.taobao.taobao"),
    ("支付宝", "redmi-note-12", "com.eg.android.AlipayGphone"),
    ("alipay", "redmi-note-12", "com.eg.android.AlipayGphone"),
    ("Chrome", "galaxy-s23", "com.android.chrome"),
    ("Camera", "pixel-7", "com.google.android.GoogleCamera"),
    ("相机", "redmi-note-12", "com.android.camera"),
    ("Camera", "galaxy-s23", "com.sec.android.app.camera"),
    ("相機", "huawei-p30", "com.huawei.camera"),
    ("Camera", "vphone-default", "com.android.camera2"),
    ("Notes", "vphone-default", "com.omg.notes"),
    ("备忘录", "vphone-compact", "com.omg.notes"),
    ("备忘录", "huawei-p30", "com.example.android.notepad"),
    ("Shop", "vphone-tablet", "com.omg.shop"),
    ("商城", "vphone-default", "com.omg.shop"),
    ("Messages", "vphone-default", "com.omg.messages"),
    ("信息", "vphone-legacy", "com.omg.messages"),
    ("Messages", "pixel-7", "com.google.android.apps.messaging"),
    ("Feed", "vphone-default", "com.omg.feed"),
    ("动态", "vphone-default", "com.omg.feed"),
    ("Login", "vphone-default", "com.omg.login"),
    ("登录", "vphone-default", "com.omg.login"),
    ("Home", "vphone-default", "com.android.launcher3"),
    ("桌面", "vphone-default", "com.android.launcher3"),
    ("桌面", "redmi-note-12", "com.miui.home"),
    ("com.omg.notes", "vphone-default", "com.omg.notes"),
    ("com.example.any", "vphone-default", "com.example.any"),  # a package passes through
])
def test_app_names_resolve_in_english_and_chinese(query: str, profile: str,
                                                  package: str) -> None:
    assert resolve_app(query, load_profile(profile)) == package


@pytest.mark.parametrize("query", ["", "   ", "No Such App", "不存在的应用"])
def test_unknown_app_names_resolve_to_none(query: str) -> None:
    assert resolve_app(query, load_profile("vphone-default")) is None


def test_without_a_profile_the_common_aliases_are_used() -> None:
    assert resolve_app("微信") == "com.tencent.mm"
    assert resolve_app("Notes") is None


def test_normalize_name_ignores_width_case_and_spacing() -> None:
    assert normalize_name("Ｇｏｏｇｌｅ  Maps") == normalize_name("google-maps") == "googlemaps"


# -- bad files ---------------------------------------------------------------------------
GOOD = {"title": "Test", "brand": "acme", "models": ["A1"], "width": 1080, "height": 2400,
        "density": 440, "status_bar_height": 100, "nav_bar_height": 60}


def _write(directory: Path, name: str, data: object) -> Path:
    path = directory / f"{name}.yaml"
    text = data if isinstance(data, str) else yaml.safe_dump(data, allow_unicode=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("change", "field"), [
    ({"width": -5}, "width"),
    ({"density": "high"}, "density"),
    ({"widht": 1080}, "widht"),
    ({"ime": {"adb_keyboard": "maybe"}}, "ime.adb_keyboard"),
    ({"apps": {"not a package": ["X"]}}, "apps"),
    ({"bars_source": "guessed"}, "bars_source"),
    ({"status_bar_height": 2000, "nav_bar_height": 500}, "<top level>"),
])
def test_a_bad_profile_is_reported_with_its_file_and_field(tmp_path: Path, change: dict,
                                                         field: str) -> None:
    path = _write(tmp_path, "broken", {**GOOD, **change})
    with pytest.raises(ConfigError) as info:
        load_profile("broken", [tmp_path])
    message = str(info.value)
    assert str(path) in message and f"field '{field}'" in message


def test_a_name_given_to_two_packages_in_one_file_is_named(tmp_path: Path) -> None:
    _write(tmp_path, "dup", {**GOOD, "apps": {"com.a.x": ["Mail"], "com.b.y": ["mail"]}})
    with pytest.raises(ConfigError, match=r"dup\.yaml.*'apps'.*com\.a\.x and com\.b\.y"):
        load_profile("dup", [tmp_path])


def test_broken_yaml_syntax_names_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "syntax", "width: [1080\nheight: 2400\n")
    with pytest.raises(ConfigError, match="not valid YAML") as info:
        load_profile("syntax", [tmp_path])
    assert str(path) in str(info.value)


def test_a_list_at_the_top_level_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "alist", "- 1\n- 2\n")
    with pytest.raises(ConfigError, match="expected a mapping"):
        load_profile("alist", [tmp_path])


def test_unknown_or_unsafe_profile_names_are_refused() -> None:
    with pytest.raises(ConfigError, match="known: .*pixel-7"):
        load_profile("no-such-phone")
    with pytest.raises(ConfigError, match="no path"):
        load_profile("../etc/passwd")


# -- user directories, saving -------------------------------------------------------------
def test_a_profile_in_a_user_dir_wins_over_the_shipped_one(tmp_path: Path) -> None:
    _write(tmp_path, "pixel-7", {**GOOD, "brand": "google", "title": "mine"})
    assert load_profile("pixel-7", [tmp_path]).title == "mine"
    assert load_profile("pixel-7").title == "Google Pixel 7"


def test_saved_profiles_keep_only_their_own_fields_and_reload_equal(tmp_path: Path) -> None:
    spec = save_profile({**GOOD, "brand": "xiaomi", "apps": {"com.acme.a": ["Acme", "艾克"]}},
                        tmp_path, "acme-a1")
    written = yaml.safe_load((tmp_path / "acme-a1.yaml").read_text(encoding="utf-8"))
    assert written["apps"] == {"com.acme.a": ["Acme", "艾克"]}  # the common layer is not copied
    assert load_profile("acme-a1", [tmp_path]) == spec
    assert resolve_app("艾克", spec) == "com.acme.a"
    assert resolve_app("相机", spec) == "com.android.camera"  # brand layer (xiaomi)
    assert any("Security settings" in note for note in spec.notes)


def test_update_profile_rewrites_one_field(tmp_path: Path) -> None:
    save_profile(GOOD, tmp_path, "acme-a1")
    spec = update_profile("acme-a1", tmp_path, driver={"preferred": "u2", "u2_observe_ms": 9.5})
    assert spec.driver is not None and spec.driver.preferred == "u2"
    assert load_profile("acme-a1", [tmp_path]) == spec


def test_profile_names_for_probed_devices_are_file_safe() -> None:
    assert profile_name_for("Xiaomi", "23021RAAEG") == "xiaomi-23021raaeg"
    assert profile_name_for("omg", "vPhone 1") == "omg-vphone-1"
    assert profile_name_for("", "") == "device"


# -- matching ---------------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(VPHONE_PROFILES))
def test_match_profile_picks_the_vphone_profile_for_a_vphone(key: str) -> None:
    sim = VPHONE_PROFILES[key]
    found = match_profile(sim.model, sim.brand, (sim.width, sim.height), sim.density)
    assert found is not None and found.name == f"vphone-{key}"
    assert found == load_profile(f"vphone-{key}")


def test_match_profile_knows_real_models_by_their_model_string() -> None:
    found = match_profile("SM-S911B", "samsung", (1080, 2340), 480)
    assert found is not None and found.name == "galaxy-s23"
    found = match_profile("Pixel 7", "google", (1080, 2400), 420)
    assert found is not None and found.name == "pixel-7"


def test_an_unlisted_model_of_a_known_brand_and_screen_gets_the_brand_profile() -> None:
    found = match_profile("2201117TG", "xiaomi", (1080, 2400), 440)
    assert found is not None and found.name == "redmi-note-12"


def test_an_unknown_device_matches_nothing() -> None:
    assert match_profile("X1", "acme", (1080, 2400), 440) is None
    assert match_profile("", "", None, None) is None


def test_a_known_model_at_another_resolution_comes_back_rescaled() -> None:
    found = match_profile("SM-S911B", "samsung", (720, 1560), 320)
    assert found is not None and found.name == "galaxy-s23"
    assert found.size == (720, 1560) and found.density == 320
    assert found.status_bar_height == round(96 * 320 / 480)


def test_spec_is_frozen() -> None:
    spec = load_profile("vphone-default")
    assert isinstance(spec, DeviceProfileSpec)
    with pytest.raises(ValueError):
        spec.width = 1  # type: ignore[misc]


# -- the one profile a driver works from --------------------------------------------------
def test_a_driver_profile_is_the_given_one_resized_else_matched_else_estimated() -> None:
    shipped = load_profile("vphone-default")
    resized = driver_profile(540, 1200, 220, given=shipped)
    assert (resized.status_bar_height, resized.nav_bar_height) == (55, 33)
    matched = driver_profile(1080, 2400, 440, brand="OMG", model="vPhone 1", match=True)
    assert matched.name == "vphone-default" and matched.aliases()["备忘录"] == "com.omg.notes"
    guess = driver_profile(1080, 2400, 440, brand="Acme", model="X1")
    assert (guess.status_bar_height, guess.nav_bar_height) == (66, 132)  # 24 dp / 48 dp
    assert guess.brand == "acme" and guess.aliases() == {}
    common = driver_profile(1080, 2400, 440, brand="Acme", model="X1", match=True)
    assert common.name == "estimated" and common.aliases()["设置"] == "com.android.settings"
    fixed = driver_profile(1080, 2400, 440, given=shipped, status_bar=100, nav_bar=0)
    assert fixed.geometry().safe_zone.top == 100 and fixed.nav_bar_height == 0
