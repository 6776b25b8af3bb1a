"""Attachments in the real TUI: /attach and a pasted path stage a file (shown above the
prompt), a typed path stays text, /detach removes, the sent turn carries chips — also after
a resume — and snapshots of the staged line and the chips."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events
from textual.pilot import Pilot

from milk_tui.tui.widgets.attachment_chips import StagedAttachments
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.user_turn import UserTurn
from tests.attachments.files import write_png
from tui.conftest import SNAP_CWD, make_app, settle, type_and_send, until
from tui.snapshot_base import SnapshotCase, send
from tui.snapshot_base import until as until_shown


def _files(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    write_png(folder / "shot.png")
    (folder / "notes.md").write_text("# notes\nthe build fails on step 3\n")


async def _paste(pilot: Pilot[Any], text: str) -> None:
    box = pilot.app.screen.query_one(PromptInput)
    box.focus()
    await pilot.pause()
    pilot.app.post_message(events.Paste(text))  # as the driver delivers it: to the focused widget
    await pilot.pause()


def _lines(app: Any) -> list[str]:
    return [it.text for it in app.screen.query_one(Conversation).items]


async def test_attach_paste_detach_and_chips_on_the_sent_turn(tmp_path: Path):
    _files(tmp_path)
    app = make_app(cwd=str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        staged = app.screen.query_one(StagedAttachments)
        assert not staged.has_class("-shown")
        await type_and_send(pilot, "/attach shot.png")
        await _paste(pilot, f"'{tmp_path / 'notes.md'}'")
        await until(pilot, lambda: len(app.facade.attachments.staged) == 2)
        box = app.screen.query_one(PromptInput)
        assert box.text == ""  # the pasted path was attached, not inserted
        assert staged.has_class("-shown") and len(staged.labels) == 2
        await _paste(pilot, "see shot.png please")  # not one path: ordinary text
        assert box.text == "see shot.png please"
        box.set_text("")
        await type_and_send(pilot, "/detach 2")
        assert [a.name for a in app.facade.attachments.staged] == ["shot.png"]
        await type_and_send(pilot, "/attach missing.png")
        assert any("missing.png: no such file" in line for line in _lines(app))
        await type_and_send(pilot, "what is in this screenshot?")
        await until(pilot, lambda: not app.facade.attachments.staged)
        turn = [t for t in app.screen.query(UserTurn) if t.display][-1]  # not the spare
        assert turn.chips and "shot.png · png" in turn.chips[0]
        assert not staged.has_class("-shown")
    # A resumed session shows the chips from the database.
    again = make_app(cwd=str(tmp_path))
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot, again)
        chips = [c for t in again.screen.query(UserTurn) for c in t.chips]
        assert any("shot.png · png" in c for c in chips)


async def test_a_typed_path_stays_text(tmp_path: Path):
    _files(tmp_path)
    app = make_app(cwd=str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.screen.query_one(PromptInput).focus()
        await pilot.press(*"shot.png")
        assert app.screen.query_one(PromptInput).text == "shot.png"
        assert app.facade.attachments.staged == []


async def test_paste_without_a_clipboard_tool_is_one_line(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    app = make_app(cwd=str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await type_and_send(pilot, "/paste")
        errors = [ln for ln in _lines(app) if "no clipboard tool" in ln]
        assert len(errors) == 1 and "xclip" in errors[0]


async def _in_snap_cwd(pilot: Pilot[Any]) -> None:
    _files(Path(SNAP_CWD))


TWO_STAGED = until_shown(lambda app: len(app.facade.attachments.staged) == 2, "two files staged")


class TestAttachmentSnapshots(SnapshotCase):
    def test_staged_attachments_above_the_prompt(self) -> None:
        assert self.shot(_in_snap_cwd, send("/attach shot.png", "/attach notes.md"), TWO_STAGED)

    def test_chips_on_the_user_turn(self) -> None:
        assert self.shot(
            _in_snap_cwd,
            send("/attach shot.png", "/attach notes.md"),
            TWO_STAGED,
            send("what do these show?"),
            until_shown(lambda app: not app.facade.attachments.staged, "files sent"),
        )
