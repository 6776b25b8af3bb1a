"""Import a Go milk install's tool grants (``permissions/<md5 of the folder>.json`` holding
``{"allowed_tools": [...]}``) into our per-folder grant files.

A Go grant file does not name its folder, only the MD5 of the folder path: it is matched
against the folders of the sessions being imported.  A file that matches none is reported,
never guessed.  Grants are added to what the folder already has (importing twice is
harmless).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from milk_tui.storage.permission_grants import GrantStore


def go_folder_key(cwd: str) -> str:
    return hashlib.md5(cwd.encode()).hexdigest()  # noqa: S324 - a file name, not security


def import_go_grants(
    folder: Path, cwds: Iterable[str], grants: GrantStore, warnings: list[str]
) -> int:
    """Grant files imported; unreadable or unmatched ones are added to ``warnings``."""
    if not folder.is_dir():
        return 0
    by_key = {go_folder_key(c): c for c in cwds if c}
    imported = 0
    for path in sorted(folder.glob("*.json")):
        cwd = by_key.get(path.stem)
        if cwd is None:
            warnings.append(f"{path}: grants not imported, no imported session has this folder")
            continue
        try:
            tools = json.loads(path.read_text(encoding="utf-8"))["allowed_tools"]
            if not isinstance(tools, list):
                raise ValueError("allowed_tools is not a list")
        except (OSError, ValueError, KeyError, TypeError) as e:
            warnings.append(f"{path}: grants skipped, cannot read them: {e}")
            continue
        grants.grant(cwd, [str(t) for t in tools if isinstance(t, str) and t])
        imported += 1
    return imported
