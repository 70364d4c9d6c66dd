"""The fields of a device profile, validated: the pydantic models behind
:mod:`omg_agent.drivers.profiles` (which reads, merges, matches and saves them).

A :class:`DeviceProfileSpec` is one model (or one probed device) with ``_common.yaml``
already merged in; :class:`CommonSpec` is ``_common.yaml`` itself (common app aliases and
per-brand layers). App tables map a package to the names people call it, and a name may
belong to one package only.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from omg_agent.core.geometry import ScreenGeometry
from omg_agent.drivers.appnames import PACKAGE_RE as _PACKAGE_RE
from omg_agent.drivers.appnames import normalize_name

BarsSource = Literal["published", "estimated", "insets", "windows", "hierarchy", "default"]


def _check_apps(table: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    owner: dict[str, str] = {}
    for package, names in table.items():
        if not _PACKAGE_RE.fullmatch(package):
            raise ValueError(f"{package!r} is not an Android package name")
        for name in names:
            key = normalize_name(name)
            if not key:
                raise ValueError(f"{package}: empty app name")
            other = owner.setdefault(key, package)
            if other != package:
                raise ValueError(f"app name {name!r} is given to both {other} and {package}")
    return table


AppTable = Annotated[dict[str, tuple[str, ...]], AfterValidator(_check_apps)]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ImeSpec(_Spec):
    default: str = Field("", description="The stock IME id (settings secure default_input_method).")
    adb_keyboard: bool | None = Field(
        None, description="An ADB-keyboard IME is installed (None: unknown).")
    installed: tuple[str, ...] = Field((), description="IME ids from `ime list -s` (probed).")
    notes: tuple[str, ...] = ()


class ProbeFacts(_Spec):
    """What :func:`omg_agent.drivers.probe.probe_profile` measured on the device."""

    serial: str = ""
    sdk: int = 0
    release: str = ""
    probed_at: str = ""
    input_allowed: bool | None = None
    input_error: str = ""
    screencap_ms: float | None = None
    screencap_bytes: int = 0


class DriverChoice(_Spec):
    """The driver ``choose_driver(prefer="auto")`` measured as faster, cached per model."""

    preferred: Literal["adb", "u2"]
    adb_observe_ms: float | None = None
    u2_observe_ms: float | None = None
    u2_error: str = ""
    measured_at: str = ""


class BrandSpec(_Spec):
    apps: AppTable = Field(default_factory=dict)
    notes: tuple[str, ...] = ()
    keyboard_quirks: tuple[str, ...] = ()


class CommonSpec(_Spec):
    apps: AppTable = Field(default_factory=dict)
    brands: dict[str, BrandSpec] = Field(default_factory=dict)

    def brand(self, *names: str) -> BrandSpec | None:
        """The entry of the first of ``names`` (brand, manufacturer) the table knows."""
        for name in names:
            spec = self.brands.get(name.strip().lower())
            if spec is not None:
                return spec
        return None


class DeviceProfileSpec(_Spec):
    """One device model (or one probed device), with ``_common.yaml`` already merged in."""

    name: str = Field(description="File name without .yaml.")
    title: str = ""
    brand: str = Field("", description="ro.product.brand, lower case.")
    manufacturer: str = ""
    models: tuple[str, ...] = Field((), description="ro.product.model values of this model.")
    based_on: str = Field("", description="The shipped profile a probed profile started from.")
    width: int = Field(gt=0, le=20_000)
    height: int = Field(gt=0, le=20_000)
    density: int = Field(gt=0, le=2_000)
    status_bar_height: int = Field(ge=0, description="Status bar band, px from the top.")
    nav_bar_height: int = Field(ge=0, description="Navigation bar band, px from the bottom.")
    bars_source: BarsSource = "estimated"
    navigation: Literal["gesture", "buttons", "unknown"] = "unknown"
    ime: ImeSpec = Field(default_factory=ImeSpec)
    keyboard_quirks: tuple[str, ...] = ()
    apps: AppTable = Field(default_factory=dict)
    notes: tuple[str, ...] = ()
    probe: ProbeFacts | None = None
    driver: DriverChoice | None = None

    @model_validator(mode="after")
    def _bars_fit(self) -> DeviceProfileSpec:
        if self.status_bar_height + self.nav_bar_height >= self.height:
            raise ValueError(f"status_bar_height + nav_bar_height ({self.status_bar_height} + "
                             f"{self.nav_bar_height}) leave nothing of height {self.height}")
        if self.brand != self.brand.lower():
            raise ValueError(f"brand must be lower case (as in ro.product.brand): {self.brand!r}")
        return self

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    @property
    def scale(self) -> float:
        """Pixels per dp."""
        return self.density / 160.0

    def px(self, dp: float) -> int:
        return round(dp * self.scale)

    def aliases(self) -> dict[str, str]:
        """App name → package, flat (what ``AdbDriver(aliases=...)`` takes)."""
        return {name: package for package, names in self.apps.items() for name in names}

    def geometry(self, margin: int = 8) -> ScreenGeometry:
        return ScreenGeometry(self.width, self.height, self.status_bar_height,
                              self.nav_bar_height, margin)

    def for_screen(self, width: int, height: int, density: int | None = None) -> DeviceProfileSpec:
        """This profile on a screen set to another size/density (``wm size``): bars rescaled."""
        density = density or self.density
        if (width, height, density) == (self.width, self.height, self.density):
            return self
        factor = density / self.density
        return self.model_copy(update={
            "width": width, "height": height, "density": density,
            "status_bar_height": round(self.status_bar_height * factor),
            "nav_bar_height": round(self.nav_bar_height * factor)})


__all__ = ["AppTable", "BarsSource", "BrandSpec", "CommonSpec", "DeviceProfileSpec",
           "DriverChoice", "ImeSpec", "ProbeFacts"]
