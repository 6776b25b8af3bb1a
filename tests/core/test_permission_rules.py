"""The permission rules, the grant files and the edit preview, each on its own."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from milk_tui.agents.base import PermissionQuestion, ToolSpec
from milk_tui.agents.round_backend import ToolCall
from milk_tui.agents.tool_permission import question_for
from milk_tui.agents.tools.paths import outside_paths
from milk_tui.engine.permission_policy import decide, preview_for, runs_freely
from milk_tui.model.edit_preview import edit_preview
from milk_tui.storage.permission_grants import GrantStore

WRITE = ToolSpec("write_file", "", {"type": "object"}, effect="write", path_args=("path",))
READ = ToolSpec("read_file", "", {"type": "object"}, effect="read", path_args=("path",))


def q(tool: str = "write_file", effect: str = "write", outside: tuple[str, ...] = ()):
    return PermissionQuestion("llama", tool, {}, effect=effect, outside_paths=outside)  # type: ignore[arg-type]


# ----- the order ----------------------------------------------------------------------------


def test_a_read_inside_the_folder_runs_freely_anything_else_is_checked() -> None:
    assert runs_freely(q("read_file", "read"))
    assert not runs_freely(q("read_file", "read", ("../x",)))
    for effect in ("write", "run", "network"):
        assert not runs_freely(q(effect=effect))


def test_skip_allows_before_anything_else() -> None:
    d = decide(q(), root=Path("/"), skip=True, granted=frozenset(), can_ask=False)
    assert d is not None and (d.allowed, d.how) == (True, "skip")


def test_a_grant_for_the_tool_allows_without_asking() -> None:
    d = decide(q(), root=Path("/"), skip=False, granted=frozenset({"write_file"}), can_ask=True)
    assert d is not None and (d.allowed, d.how) == (True, "grant")
    assert (
        decide(
            q("bash", "run"),
            root=Path("/"),
            skip=False,
            granted=frozenset({"write_file"}),
            can_ask=True,
        )
        is None
    )


def test_no_one_to_ask_denies_with_a_reason() -> None:
    d = decide(q(), root=Path("/"), skip=False, granted=frozenset(), can_ask=False)
    assert d is not None and not d.allowed and d.how == "headless"
    assert "--allow-tools" in d.reason and "permissions grant write_file" in d.reason


def test_otherwise_the_user_is_asked() -> None:
    assert decide(q(), root=Path("/"), skip=False, granted=frozenset(), can_ask=True) is None


# ----- paths outside the folder -------------------------------------------------------------


def test_paths_outside_the_folder_via_dotdot_absolute_home_and_symlink(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (root / "link").symlink_to(tmp_path / "elsewhere")
    cwd = str(root)
    args = {
        "a": "sub/../ok.txt",
        "b": "../escape.txt",
        "c": str(tmp_path / "x"),
        "d": "~/x",
        "e": "link/inside-looking.txt",
        "f": str(root / "sub" / "fine.txt"),
    }
    out = outside_paths(cwd, args, ("a", "b", "c", "d", "e", "f", "missing"))
    assert out == ("../escape.txt", str(tmp_path / "x"), "~/x", "link/inside-looking.txt")


def test_question_for_a_call_carries_effect_and_outside_paths(tmp_path: Path) -> None:
    call = ToolCall("c1", "read_file", json.dumps({"path": "../secret"}))
    got, _ = question_for("llama", tmp_path.resolve(), READ, call)
    assert (got.effect, got.outside_paths, got.tool_input) == (
        "read",
        ("../secret",),
        {"path": "../secret"},
    )
    bad, _ = question_for(
        "llama", tmp_path.resolve(), WRITE, ToolCall("c2", "write_file", "{not json")
    )
    assert bad.effect == "write" and bad.tool_input == {}


# ----- grant files --------------------------------------------------------------------------


def test_grants_persist_per_folder_atomically_with_mode_0600(tmp_path: Path) -> None:
    store = GrantStore(tmp_path / "permissions")
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    assert store.grant(a, ["bash", "write_file"]) == {"bash", "write_file"}
    assert GrantStore(tmp_path / "permissions").allowed(a) == {"bash", "write_file"}
    assert store.allowed(b) == frozenset()
    path = store.path_for(a)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {
        "cwd": str(Path(a).resolve()),
        "allowed_tools": ["bash", "write_file"],
    }
    assert store.revoke(a, ["bash"]) == {"write_file"}
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left


def test_a_corrupt_grant_file_is_one_warning_not_a_crash(tmp_path: Path) -> None:
    store = GrantStore(tmp_path)
    store.path_for("/p").write_text("{broken")
    assert store.allowed("/p") == frozenset()
    assert store.allowed("/p") == frozenset()
    (warning,) = store.take_warnings()
    assert "ignored" in warning and str(store.path_for("/p")) in warning
    assert store.grant("/p", ["bash"]) == {"bash"}  # the next grant rewrites it
    assert store.allowed("/p") == {"bash"} and store.take_warnings() == []


def test_a_failed_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = GrantStore(tmp_path / "g")
    store.grant("/p", ["bash"])

    def boom(*a: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        store.grant("/p", ["write_file"])
    assert store.allowed("/p") == {"bash"} and len(list((tmp_path / "g").iterdir())) == 1


# ----- the preview --------------------------------------------------------------------------


def test_edit_preview_is_a_unified_diff_with_three_lines_of_context() -> None:
    current = "".join(f"line {i}\n" for i in range(1, 11))
    diff = edit_preview(
        "edit_file", {"path": "f.txt", "old_string": "line 5\n", "new_string": "five\n"}, current
    )
    assert diff.splitlines() == [
        "--- f.txt",
        "+++ f.txt",
        "@@ -2,7 +2,7 @@",
        " line 2",
        " line 3",
        " line 4",
        "-line 5",
        "+five",
        " line 6",
        " line 7",
        " line 8",
    ]


def test_edit_preview_of_a_new_file_shows_its_first_lines_and_counts_the_rest() -> None:
    content = "".join(f"row {i}\n" for i in range(25))
    lines = edit_preview("write_file", {"path": "new.txt", "content": content}, None).splitlines()
    assert lines[:3] == ["--- /dev/null", "+++ new.txt (new file)", "+row 0"]
    assert lines[-1] == "[+5 lines]" and len(lines) == 2 + 20 + 1


def test_edit_preview_is_empty_for_a_failing_edit_or_another_tool() -> None:
    args = {"path": "f", "old_string": "x", "new_string": "y"}
    assert edit_preview("edit_file", args, "x x") == ""  # ambiguous: the tool will refuse
    assert edit_preview("edit_file", args, None) == ""
    assert edit_preview("bash", {"command": "ls"}, None) == ""
    assert edit_preview("edit_file", {**args, "replace_all": True}, "x x") != ""


def test_preview_for_reads_the_current_file_relative_to_the_folder(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("old\n")
    question = PermissionQuestion(
        "llama", "write_file", {"path": "f.txt", "content": "new\n"}, effect="write"
    )
    assert preview_for(question, str(tmp_path)).splitlines()[-2:] == ["-old", "+new"]
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00")
    binary = PermissionQuestion("llama", "write_file", {"path": "bin", "content": "x"})
    assert preview_for(binary, str(tmp_path)) == ""
