"""Built-in tools: need/memory/escalate callbacks and read-only file tools confined to cwd."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from milk_tui.agents.tools import BuiltinToolBox, CompositeToolBox
from milk_tui.agents.tools import files as fs
from milk_tui.agents.tools.box import ToolFilter
from milk_tui.agents.tools.specs import ACTION_TOOLS


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("import os\n\ndef find_me():\n    return 1\n")
    (root / "README.md").write_text("# Title\nfind_me in docs\n")
    (root / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 1201)))
    (root / "bin.dat").write_bytes(b"\x00\x01find_me\x00")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("find_me\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("find_me top secret\n")
    (tmp_path / "outside_dir").mkdir()
    (tmp_path / "outside_dir" / "x.txt").write_text("find_me outside\n")
    os.symlink(outside, root / "link_out.txt")
    os.symlink(tmp_path / "outside_dir", root / "dir_out")
    os.symlink(root / "README.md", root / "link_in.md")
    return root


def make(tree: Path, **kw) -> tuple[BuiltinToolBox, list, list]:  # noqa: ANN003
    needs: list = []
    mem: list = []

    def record(content: str, consumer: str) -> str:
        mem.append((content, consumer))
        return "recorded percept abcd1234"

    kw.setdefault("on_record_memory", record)
    kw.setdefault("allow_escalate", True)
    return BuiltinToolBox(tree, on_need=needs.append, **kw), needs, mem


async def call(box: BuiltinToolBox, name: str, **args: object):  # noqa: ANN201
    return await CompositeToolBox([box]).call(name, json.dumps(args))


async def test_read_file_numbers_lines_and_pages(tree: Path) -> None:
    box, _, _ = make(tree)
    out = await call(box, "read_file", path="src/pkg/mod.py")
    assert out.content.splitlines()[:3] == ["1\timport os", "2\t", "3\tdef find_me():"]
    page = await call(box, "read_file", path="big.txt", offset="10", limit=2)
    assert page.content == "11\tline 11\n12\tline 12"
    full = await call(box, "read_file", path="big.txt")
    lines = full.content.splitlines()
    assert lines[499] == "500\tline 500"
    assert lines[-1].startswith("[truncated: showed lines 1-500 of 1200")


async def test_read_file_errors(tree: Path) -> None:
    box, _, _ = make(tree)
    for path, why in [
        ("nope.txt", "no such file"),
        ("src", "is a directory"),
        ("bin.dat", "binary file"),
    ]:
        out = await call(box, "read_file", path=path)
        assert out.is_error and why in out.content


@pytest.mark.parametrize(
    "path",
    [
        "../secret.txt",
        "src/../../secret.txt",
        "link_out.txt",
        "dir_out/x.txt",
        "/etc/passwd",
        "~/.bashrc",
    ],
)
async def test_paths_outside_cwd_are_rejected(tree: Path, path: str) -> None:
    box, _, _ = make(tree)
    out = await call(box, "read_file", path=path)
    assert out.is_error and "outside the working directory" in out.content
    assert "top secret" not in out.content


async def test_absolute_path_inside_cwd_and_symlink_inside_are_fine(tree: Path) -> None:
    box, _, _ = make(tree)
    assert not (await call(box, "read_file", path=str(tree / "README.md"))).is_error
    assert "Title" in (await call(box, "read_file", path="link_in.md")).content


async def test_list_dir(tree: Path) -> None:
    box, _, _ = make(tree)
    out = (await call(box, "list_dir")).content.splitlines()
    names = [line.split()[-1] for line in out]
    assert names == sorted(names) and "src" in names and "README.md" in names
    row = next(line for line in out if line.endswith("README.md"))
    assert row.startswith("file  ") and str(len("# Title\nfind_me in docs\n")) in row
    assert (await call(box, "list_dir", path="src")).content.split()[-1] == "pkg"
    assert (await call(box, "list_dir", path="..")).is_error
    assert (await call(box, "list_dir", path="dir_out")).is_error


async def test_grep_finds_inside_only(tree: Path) -> None:
    box, _, _ = make(tree)
    out = (await call(box, "grep", pattern="find_me")).content.splitlines()
    assert "README.md:2:find_me in docs" in out
    assert "src/pkg/mod.py:3:def find_me():" in out
    joined = "\n".join(out)
    assert "secret" not in joined and "outside" not in joined  # symlinks out skipped
    assert ".git" not in joined and "bin.dat" not in joined
    sub = (await call(box, "grep", pattern=r"def \w+", path="src")).content
    assert sub == "src/pkg/mod.py:3:def find_me():"
    assert (await call(box, "grep", pattern="zzz_nothing")).content == "(no matches)"
    bad = await call(box, "grep", pattern="(unclosed")
    assert bad.is_error and "invalid regular expression" in bad.content
    assert (await call(box, "grep", pattern="x", path="../")).is_error


async def test_output_is_capped(tree: Path) -> None:
    (tree / "huge.txt").write_text(("x" * 200 + "\n") * 1000)
    box, _, _ = make(tree)
    out = (await call(box, "read_file", path="huge.txt")).content
    assert len(out.encode()) < fs.OUTPUT_CAP_BYTES + 200 and "[truncated" in out
    many = (await call(box, "grep", pattern="x")).content
    assert f"more than {fs.GREP_MAX_MATCHES} matches" in many


async def test_current_need_and_record_memory_use_the_callbacks(tree: Path) -> None:
    box, needs, mem = make(tree)
    assert (await call(box, "current_need", goal="ship v1")).content == "current need updated"
    assert needs == ["ship v1"]
    out = await call(box, "record_memory", content="user prefers tabs", consumer="primary")
    assert out.content == "recorded percept abcd1234"
    assert mem == [("user prefers tabs", "primary")]
    bad = await call(box, "record_memory", content="x", consumer="nobody")
    assert bad.is_error and mem == [("user prefers tabs", "primary")]


async def test_escalate_returns_the_reason(tree: Path) -> None:
    box, _, _ = make(tree)
    out = await call(box, "escalate", reason="multi-file refactor")
    assert out.escalate_reason == "multi-file refactor" and not out.is_error


def test_tool_set_depends_on_options(tree: Path) -> None:
    full, _, _ = make(tree)
    own_state = {"escalate", "current_need", "record_memory"}
    # get_session_context reads the session, so the engine offers it from its own box
    assert {s.name for s in full.specs()} == own_state | set(ACTION_TOOLS) - {"get_session_context"}
    slim, _, _ = make(tree, on_record_memory=None, allow_escalate=False)
    assert "escalate" not in {s.name for s in slim.specs()}
    assert "record_memory" not in {s.name for s in slim.specs()}
    only = CompositeToolBox(
        [full],
        ToolFilter(
            included=frozenset({"grep"}),
            excluded=frozenset({"escalate"}),
            choosable=frozenset(ACTION_TOOLS),
        ),
    )
    assert set(only.names()) == {"grep", "current_need", "record_memory"}
    for spec in full.specs():
        assert spec.parameters["type"] == "object"
