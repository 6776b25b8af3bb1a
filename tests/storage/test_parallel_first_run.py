"""Ten ``-p`` runs started together in a new folder share the one session the first of
them created (looking for the folder's session and creating it is one transaction)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from milk_tui.storage.db import Database
from milk_tui.testing.cli_run import MILK_COMMAND
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

RUNS = 10


@pytest.mark.timeout(240)
def test_parallel_first_runs_in_a_new_folder_share_one_session(
    milk_home: Path, tmp_path: Path
) -> None:
    work = tmp_path / "new-project"
    work.mkdir()
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["ok "] * 5, delay=0.01)
        (milk_home / "config.toml").write_text(
            f'agent = "fake"\nescalation_agent = "demo"\n'
            f'[[agents]]\nname = "fake"\nprovider = "local"\nurl = "{srv.url}"\nmodel = "m"\n'
            '[[agents]]\nname = "demo"\nprovider = "demo"\n'
        )
        procs = [
            subprocess.Popen(
                [*MILK_COMMAND, "-p", f"parallel question {i}", "--primary"],
                cwd=work,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=os.environ.copy(),
            )
            for i in range(RUNS)
        ]
        for p in procs:
            _, err = p.communicate(timeout=200)
            assert p.returncode == 0, err.decode(errors="replace")
    db = Database(milk_home / "milk.db")
    try:
        rows = db.query("SELECT id FROM sessions WHERE cwd = ?", (str(work),))
        assert len(rows) == 1, f"{len(rows)} sessions for one folder"
        assert db.query("SELECT COUNT(*) FROM turns")[0][0] == 2 * RUNS
    finally:
        db.close()


RESUME_AT = """
import sys, time
from milk_tui.storage.db import Database
from milk_tui.storage.sessions import SessionStore

store = SessionStore(Database(sys.argv[1]))
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))  # all start looking at one instant
print(store.resume("/new-folder").id)
"""


@pytest.mark.timeout(120)
def test_processes_resuming_at_one_instant_get_one_session(tmp_path: Path) -> None:
    path = tmp_path / "milk.db"
    Database(path).close()
    at = str(time.time() + 3)
    procs = [
        subprocess.Popen(
            [*MILK_COMMAND[:1], "-c", RESUME_AT, str(path), at],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(RUNS)
    ]
    ids = {p.communicate(timeout=100)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert len(ids) == 1, f"{len(ids)} sessions"
