"""The macro store: macros on disk, per app and device profile, versioned, written atomically.

Layout under the store's root::

    <app package>/<WIDTHxHEIGHT>/<macro name>/v<N>.json

Saving a macro whose content differs from its latest version writes version N+1 (the same
content is not written twice); old versions stay for ``show --version`` and rollback. Every
file is written to a temporary name in the same folder and renamed over the target
(``os.replace``), so a crash never leaves half a macro. ``rm`` removes a macro with all its
versions.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from omg_agent.core.observation import Observation
from omg_agent.durable import disk_trouble, write_atomic
from omg_agent.errors import ConfigError, DiskTrouble
from omg_agent.macros.items import container_of
from omg_agent.macros.model import Macro

_VERSION = re.compile(r"^v(\d+)\.json$")
_SAFE = re.compile(r"^[A-Za-z0-9_.-]+$")


@dataclass(frozen=True)
class StoredMacro:
    macro: Macro
    version: int
    path: Path

    @property
    def key(self) -> tuple[str, str, str]:
        return self.macro.app, self.macro.profile, self.macro.name


class MacroStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    # -- writing ---------------------------------------------------------------------------
    def save(self, macro: Macro) -> StoredMacro:
        """Store ``macro`` as a new version (unless the latest one is the same)."""
        folder = self._folder(macro.app, macro.profile or "any", macro.name)
        versions = _versions(folder)
        if versions:
            latest = self._load(folder / f"v{versions[-1]}.json")
            if latest.macro.model_dump(exclude={"version"}) == \
                    macro.model_dump(exclude={"version"}):
                return latest
        number = versions[-1] + 1 if versions else 1
        path = folder / f"v{number}.json"
        folder.mkdir(parents=True, exist_ok=True)
        body = {"store_version": number, "macro": macro.model_dump(mode="json")}
        write_atomic(path, json.dumps(body, ensure_ascii=False, indent=1) + "\n")
        return StoredMacro(macro, number, path)

    def remove(self, name: str, *, app: str | None = None, profile: str | None = None) -> int:
        """Delete every version of the macros named ``name``; how many macros went."""
        hits = {s.path.parent for s in self.stored() if s.macro.name == name
                and (app is None or s.macro.app == app)
                and (profile is None or s.macro.profile == profile)}
        for folder in hits:
            shutil.rmtree(folder)
        return len(hits)

    # -- reading ---------------------------------------------------------------------------
    def stored(self) -> list[StoredMacro]:
        """The latest version of every stored macro."""
        out: list[StoredMacro] = []
        if not self.root.is_dir():
            return out
        for folder in sorted(p for p in self.root.glob("*/*/*") if p.is_dir()):
            versions = _versions(folder)
            if versions:
                out.append(self._load(folder / f"v{versions[-1]}.json"))
        return out

    def get(self, name: str, *, app: str | None = None, profile: str | None = None,
            version: int | None = None) -> StoredMacro:
        """One macro by name (``app``/``profile`` pick among same-named ones)."""
        hits = [s for s in self.stored() if s.macro.name == name
                and (app is None or s.macro.app == app)
                and (profile is None or s.macro.profile == profile)]
        if not hits:
            known = ", ".join(sorted({s.macro.name for s in self.stored()})) or "none"
            raise ConfigError(f"no stored macro named {name!r} (stored: {known})")
        if len(hits) > 1:
            where = ", ".join(f"{s.macro.app} {s.macro.profile}" for s in hits)
            raise ConfigError(f"{len(hits)} macros are named {name!r} ({where}); pass --app "
                              "or --profile")
        if version is None:
            return hits[0]
        path = hits[0].path.parent / f"v{version}.json"
        if not path.is_file():
            have = ", ".join(str(v) for v in _versions(path.parent))
            raise ConfigError(f"macro {name!r} has no version {version} (versions: {have})")
        return self._load(path)

    def versions(self, stored: StoredMacro) -> list[int]:
        return _versions(stored.path.parent)

    def matching(self, obs: Observation) -> Macro | None:
        """A stored macro for the app and screen size in ``obs`` whose list is on it."""
        profile = f"{obs.size[0]}x{obs.size[1]}"
        for stored in self.stored():
            m = stored.macro
            if m.app == obs.package and m.profile in (profile, "any") and \
                    container_of(obs.elements, m.container) is not None:
                return m
        return None

    # -- internals -------------------------------------------------------------------------
    def _folder(self, app: str, profile: str, name: str) -> Path:
        for part, what in ((app, "app"), (profile, "profile"), (name, "name")):
            if not _SAFE.match(part):
                raise ConfigError(f"macro {what} {part!r} is not a safe file name "
                                  "(letters, digits, '.', '_', '-')")
        return self.root / app / profile / name

    @staticmethod
    def _load(path: Path) -> StoredMacro:
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
            macro = Macro.model_validate(body["macro"])
            return StoredMacro(macro, int(body["store_version"]), path)
        except (OSError, ValueError, KeyError, TypeError, ValidationError) as exc:
            if isinstance(exc, OSError) and disk_trouble(exc):
                raise DiskTrouble(exc) from None  # the disk's fault, not the macro's
            raise ConfigError(f"{path}: not a stored macro ({exc})") from None


def _versions(folder: Path) -> list[int]:
    if not folder.is_dir():
        return []
    return sorted(int(m.group(1)) for p in folder.iterdir() if (m := _VERSION.match(p.name)))
