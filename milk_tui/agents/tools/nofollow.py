"""Opening an already resolved path so that nothing swapped in since is followed.

A file tool resolves its path (``paths.Workspace``), the permission check decides on that
resolved path, and only then does the tool act.  Between the two a component could be
replaced by a symlink pointing elsewhere; so the act walks the resolved path from ``/``
one component at a time with ``O_NOFOLLOW`` (``openat``), and a symlink met on the way,
or as the last component, is refused instead of followed (open(2), ``O_NOFOLLOW``;
``O_PATH`` on Linux lets the walk pass folders it may search but not list).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from milk_tui.agents.tools.paths import ToolFailure

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR = getattr(os, "O_DIRECTORY", 0) | NOFOLLOW | CLOEXEC | getattr(os, "O_PATH", os.O_RDONLY)
_SWAPPED = (errno.ELOOP, errno.EMLINK, errno.ENOTDIR)
"""What ``open`` with ``O_NOFOLLOW`` says of a symlink (Linux/macOS ELOOP, BSD EMLINK; a
symlink where a folder was expected can also be ENOTDIR)."""


def _swapped(path: Path) -> ToolFailure:
    return ToolFailure(
        f"{path}: changed after it was checked (a symlink or a file now stands where a "
        "folder or file was); not touched"
    )


@contextlib.contextmanager
def folder_of(path: Path, *, create: bool = False) -> Iterator[int]:
    """A descriptor of ``path``'s folder reached without following any symlink; missing
    folders are made when ``create``."""
    fd = os.open("/", _DIR)
    try:
        for part in path.parent.parts[1:]:
            try:
                nxt = os.open(part, _DIR, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
                try:
                    nxt = os.open(part, _DIR, dir_fd=fd)
                except OSError as e:
                    raise _swapped(path) if e.errno in _SWAPPED else e from None
            except OSError as e:
                raise _swapped(path) if e.errno in _SWAPPED else e from None
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


def open_file(path: Path, flags: int, *, create_folders: bool = False) -> int:
    """``os.open`` of a resolved ``path`` that follows no symlink, final one included."""
    with folder_of(path, create=create_folders) as folder:
        try:
            return os.open(path.name, flags | NOFOLLOW | CLOEXEC, 0o666, dir_fd=folder)
        except OSError as e:
            if e.errno in _SWAPPED:
                raise _swapped(path) from None
            raise


def lstat_in(folder: int, name: str) -> os.stat_result:
    return os.stat(name, dir_fd=folder, follow_symlinks=False)
