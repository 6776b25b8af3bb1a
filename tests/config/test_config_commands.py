"""/config, /config open, /config init and /open in the real TUI, with a real script as the
editor: it records its argument in a marker file (the app runs headless under Pilot, so the
editor runs without suspending it; see milk_tui/tui/editor.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from tui.conftest import make_app, type_and_send

from milk_tui.tui.widgets.conversation import Conversation


def lines(app, kind: str | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    items = app.main_screen.query_one(Conversation).items
    return [it.text for it in items if kind is None or it.kind == kind]


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real program as $EDITOR: appends its argument to ``marker``, adds a line to the file."""
    marker = tmp_path / "marker"
    script = tmp_path / "fake-editor"
    script.write_text(f'#!/bin/sh\necho "$1" >> {marker}\necho "# edited" >> "$1"\n')
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)
    return marker


async def test_config_shows_none_then_init_writes_a_starter_once(milk_home: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/config")
        shown = lines(app, "notice")[-1]
        assert shown.startswith("config: none, running on defaults")
        assert (
            f"looked for, in order: --config PATH; MILK_CONFIG; {milk_home / 'config.toml'}"
            in shown
        )
        await type_and_send(pilot, "/config init")
        path = milk_home / "config.toml"
        assert lines(app, "notice")[-1].startswith(f"wrote a commented starter config: {path}")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        path.write_text('theme = "mine"\n')
        await type_and_send(pilot, "/config init")
        assert lines(app, "warning")[-1] == f"{path} exists: left as it is (/config open edits it)"
        assert path.read_text() == 'theme = "mine"\n'


async def test_config_lists_the_file_and_its_warnings_as_it_is_now(milk_home: Path) -> None:
    cfg = milk_home / "config.toml"
    cfg.write_text('[[agents]]\nname = "d"\nprovider = "demo"\n')
    app = make_app(config_path=str(cfg))
    async with app.run_test(size=(120, 40)) as pilot:
        cfg.write_text('colour = "red"\n[[agents]]\nname = "d"\nprovider = "demo"\n')
        await type_and_send(pilot, "/config")
        shown = lines(app, "notice")[-1].splitlines()
        assert shown[0] == f"config: {cfg} (found via MILK_HOME; /config open edits it)"
        assert shown[2:] == [f"  ⚠ {cfg}: unknown key 'colour' ignored"]


async def test_config_open_runs_the_editor_then_reload(milk_home: Path, editor: Path) -> None:
    cfg = milk_home / "config.toml"
    cfg.write_text('theme = "milk-dark"\n')
    app = make_app(config_path=str(cfg))
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/config open")
        assert editor.read_text() == f"{cfg}\n"
        assert cfg.read_text().endswith("# edited\n")
        assert f"edited {cfg}" in lines(app, "notice")
        # then /reload runs: its own answer (or "unknown command" before it exists) follows
        assert any("reload" in t for t in lines(app)[-2:]), lines(app)[-3:]


async def test_config_open_without_a_file_says_how_to_make_one(editor: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/config open")
        assert lines(app, "error")[-1] == (
            "/config: no config file in use: /config init writes a starter one"
        )
        await type_and_send(pilot, "/config frobnicate")
        assert lines(app, "error")[-1] == "/config: usage: /config [open|init]"
        assert not editor.exists()


async def test_open_a_path_relative_to_the_session_folder(tmp_path: Path, editor: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("hi\n")
    app = make_app(cwd=str(project))
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/open @notes.md")
        await type_and_send(pilot, "/open notes.md")
        assert editor.read_text().splitlines() == [str(project / "notes.md")] * 2
        await type_and_send(pilot, "/open @missing.md")
        assert lines(app, "error")[-1] == f"/open: no such file: {project / 'missing.md'}"
        await type_and_send(pilot, "/open")
        assert lines(app, "error")[-1].startswith("/open: usage: /open <path>")


async def test_no_editor_anywhere_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "f.txt").write_text("")
    app = make_app(cwd=str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        monkeypatch.setenv("EDITOR", "no-such-editor-xyz")
        monkeypatch.setenv("VISUAL", "")
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
        await type_and_send(pilot, "/open f.txt")
        monkeypatch.setenv("PATH", os.defpath)
        assert lines(app, "error")[-1] == (
            "/open: no editor found (tried no-such-editor-xyz, nano, vim, vi); "
            "set $EDITOR or config_editors"
        )


async def test_a_broken_file_starts_the_tui_without_it_and_says_so(milk_home: Path) -> None:
    cfg = milk_home / "config.json"
    cfg.write_text('{"agents": [')
    app = make_app(config_path=str(cfg), skip_broken_config=True)
    async with app.run_test(size=(120, 40)):
        notes = app.facade.startup_info().notes
        assert notes[0].startswith(f"config error: {cfg}: invalid JSON at line 1")
        assert notes[0].endswith("; started without it (/config open to fix it)")
