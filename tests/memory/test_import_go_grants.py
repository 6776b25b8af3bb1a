"""``import-go`` brings over a Go install's per-folder tool grants."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from milk_tui.facade.admin import Admin
from milk_tui.facade.permissions import for_folder
from milk_tui.memory.import_go import import_go
from milk_tui.storage.db import Database
from milk_tui.storage.permission_grants import GrantStore


def _md5(s: str) -> str:
    return hashlib.md5(s.encode()).hexdigest()


def _go_install(root: Path, cwd: str) -> None:
    sessions = root / "sessions"
    sessions.mkdir(parents=True)
    sid = "6f1c2a9e-4b1d-4c1e-9a55-0d6f3b2c1a01"
    (sessions / f"{sid}.json").write_text(json.dumps({"id": sid, "cwd": cwd, "history": []}))
    perms = root / "permissions"
    perms.mkdir()
    (perms / f"{_md5(cwd)}.json").write_text(json.dumps({"allowed_tools": ["bash", "edit_file"]}))
    (perms / f"{_md5('/somewhere/else')}.json").write_text('{"allowed_tools": ["bash"]}')


def test_go_grant_files_map_to_the_imported_sessions_folders(db: Database, tmp_path: Path) -> None:
    cwd = str(tmp_path / "proj")
    _go_install(tmp_path / ".milk", cwd)
    grants = GrantStore(tmp_path / "grants")
    report = import_go(db, tmp_path / ".milk", grants)
    assert report.grant_files == 1
    assert grants.allowed(cwd) == {"bash", "edit_file"}
    (unmatched,) = [w for w in report.warnings if "grants not imported" in w]
    assert _md5("/somewhere/else") in unmatched
    assert import_go(db, tmp_path / ".milk", grants).grant_files == 1  # again: harmless
    assert grants.allowed(cwd) == {"bash", "edit_file"}


def test_admin_import_writes_the_grants_the_permission_check_reads(
    db: Database, tmp_path: Path
) -> None:
    cwd = str(tmp_path / "proj")
    _go_install(tmp_path / ".milk", cwd)
    report = Admin(db).import_go(tmp_path / ".milk")
    assert "tool grants: 1 folders" in report.summary()
    assert for_folder(cwd).show().tools == ("bash", "edit_file")
