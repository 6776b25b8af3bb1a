"""``milk-tui permissions list | grant | revoke`` for the current folder."""

from __future__ import annotations

import io
import json
from pathlib import Path

from milk_tui.cli import build_parser
from milk_tui.cli.permissions_cmd import run_permissions
from milk_tui.testing.cli_run import run_milk


def cmd(cwd: Path, *argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(["permissions", *argv])
    out, err = io.StringIO(), io.StringIO()
    return run_permissions(args, str(cwd), out, err), out.getvalue(), err.getvalue()


def test_grant_list_revoke_round_trip(tmp_path: Path) -> None:
    assert cmd(tmp_path, "list")[1] == f"no tools granted in {tmp_path}\n"
    rc, out, _ = cmd(tmp_path, "grant", "bash", "write_file")
    assert rc == 0 and out == f"granted in {tmp_path}: bash, write_file\n"
    assert cmd(tmp_path, "list")[1] == "bash\nwrite_file\n"
    listed = json.loads(cmd(tmp_path, "list", "--json")[1])
    assert listed["cwd"] == str(tmp_path.resolve())
    assert listed["allowed_tools"] == ["bash", "write_file"]
    assert Path(listed["file"]).exists()
    revoked = f"revoked in {tmp_path}: bash\nstill granted: write_file\n"
    assert cmd(tmp_path, "revoke", "bash")[1] == revoked
    assert cmd(tmp_path / "other", "list")[1].startswith("no tools granted")


def test_a_corrupt_grant_file_is_a_warning(tmp_path: Path) -> None:
    cmd(tmp_path, "grant", "bash")
    path = Path(json.loads(cmd(tmp_path, "list", "--json")[1])["file"])
    path.write_text("[1, 2")
    rc, out, err = cmd(tmp_path, "list")
    assert rc == 0 and out.startswith("no tools granted") and "warning" in err


def test_the_real_command_line(tmp_path: Path) -> None:
    r = run_milk("permissions", "grant", "http_get", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_milk("permissions", "list", "--json", cwd=tmp_path)
    assert json.loads(r.stdout)["allowed_tools"] == ["http_get"]
