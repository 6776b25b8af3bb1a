"""A store opened in a fresh process migrates every table a turn's commit writes, whatever
else the process has imported (the TUI opens the session before the engine is loaded)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore

db = Database(sys.argv[1])
SessionStore(db)
names = {r[0] for r in db.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
print(sorted(names))
print(sorted(m for m in sys.modules if m.startswith("milk_tui.engine")))
"""


def test_a_session_store_alone_creates_the_usage_log(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "milk.db")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.splitlines()
    tables = ast.literal_eval(out[0])
    assert {"sessions", "turns", "tokens", "usage_log"} <= set(tables)
    assert out[1] == "[]"  # no engine module was needed for it
