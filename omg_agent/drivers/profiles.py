"""Device profiles: what OMG-Agent knows about a phone model, read from YAML files.

A profile says a model's screen size and density, its status/navigation bar bands (the
safe zone of :class:`~omg_agent.core.geometry.ScreenGeometry` and the masks of the screen
hash come from them), its IME and keyboard quirks, per-brand notes, and app name → package
aliases in English and Chinese. One YAML file per model ships in ``omg_agent/device_profiles``;
profiles probed from unknown phones (:mod:`omg_agent.drivers.probe`) are saved to a user
directory that the caller passes in (:func:`default_profile_dir` by convention).

``_common.yaml`` is merged into every profile when it loads, in three layers: the common app
aliases, then the profile brand's aliases, notes and quirks, then the profile's own — a name
claimed twice goes to the later layer ("Camera" is ``com.sec.android.app.camera`` on a
Samsung). Files are validated against the models of :mod:`.profile_spec`; a bad file
raises :class:`~omg_agent.errors.ConfigError` naming the file and the field.

    load_profile("pixel-7")                       one profile by file name
    match_profile(model, brand, size, density)    the best profile for a connected device
    resolve_app("微信", profile)                   "com.tencent.mm"
"""

from __future__ import annotations

import functools
import logging
import os
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from omg_agent.drivers.appnames import lookup_app, normalize_name
from omg_agent.drivers.profile_spec import BrandSpec, CommonSpec, DeviceProfileSpec
from omg_agent.durable import write_atomic
from omg_agent.errors import ConfigError

log = logging.getLogger(__name__)

PROFILE_PACKAGE = "omg_agent.device_profiles"
COMMON_NAME = "_common"
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")

STATUS_BAR_DP = 24  # bars of a phone nobody measured (what the probe falls back to)
NAV_BAR_DP = 48


# -- files --------------------------------------------------------------------------------
def builtin_dir() -> Traversable:
    """The shipped profiles (package data)."""
    return resources.files(PROFILE_PACKAGE)


def default_profile_dir() -> Path:
    """Where probed profiles go by convention ($XDG_CONFIG_HOME or ~/.config); callers pass
    it explicitly."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "omg-agent" / "device_profiles"


def _read_yaml(source: Traversable | Path, label: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read device profile {label}: {e}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"device profile {label} is not valid YAML: {e}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"device profile {label}: expected a mapping of fields at the top, "
                          f"got {type(data).__name__}")
    return data


def _invalid(label: str, error: ValidationError) -> ConfigError:
    problems = []
    for item in error.errors():
        field = ".".join(str(p) for p in item["loc"]) or "<top level>"
        problems.append(f"field '{field}': {item['msg']}")
    return ConfigError(f"invalid device profile {label}: " + "; ".join(problems))


def load_common() -> CommonSpec:
    source = builtin_dir() / f"{COMMON_NAME}.yaml"
    try:
        return CommonSpec.model_validate(_read_yaml(source, str(source)))
    except ValidationError as e:
        raise _invalid(str(source), e) from None


def merge_apps(*layers: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """Alias tables merged; a name claimed by a later layer leaves its earlier package."""
    owner: dict[str, tuple[str, str]] = {}
    for layer in layers:
        for package, names in layer.items():
            for name in names:
                owner[normalize_name(name)] = (package, name)
    merged: dict[str, list[str]] = {}
    for package, name in owner.values():
        merged.setdefault(package, []).append(name)
    return {package: tuple(names) for package, names in merged.items()}


def build_profile(raw: Mapping[str, Any], name: str, *, label: str = "",
                  common: CommonSpec | None = None) -> DeviceProfileSpec:
    """A profile from its file's fields: common and brand layers merged, then validated."""
    label = label or name
    data = dict(raw)
    if data.get("name", name) != name:
        raise ConfigError(f"invalid device profile {label}: field 'name': {data['name']!r} "
                          f"differs from the file name {name!r}")
    data["name"] = name
    try:
        own = DeviceProfileSpec.model_validate(data)
    except ValidationError as e:
        raise _invalid(label, e) from None
    common = common or load_common()
    brand = common.brand(own.brand, own.manufacturer) or BrandSpec()
    return own.model_copy(update={
        "apps": merge_apps(common.apps, brand.apps, own.apps),
        "notes": (*brand.notes, *own.notes),
        "keyboard_quirks": (*brand.keyboard_quirks, *own.keyboard_quirks)})


def _check_name(name: str) -> str:
    if not _NAME_RE.fullmatch(name):
        raise ConfigError(f"bad device profile name {name!r}: use lower-case letters, digits, "
                          "'.', '-' and '_' (no path)")
    return name


def _sources(dirs: Iterable[Path]) -> dict[str, Traversable | Path]:
    """Profile name → file; earlier ``dirs`` win over later ones and over the shipped ones."""
    found: dict[str, Traversable | Path] = {}
    for directory in (*dirs, builtin_dir()):
        if not directory.is_dir():
            continue
        for entry in sorted(directory.iterdir(), key=lambda e: e.name):
            stem, dot, ext = entry.name.rpartition(".")
            if dot and ext == "yaml" and _NAME_RE.fullmatch(stem) and entry.is_file():
                found.setdefault(stem, entry)
    return found


def profile_fields(name: str, dirs: Sequence[Path] = ()) -> tuple[dict[str, Any], str]:
    """The fields written in profile ``name``'s file (nothing merged) and the file's path."""
    sources = _sources(dirs)
    source = sources.get(_check_name(name))
    if source is None:
        raise ConfigError(f"no device profile {name!r}; known: {', '.join(sorted(sources))}")
    return _read_yaml(source, str(source)), str(source)


def load_profile(name: str, dirs: Sequence[Path] = ()) -> DeviceProfileSpec:
    """The profile ``name`` (file stem) from ``dirs`` (first wins) or the shipped ones."""
    raw, label = profile_fields(name, dirs)
    return build_profile(raw, name, label=label)


def available_profiles(dirs: Sequence[Path] = ()) -> list[DeviceProfileSpec]:
    """Every profile, shipped and in ``dirs``, sorted by name (a name in ``dirs`` wins)."""
    common = load_common()
    return [build_profile(_read_yaml(src, str(src)), name, label=str(src), common=common)
            for name, src in sorted(_sources(dirs).items())]


def profile_name_for(brand: str, model: str) -> str:
    """A file name for a probed device: ``"Xiaomi", "23021RAAEG"`` → ``xiaomi-23021raaeg``."""
    text = unicodedata.normalize("NFKD", f"{brand} {model}").encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "device"


def save_profile(raw: Mapping[str, Any], save_dir: Path, name: str) -> DeviceProfileSpec:
    """Validate the fields of a profile, write them to ``save_dir/name.yaml`` atomically."""
    spec = build_profile(raw, _check_name(name), label=str(save_dir / f"{name}.yaml"))
    save_dir.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(dict(raw), allow_unicode=True, sort_keys=False, width=100)
    write_atomic(save_dir / f"{name}.yaml", text)
    log.info("saved device profile %s to %s", name, save_dir)
    return spec


def update_profile(name: str, save_dir: Path, **fields: Any) -> DeviceProfileSpec:
    """Set top-level ``fields`` (plain data) in the saved profile ``save_dir/name.yaml``."""
    path = save_dir / f"{_check_name(name)}.yaml"
    raw = _read_yaml(path, str(path))
    raw.update(fields)
    return save_profile(raw, save_dir, name)


# -- matching and aliases -----------------------------------------------------------------
def _match_score(p: DeviceProfileSpec, model: str, brand: str,
                 size: tuple[int, int] | None, density: int | None) -> int:
    model_hit = bool(model) and normalize_name(model) in {normalize_name(m) for m in p.models}
    brand_hit = bool(brand) and brand.lower() in {p.brand, p.manufacturer.lower()} - {""}
    size_hit = size is not None and tuple(size) in {(p.width, p.height), (p.height, p.width)}
    density_hit = density is not None and density == p.density
    if not (model_hit or (brand_hit and size_hit and density_hit)):
        return 0
    return 8 * model_hit + 4 * brand_hit + 2 * size_hit + density_hit


def match_profile(model: str, brand: str, size: tuple[int, int] | None = None,
                  density: int | None = None, *,
                  profiles: Iterable[DeviceProfileSpec] | None = None,
                  dirs: Sequence[Path] = ()) -> DeviceProfileSpec | None:
    """The profile that best fits a device, or ``None`` (then probe it).

    A profile fits when it lists the device's ``model`` (ro.product.model), or has its brand,
    screen size and density all at once. A fitting profile of another screen size (the user
    changed the resolution) comes back resized with :meth:`DeviceProfileSpec.for_screen`.
    """
    candidates = available_profiles(dirs) if profiles is None else list(profiles)
    scored = [(_match_score(p, model, brand, size, density), p) for p in candidates]
    best_score, best = max(scored, key=lambda sp: sp[0], default=(0, None))
    if best is None or best_score == 0:
        log.debug("no device profile fits %s %s %s@%s", brand, model, size, density)
        return None
    if size is not None and tuple(size) != best.size:
        return best.for_screen(size[0], size[1], density)
    return best


def resolve_app(name: str, profile: DeviceProfileSpec | None = None) -> str | None:
    """The package a person means by ``name`` (see :func:`appnames.lookup_app`); without a
    profile, the common aliases are used."""
    return lookup_app(name, profile.apps if profile is not None else load_common().apps)


def app_matches(wanted: str, package: str) -> bool:
    """A package, an app name that is one of the package's name parts ("Settings" →
    com.android.settings), or a name the device profiles give the package (信息 →
    com.omg.messages)."""
    if not package:
        return False
    if wanted == package:
        return True
    key = normalize_name(wanted)
    return any(key == normalize_name(part) for part in package.split(".")) \
        or key in {normalize_name(a) for a in _aliases().get(package, ())}


def app_named_in(text: str, package: str) -> bool:
    """Whether ``text`` (a task) names the app of ``package``: the package itself, its last
    name part ("Login" for com.omg.login) or a name the device profiles give it (Chrome,
    谷歌浏览器), as whole words — "Sign in to Login" names com.omg.login, "login" inside
    "loginless" does not."""
    if not package:
        return False
    folded = unicodedata.normalize("NFKC", text).casefold()
    for name in (package, package.rsplit(".", 1)[-1], *_aliases().get(package, ())):
        key = unicodedata.normalize("NFKC", name).casefold().strip()
        if not key:
            continue
        if not key.isascii():
            if key in folded:
                return True
            continue
        words = r"\s+".join(map(re.escape, key.split()))
        if re.search(rf"(?<![a-z0-9_]){words}(?![a-z0-9_])", folded):
            return True
    return False


@functools.cache
def _aliases() -> dict[str, tuple[str, ...]]:
    """Every package's names (English and Chinese) over the shipped device profiles."""
    found: dict[str, list[str]] = {}
    for profile in available_profiles():
        for package, aliases in profile.apps.items():
            found.setdefault(package, []).extend(aliases)
    return {package: tuple(dict.fromkeys(names)) for package, names in found.items()}


def driver_profile(width: int, height: int, density: int, *, brand: str = "",
                   model: str = "", given: DeviceProfileSpec | None = None,
                   match: bool = False, status_bar: int | None = None,
                   nav_bar: int | None = None) -> DeviceProfileSpec:
    """The one profile a driver works from, for the screen it read from the device.

    ``given`` (resized to this screen), else — with ``match`` — the shipped profile that
    fits the device, else an estimate: 24 dp / 48 dp bars and, when matching was asked for,
    the common app aliases. ``status_bar`` / ``nav_bar`` (pixels) override the bars.
    """
    if given is None and match:
        given = match_profile(model, brand, (width, height), density)
    if given is not None:
        profile = given.for_screen(width, height, density)
    else:
        profile = DeviceProfileSpec(
            name="estimated", brand=brand.strip().lower(), models=(model,) if model else (),
            width=width, height=height, density=density,
            status_bar_height=round(STATUS_BAR_DP * density / 160),
            nav_bar_height=round(NAV_BAR_DP * density / 160), bars_source="default",
            apps=load_common().apps if match else {})
    bars = {k: v for k, v in (("status_bar_height", status_bar), ("nav_bar_height", nav_bar))
            if v is not None}
    return profile.model_copy(update=bars) if bars else profile


def probe_profile(device: Any, save_dir: Path | None = None) -> DeviceProfileSpec:
    """Measure an unknown device and save its profile; see :mod:`omg_agent.drivers.probe`."""
    from omg_agent.drivers.probe import probe_profile as probe  # probe imports this module

    return probe(device, save_dir)
