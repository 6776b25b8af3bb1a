"""Action file tools on the real filesystem: write, edit, delete, move, find, big and binary
files, and the confinement switch both ways."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from milk_tui.agents.base import ToolOutcome
from milk_tui.agents.tools import BuiltinToolBox, CompositeToolBox
from milk_tui.agents.tools import files as fs
from milk_tui.agents.tools.paths import outside_paths
from milk_tui.agents.tools.specs import SPECS


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "proj"
    (r / "src").mkdir(parents=True)
    (r / "src" / "a.py").write_text("x = 1\ny = 1\n")
    (r / "node_modules" / "dep").mkdir(parents=True)
    (r / "node_modules" / "dep" / "skip.py").write_text("")
    (r / ".git").mkdir()
    (r / ".git" / "hook.py").write_text("")
    (tmp_path / "outside.txt").write_text("secret\n")
    os.symlink(tmp_path / "outside.txt", r / "link_out.txt")
    return r


def box(root: Path, confine: bool = True) -> CompositeToolBox:
    b = BuiltinToolBox(
        root, on_need=lambda g: None, on_record_memory=None, allow_escalate=False,
        confine_to_cwd=confine,
    )  # fmt: skip
    return CompositeToolBox([b])


async def call(b: CompositeToolBox, name: str, **args: object) -> ToolOutcome:
    return await b.call(name, json.dumps(args))


def test_effects_and_path_args() -> None:
    expect = {
        "read_file": ("read", ("path",)), "list_dir": ("read", ("path",)),
        "grep": ("read", ("path",)), "find_files": ("read", ("path",)),
        "write_file": ("write", ("path",)), "edit_file": ("write", ("path",)),
        "delete_file": ("write", ("path",)), "move_file": ("write", ("source", "destination")),
        "bash": ("run", ()), "http_get": ("network", ()), "http_request": ("network", ()),
        "escalate": ("read", ()), "current_need": ("read", ()),
    }  # fmt: skip
    for name, (effect, path_args) in expect.items():
        assert (SPECS[name].effect, SPECS[name].path_args) == (effect, path_args), name


async def test_write_creates_parents_then_edit(root: Path) -> None:
    b = box(root)
    out = await call(b, "write_file", path="new/deep/f.txt", content="one two one\n")
    assert not out.is_error and "wrote new/deep/f.txt" in out.content
    assert (root / "new/deep/f.txt").read_text() == "one two one\n"
    amb = await call(b, "edit_file", path="new/deep/f.txt", old_string="one", new_string="1")
    assert amb.is_error and "2 matches" in amb.content
    none = await call(b, "edit_file", path="new/deep/f.txt", old_string="zzz", new_string="1")
    assert none.is_error and "0 matches" in none.content
    ok = await call(b, "edit_file", path="new/deep/f.txt", old_string="two", new_string="2")
    assert not ok.is_error and (root / "new/deep/f.txt").read_text() == "one 2 one\n"
    al = await call(
        b, "edit_file", path="new/deep/f.txt", old_string="one", new_string="1", replace_all=True
    )
    assert "(2 replacements)" in al.content and (root / "new/deep/f.txt").read_text() == "1 2 1\n"


async def test_edit_keeps_crlf_and_refuses_binary(root: Path) -> None:
    (root / "w.txt").write_bytes(b"a\r\nb\r\n")
    b = box(root)
    await call(b, "edit_file", path="w.txt", old_string="b", new_string="c")
    assert (root / "w.txt").read_bytes() == b"a\r\nc\r\n"
    (root / "bin").write_bytes(b"\x00\x01ab")
    out = await call(b, "edit_file", path="bin", old_string="ab", new_string="x")
    assert out.is_error and "binary" in out.content


async def test_delete_and_move(root: Path) -> None:
    b = box(root)
    moved = await call(b, "move_file", source="src/a.py", destination="lib/b.py")
    assert not moved.is_error and "src/a.py → lib/b.py" in moved.content
    assert (root / "lib/b.py").exists() and not (root / "src/a.py").exists()
    assert (await call(b, "delete_file", path="src")).is_error  # a directory
    gone = await call(b, "delete_file", path="lib/b.py")
    assert not gone.is_error and not (root / "lib/b.py").exists()
    missing = await call(b, "delete_file", path="lib/b.py")
    assert missing.is_error and "no such file" in missing.content
    # deleting a symlink removes the link, never its target
    assert not (await call(b, "delete_file", path="link_out.txt")).is_error
    assert (root.parent / "outside.txt").read_text() == "secret\n"


async def test_find_files_skips_vendor_dirs(root: Path) -> None:
    b = box(root)
    out = (await call(b, "find_files", path=".", pattern="*.py")).content
    assert out.splitlines() == ["src/a.py"]
    assert (await call(b, "find_files", path=".", pattern="src/*.py")).content == "src/a.py"
    assert (await call(b, "find_files", path="src", pattern="*.md")).content == "(no files found)"
    assert (await call(b, "find_files", path="nope", pattern="*")).is_error


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read_file", {"path": "../outside.txt"}),
        ("read_file", {"path": "link_out.txt"}),
        ("write_file", {"path": "../x.txt", "content": "x"}),
        ("edit_file", {"path": "link_out.txt", "old_string": "secret", "new_string": "x"}),
        ("delete_file", {"path": "../outside.txt"}),
        ("move_file", {"source": "src/a.py", "destination": "../a.py"}),
        ("find_files", {"path": "..", "pattern": "*.txt"}),
    ],
)
async def test_confined_toolbox_refuses_outside_paths(root: Path, tool: str, args: dict) -> None:
    out = await call(box(root), tool, **args)
    assert out.is_error and "outside the working directory" in out.content
    assert (root.parent / "outside.txt").read_text() == "secret\n"
    assert outside_paths(root, args, SPECS[tool].path_args)  # the check t2 asks about


async def test_unconfined_toolbox_works_outside(root: Path) -> None:
    b = box(root, confine=False)
    assert "secret" in (await call(b, "read_file", path="../outside.txt")).content
    assert "secret" in (await call(b, "read_file", path="link_out.txt")).content
    assert not (await call(b, "write_file", path="../made.txt", content="hi")).is_error
    assert (root.parent / "made.txt").read_text() == "hi"
    assert outside_paths(root, {"path": "src/a.py"}, ("path",)) == ()


async def test_bad_input_is_a_tool_error(root: Path) -> None:
    b = box(root)
    bad_json = await b.call("write_file", '{"path": "x"')
    assert bad_json.is_error and "invalid JSON" in bad_json.content
    unknown = await b.call("rm_rf", "{}")
    assert unknown.is_error and "unknown tool" in unknown.content
    missing = await call(b, "edit_file", path="src/a.py")
    assert missing.is_error and "old_string" in missing.content
    (root / "img.bin").write_bytes(b"\x89PNG\x00\x00" * 100)
    binary = await call(b, "read_file", path="img.bin")
    assert binary.is_error and "binary file" in binary.content


async def test_read_file_of_a_huge_file_is_streamed(root: Path) -> None:
    """A 1 GB file (sparse: text, then a gap of NULs without a newline): read_file shows the
    first lines and stops after a bounded read, never reading it whole."""
    big = root / "huge.log"
    head = b"".join(b"line %d\n" % i for i in range(2000))
    with open(big, "wb") as f:
        f.write(head)
        f.seek(1 << 30)
        f.write(b"end\n")
    b = box(root)
    out = await call(b, "read_file", path="huge.log", limit=2)
    assert out.content == "1\tline 0\n2\tline 1"
    page = (await call(b, "read_file", path="huge.log")).content
    assert page.splitlines()[-1].startswith("[truncated: showed lines 1-500 of more than")
    tail = (await call(b, "read_file", path="huge.log", offset=1999, limit=5)).content
    assert tail.startswith("2000\tline 1999") and "line cut: more than" in tail
    assert len(tail.encode()) < fs.OUTPUT_CAP_BYTES
    grep = await call(b, "grep", pattern="end")  # over GREP_MAX_FILE_BYTES: skipped
    assert grep.content == "(no matches)"
