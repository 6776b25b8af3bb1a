"""Issue 25's smaller command-line items as a user meets them: the real ``milk-tui`` as a
subprocess, with its own ``MILK_HOME`` (tests/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

from milk_tui.testing.cli_run import run_milk as milk


def _fact(tmp_path: Path, text: str) -> int:
    r = milk("memory", "add", text, "--scope", "global", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return int(json.loads(r.stdout)["id"])


def test_memory_edit_takes_the_new_text_as_an_argument(tmp_path: Path):
    pid = _fact(tmp_path, "the build uses make")
    r = milk("memory", "edit", str(pid), "the build uses ninja", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"updated #{pid}: the build uses ninja\n", "")
    unquoted = milk("memory", "edit", f"#{pid}", "tabs", "not", "spaces", cwd=tmp_path)
    assert unquoted.returncode == 0 and unquoted.stdout == f"updated #{pid}: tabs not spaces\n"
    listed = milk("memory", "list", "--scope", "global", "--json", cwd=tmp_path)
    assert [p["content"] for p in json.loads(listed.stdout)] == ["tabs not spaces"]
    old_way = milk("memory", "edit", str(pid), "--content", "x y", cwd=tmp_path)
    assert old_way.returncode == 0 and old_way.stdout == f"updated #{pid}: x y\n"


def test_memory_edit_refusals_are_one_line_or_the_subcommand_usage(tmp_path: Path):
    pid = _fact(tmp_path, "kept")
    nothing = milk("memory", "edit", str(pid), cwd=tmp_path)
    assert nothing.returncode == 2
    assert (
        nothing.stderr
        == "milk-tui: nothing to change: give TEXT, --consumer, --weight or --scope\n"
    )
    both = milk("memory", "edit", str(pid), "a", "--content", "b", cwd=tmp_path)
    assert both.returncode == 2 and "not both" in both.stderr
    unknown = milk("memory", "edit", str(pid), "x", "--bogus", cwd=tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("usage: milk-tui memory edit ")
    assert "milk-tui memory edit: error: unrecognized arguments: --bogus" in unknown.stderr
    stray = milk("sessions", "list", "extra", cwd=tmp_path)
    assert stray.stderr.startswith("usage: milk-tui sessions list ")
    listed = milk("memory", "list", "--scope", "global", "--json", cwd=tmp_path)
    assert [p["content"] for p in json.loads(listed.stdout)] == ["kept"]


def test_permissions_revoke_says_what_it_revoked_and_what_was_not_granted(tmp_path: Path):
    assert milk("permissions", "grant", "bash", "write_file", cwd=tmp_path).returncode == 0
    r = milk("permissions", "revoke", "bash", "web_fetch", cwd=tmp_path)
    cwd = str(tmp_path)
    assert r.returncode == 0
    assert r.stdout == f"revoked in {cwd}: bash\nstill granted: write_file\n"
    assert r.stderr == f"milk-tui: not granted in {cwd}, nothing to revoke: web_fetch\n"
    again = milk("permissions", "revoke", "bash", cwd=tmp_path)
    assert again.returncode == 1
    assert again.stdout == "still granted: write_file\n"
    assert again.stderr == f"milk-tui: not granted in {cwd}, nothing to revoke: bash\n"
    last = milk("permissions", "revoke", "write_file", cwd=tmp_path)
    assert last.stdout == f"revoked in {cwd}: write_file\nstill granted: (none)\n"
    assert milk("permissions", "list", cwd=tmp_path).stdout == f"no tools granted in {cwd}\n"


def test_sessions_show_finds_another_folders_session_by_its_full_id(tmp_path: Path):
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    assert milk("-p", "hello", "--demo", cwd=there).returncode == 0
    (row,) = json.loads(milk("sessions", "list", "--json", cwd=there).stdout)
    shown = milk("sessions", "show", row["id"], cwd=here)
    assert shown.returncode == 0, shown.stderr
    assert f"session:   {row['id']}\n" in shown.stdout and f"cwd:       {there}\n" in shown.stdout
    # A prefix or a name still stays in its folder unless --any-folder says otherwise.
    prefix = milk("sessions", "show", row["id"][:10], cwd=here)
    assert prefix.returncode == 1 and "add --any-folder" in prefix.stderr
    assert milk("sessions", "show", row["id"][:10], "--any-folder", cwd=here).returncode == 0
