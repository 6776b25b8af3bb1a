"""File-changing tools: write_file, edit_file, delete_file, move_file.

Paths resolve through ``Workspace`` (``paths.py``); whether the change may happen at all is
decided before the call by the permission check (these tools have the ``write`` effect).
Files and folders are then opened without following a symlink swapped in since the check
(``nofollow.py``), so the change lands where the check said.
edit_file replaces an exact substring and refuses a guess: no match, or several matches
without ``replace_all``, is an error that says how many.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from milk_tui.agents.tools.nofollow import folder_of, lstat_in, open_file
from milk_tui.agents.tools.paths import ToolFailure, Workspace

EDIT_MAX_BYTES = 10 * 1024 * 1024
"""edit_file reads the whole file; larger files are refused rather than loaded."""


def write_file(ws: Workspace, path: str, content: str) -> str:
    target = ws.path(path)
    if target.is_dir():
        raise ToolFailure(f"{path}: is a directory")
    data = content.encode()
    with os.fdopen(_open_to_replace(target, path, create=True), "wb") as f:
        f.write(data)
    return f"wrote {ws.show(target)} ({len(data)} bytes)"


def edit_file(
    ws: Workspace, path: str, old_string: str, new_string: str, replace_all: bool = False
) -> str:
    if not old_string:
        raise ToolFailure("old_string must not be empty (use write_file to create a file)")
    target = ws.path(path)
    if not target.is_file():
        raise ToolFailure(f"{path}: no such file")
    with os.fdopen(open_file(target, os.O_RDONLY), "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > EDIT_MAX_BYTES:
            raise ToolFailure(f"{path}: too large to edit ({size} bytes)")
        raw = f.read()
    if b"\x00" in raw[:8192]:
        raise ToolFailure(f"{path}: binary file; edit_file changes text only")
    text = raw.decode(errors="surrogateescape")
    found = text.count(old_string)
    if found == 0:
        raise ToolFailure(f"{path}: old_string not found (0 matches); it must match exactly")
    if found > 1 and not replace_all:
        raise ToolFailure(
            f"{path}: old_string is ambiguous ({found} matches); add surrounding lines to "
            "make it unique, or set replace_all"
        )
    new = (
        text.replace(old_string, new_string)
        if replace_all
        else text.replace(old_string, new_string, 1)
    )
    with os.fdopen(_open_to_replace(target, path), "wb") as f:
        f.write(new.encode(errors="surrogateescape"))
    extra = f" ({found} replacements)" if found > 1 else ""
    return f"edited {ws.show(target)}{extra}"


def _open_to_replace(target: Path, path: str, *, create: bool = False) -> int:
    """``target`` opened to be written from empty, refused unless it is one regular file:
    a hard link shares its content with another name, which may be outside the working
    folder (a path check sees only this name), and a FIFO or device would block or act
    elsewhere.  Checked on the open descriptor, before anything is truncated."""
    flags = os.O_WRONLY | os.O_NONBLOCK | (os.O_CREAT if create else 0)
    fd = open_file(target, flags, create_folders=create)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ToolFailure(f"{path}: not a regular file; not written")
        if st.st_nlink > 1:
            raise ToolFailure(
                f"{path}: has {st.st_nlink} hard links, and writing it would change the same "
                "file under its other names, which may be outside the working folder; not "
                "written (copy it to a new file first)"
            )
        os.set_blocking(fd, True)
        os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


def delete_file(ws: Workspace, path: str) -> str:
    target = ws.entry(path)
    try:
        with folder_of(target) as folder:
            if stat.S_ISDIR(lstat_in(folder, target.name).st_mode):
                raise ToolFailure(f"{path}: is a directory; delete_file removes files only")
            os.unlink(target.name, dir_fd=folder)
    except FileNotFoundError:
        raise ToolFailure(f"{path}: no such file") from None
    return f"deleted {ws.show(target)}"


def move_file(ws: Workspace, source: str, destination: str) -> str:
    src = ws.entry(source)
    dst = ws.entry(destination)
    if not src.is_symlink() and not src.exists():
        raise ToolFailure(f"{source}: no such file or directory")
    if dst.is_dir() and not dst.is_symlink():
        raise ToolFailure(f"{destination}: is an existing directory; give the full new path")
    with folder_of(src) as src_folder, folder_of(dst, create=True) as dst_folder:
        try:
            os.replace(src.name, dst.name, src_dir_fd=src_folder, dst_dir_fd=dst_folder)
        except OSError as e:
            if e.errno != 18:  # EXDEV: another file system, so copy then remove
                raise
            shutil.move(src, dst)
    return f"moved {ws.show(src)} → {ws.show(dst)}"
