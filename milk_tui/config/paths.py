"""Where config and data live (docs/interfaces.md, "Paths")."""

from __future__ import annotations

import os
from pathlib import Path

from milk_tui.model.errors import StorageError

APP_NAME = "milk-tui"


def config_dir() -> Path:
    home = os.environ.get("MILK_HOME")
    if home:
        return Path(home)
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME))


def data_dir() -> Path:
    home = os.environ.get("MILK_HOME")
    if home:
        return Path(home)
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def ensure_dir(p: Path) -> Path:
    """Create the directory (0700: it holds the database and logs), or raise one line that
    names the cause, and ``MILK_HOME`` when that is where the path came from.  An existing
    directory keeps its mode: the files in it are created 0600 (docs/adr/0015-no-secret-on-disk.md)."""
    home = os.environ.get("MILK_HOME")
    who = f"MILK_HOME={home}" if home and Path(home) == p else str(p)
    if p.exists() and not p.is_dir():
        raise StorageError(f"{who}: not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as e:
        raise StorageError(f"{who}: cannot create the directory ({e.strerror or e})") from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise StorageError(f"{who}: the directory is not writable")
    return p


def default_config_file() -> Path | None:
    """The first existing config file: ``MILK_CONFIG``, then config.toml, then config.json."""
    explicit = os.environ.get("MILK_CONFIG")
    if explicit:
        return Path(explicit)
    d = config_dir()
    for name in ("config.toml", "config.json"):
        if (d / name).exists():
            return d / name
    return None


def database_file() -> Path:
    return ensure_dir(data_dir()) / "milk.db"


def permissions_dir() -> Path:
    """Where the per-folder tool grants live (``storage.permission_grants``)."""
    return data_dir() / "permissions"
