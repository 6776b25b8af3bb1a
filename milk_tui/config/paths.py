"""Where config and data live (docs/interfaces.md, "Paths")."""

from __future__ import annotations

import contextlib
import os
import tempfile
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


def write_private(path: Path, text: str, mode: int = 0o600) -> None:
    """Replace ``path`` with ``text`` in one rename (a crash never leaves half a file), with
    ``mode`` (0600: private) from the first byte.  ``OSError`` as the disk raises it; no
    temporary file is left behind then."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


CONFIG_NAMES = ("config.toml", "config.json")
"""The files looked for in a config folder, in this order."""


def go_config_file() -> Path:
    """Where a Go milk install keeps its config (read unchanged when nothing else is found)."""
    return Path.home() / ".milk" / "config.json"


def resolve_config_file() -> tuple[Path | None, str]:
    """The config file to use and how it was found ("" with None: running on defaults).

    ``MILK_CONFIG``; then ``config.toml`` / ``config.json`` in ``MILK_HOME`` or, without it,
    the platform config dir; then a Go install's ``~/.milk/config.json``.  ``MILK_HOME`` is
    a whole home of its own (tests, a second profile): with it set, nothing outside it is
    read.  ``--config`` comes before all of these and is handled by its caller."""
    explicit = os.environ.get("MILK_CONFIG")
    if explicit:
        return Path(explicit), "MILK_CONFIG"
    d = config_dir()
    for name in CONFIG_NAMES:
        if (d / name).exists():
            return d / name, "MILK_HOME" if os.environ.get("MILK_HOME") else "config dir"
    go = go_config_file()
    if not os.environ.get("MILK_HOME") and go.is_file():
        return go, "Go milk"
    return None, ""


def resolution_order() -> list[str]:
    """The places looked at, in order, as a user reads them (``/config``)."""
    d = config_dir()
    where = "MILK_HOME" if os.environ.get("MILK_HOME") else "platform config dir"
    order = [
        "--config PATH",
        "MILK_CONFIG",
        f"{d / CONFIG_NAMES[0]} or {CONFIG_NAMES[1]} ({where})",
    ]
    if not os.environ.get("MILK_HOME"):
        order.append(f"{go_config_file()} (a Go milk install, read as is)")
    return order


def default_config_file() -> Path | None:
    """The file ``resolve_config_file`` finds (None: running on defaults)."""
    return resolve_config_file()[0]


def database_file() -> Path:
    return ensure_dir(data_dir()) / "milk.db"


def workflows_dir() -> Path:
    """Where the dev workflow keeps its checkpoints and role outputs
    (``engine.workflow.files``)."""
    return data_dir() / "workflows"


def permissions_dir() -> Path:
    """Where the per-folder tool grants live (``storage.permission_grants``)."""
    return data_dir() / "permissions"
