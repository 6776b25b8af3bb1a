"""``milk-tui tasks``: a real subprocess on a real database (an old one too)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from milk_tui.testing.cli_run import run_milk

OLD_DB = Path(__file__).parent.parent / "fixtures" / "db-0.1.0" / "milk.db"


def _cli(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MILK_HOME": str(home)}
    env.pop("MILK_CONFIG", None)
    return run_milk(*args, cwd=cwd, env=env)


def _json(home: Path, cwd: Path, *args: str) -> object:
    out = _cli(home, cwd, *args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_add_list_done_with_json_rows_on_a_database_from_before_tasks(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(OLD_DB, home / "milk.db")
    # the folder of a session 0.1.0 wrote
    cwd = Path(json.loads(_cli(home, home, "sessions", "list", "--all", "--json").stdout)[0]["cwd"])
    cwd.mkdir(parents=True, exist_ok=True)
    assert _json(home, cwd, "tasks", "list") == []
    added = _json(home, cwd, "tasks", "add", "write", "the", "tests")
    assert isinstance(added, dict) and set(added) == {"id", "text", "status", "scope"}
    assert added["text"] == "write the tests" and added["scope"] == "session"
    glob = _json(home, cwd, "tasks", "add", "--global", "everywhere")
    assert isinstance(glob, dict) and glob["scope"] == "global"
    done = _json(home, cwd, "tasks", "done", added["id"][:4])
    assert isinstance(done, dict) and done["status"] == "done"
    rows = _json(home, cwd, "tasks", "list")
    assert rows == [dict(added, status="done"), glob]
    assert _json(home, cwd, "tasks", "list", "--global") == [glob]


def test_bad_ids_and_hostile_text_get_one_line_and_stay_inert(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "p"
    cwd.mkdir()
    out = _cli(home, cwd, "tasks", "done", "abcd")
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    out = _cli(home, cwd, "tasks", "add", "--global", "evil \x1b]52;c;aGk=\x07 \x1b[2J text")
    assert out.returncode == 0, out.stderr
    out = _cli(home, cwd, "tasks", "list", "--global")
    assert "evil" in out.stdout and "\x1b" not in out.stdout and "\x07" not in out.stdout
    out = _cli(home, cwd, "tasks", "done", "--global", "zz")
    assert out.returncode == 1 and "at least 4" in out.stderr and "Traceback" not in out.stderr
