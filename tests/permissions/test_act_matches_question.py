"""The act matches the question: a file swapped for a symlink pointing outside while the
write question is open is not written through when the user says yes; and a symlink that
appears on the way after the path was checked is never followed (``O_NOFOLLOW`` walk)."""

from __future__ import annotations

import contextvars
import os
from pathlib import Path

import pytest

from milk_tui.agents.tools import edit, files
from milk_tui.agents.tools.nofollow import open_file
from milk_tui.agents.tools.paths import ToolFailure, Workspace, pin
from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer

from .rig import Layout, call, layout, of, open_app, results, script, until


@pytest.fixture
def lay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    lay = layout(tmp_path, monkeypatch)
    (lay.outside / "target.txt").write_text("outside, untouched\n")
    (lay.proj / "notes.txt").write_text("old notes\n")
    return lay


def swap_for_symlink(path: Path, target: Path) -> None:
    path.unlink()
    path.symlink_to(target)


@pytest.mark.parametrize(
    "the_call",
    [
        call("write_file", "c", path="notes.txt", content="HACK\n"),
        call("edit_file", "c", path="notes.txt", old_string="outside", new_string="HACK"),
    ],
    ids=["write_file", "edit_file"],
)
async def test_a_file_swapped_for_a_symlink_while_asked_is_not_followed(
    srv: FakeOpenAIServer, lay: Layout, the_call: object
) -> None:
    app, events = open_app(srv, lay.proj, "ask")
    script(srv, the_call)  # type: ignore[arg-type]
    try:
        turn = app.submit("change notes", force="primary")
        assert turn is not None
        # the question stays open until the file has been swapped
        (asked,) = await until(
            "the permission question", lambda: of(events, ev.PermissionRequested)
        )
        assert asked.resolved_paths == (str(lay.proj / "notes.txt"),)
        swap_for_symlink(lay.proj / "notes.txt", lay.outside / "target.txt")
        app.answer_permission(asked.request_id, True)
        assert (await turn).ok
    finally:
        await app.aclose()
    assert (lay.outside / "target.txt").read_text() == "outside, untouched\n"
    told = results(srv)["c"]
    assert "changed after it was allowed" in told and str(lay.outside / "target.txt") in told


def test_a_pinned_decision_refuses_a_path_that_now_resolves_elsewhere(lay: Layout) -> None:
    # in a context of its own, as the tool loop runs each call: the pin must not leak
    contextvars.copy_context().run(_pinned_then_swapped, lay)


def _pinned_then_swapped(lay: Layout) -> None:
    ws = Workspace(lay.proj, confine=False)
    pin({"notes.txt": str(lay.proj / "notes.txt")})
    swap_for_symlink(lay.proj / "notes.txt", lay.outside / "target.txt")
    for act in (
        lambda: edit.write_file(ws, "notes.txt", "HACK"),
        lambda: edit.delete_file(ws, "notes.txt"),
        lambda: edit.move_file(ws, "notes.txt", "moved.txt"),
        lambda: files.read_file(ws, "notes.txt"),
    ):
        with pytest.raises(ToolFailure, match="changed after it was allowed"):
            act()
    # a path nobody decided on may only be inside the folder
    with pytest.raises(ToolFailure, match="outside the working directory"):
        edit.write_file(ws, "../outside/new.txt", "HACK")
    assert (lay.outside / "target.txt").read_text() == "outside, untouched\n"
    assert (lay.proj / "notes.txt").is_symlink() and not (lay.outside / "new.txt").exists()


def test_a_symlink_on_the_way_after_the_check_is_never_followed(lay: Layout) -> None:
    """What the re-check cannot see (a swap between resolving and opening) the opening
    refuses: the already resolved path is walked without following symlinks."""
    resolved = lay.proj / "notes.txt"  # what the tool resolved before the swap
    swap_for_symlink(resolved, lay.outside / "target.txt")
    with pytest.raises(ToolFailure, match="changed after it was checked"):
        open_file(resolved, os.O_WRONLY | os.O_TRUNC)
    (lay.proj / "sub").symlink_to(lay.outside)  # a folder on the way is now a symlink
    with pytest.raises(ToolFailure, match="changed after it was checked"):
        open_file(lay.proj / "sub" / "target.txt", os.O_WRONLY | os.O_TRUNC)
    with pytest.raises(ToolFailure, match="changed after it was checked"):
        open_file(lay.proj / "sub" / "new" / "x.txt", os.O_WRONLY | os.O_CREAT, create_folders=True)
    assert (lay.outside / "target.txt").read_text() == "outside, untouched\n"
    assert not (lay.outside / "new").exists()
    fd = open_file(lay.proj / "made" / "here.txt", os.O_WRONLY | os.O_CREAT, create_folders=True)
    os.close(fd)
    assert (lay.proj / "made" / "here.txt").exists()
