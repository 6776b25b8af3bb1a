"""``tui/completion.py`` without a screen: what Tab offers for each kind of word."""

from __future__ import annotations

from pathlib import Path

from milk_tui.tui.completion import Names, complete, paths


def names(cwd: Path) -> Names:
    return Names(
        cwd,
        agents=lambda: ["claude", "smol"],
        servers=lambda: ["everything", "git"],
        themes=lambda: ["milk-dark", "milk-light"],
    )


def options(before: str, cwd: Path) -> list[str] | None:
    found = complete(before, names(cwd))
    return None if found is None else found.options


def test_words_after_commands(tmp_path: Path) -> None:
    assert options("/mcp enable ", tmp_path) == ["everything ", "git "]
    assert options("/mcp list ", tmp_path) == []
    assert options("/agent switch smol ", tmp_path) == ["as "]
    assert options("/agent switch smol as e", tmp_path) == ["escalation "]
    assert options("/server start c", tmp_path) == ["claude "]
    assert options("/theme milk-l", tmp_path) == ["milk-light "]
    assert options("/usage ", tmp_path) == ["session ", "folder ", "all "]
    assert options("/EX", tmp_path) == ["/export ", "/exit "]
    assert options("hello there", tmp_path) is None  # a prompt: Tab moves the focus
    assert options("/etc/ho", tmp_path) is None
    found = complete("/mcp tools ev", names(tmp_path))
    assert found is not None and found.start == len("/mcp tools ")


def test_paths_hide_dot_files_unless_asked_and_stop_at_the_folder(tmp_path: Path) -> None:
    tmp_path = tmp_path / "p"
    tmp_path.mkdir()
    (tmp_path / ".env").write_text("x")
    (tmp_path / "env.md").write_text("x")
    assert paths("@", tmp_path, prefix="@") == ["@env.md "]
    assert paths("@.e", tmp_path, prefix="@") == ["@.env "]
    assert options("fix @en", tmp_path) == ["@env.md "]
    inner = tmp_path / "inner"
    inner.mkdir()
    assert paths("@../", inner, prefix="@")  # typed by the user
    assert paths("@", inner, prefix="@") == []
    assert paths("@nope/", tmp_path, prefix="@") == []
