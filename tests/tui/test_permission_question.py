"""The permission question cannot be answered by accident and shows the whole call: letters
answer only outside the reason box, a reason typed from a button lands in the box, the
reason box is one key away, a command hidden under 80 blank lines is on screen, and each
"Always" button names (and stores) exactly its grant."""

from __future__ import annotations

import asyncio
import html
import json
import re
from typing import Any

import pytest
from textual import events
from textual.widgets import Button, Input, Static

from milk_tui.agents.base import PermissionAnswer, PermissionQuestion
from milk_tui.tui.screens.permission_body import command_lines
from milk_tui.tui.screens.permission_modal import PermissionBody, PermissionModal
from milk_tui.tui.widgets.conversation import Conversation
from tui.conftest import make_app, until

GIT = PermissionQuestion(
    "llama", "bash", {"command": "git status"}, effect="run",
    grant="bash:git status", grant_all="bash",
)  # fmt: skip
KEY_NAMES = {" ": "space", ",": "comma"}
HIDDEN = "echo hello" + "\n" * 81 + "rm -rf ~"


async def ask(pilot: Any, app: Any, q: PermissionQuestion) -> asyncio.Task[PermissionAnswer]:
    task = asyncio.create_task(app.runtime.dispatcher._ask_permission(q))
    await until(pilot, lambda: isinstance(app.screen, PermissionModal))
    assert isinstance(app.screen, PermissionModal), "the permission question never opened"
    await pilot.pause()  # laid out: a click lands on its button
    return task


async def still_open(pilot: Any, task: asyncio.Task[PermissionAnswer]) -> bool:
    for _ in range(5):
        await pilot.pause()
    return not task.done()


async def test_a_reason_typed_with_focus_on_yes_types_and_answers_nothing() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app, GIT)
        app.screen.query_one("#yes", Button).focus()
        await pilot.press(*"please no")
        assert await still_open(pilot, task), "typing a reason answered the question"
        reason = app.screen.query_one("#reason", Input)
        assert app.screen.focused is reason and reason.value == "please no"
        await pilot.press("enter")
        answer = await asyncio.wait_for(task, 5)
        assert answer == PermissionAnswer(False, reason="the user said no: please no")
        assert app.facade.permissions.show().tools == ()


async def test_a_reason_arriving_in_one_burst_types_every_letter() -> None:
    """A terminal delivers a typed word at once: the keys after the first arrive before the
    focus has moved to the reason box, and must be text too, not answers or lost keys."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app, GIT)
        for c in "please no, and do not retry":
            app.post_message(events.Key(KEY_NAMES.get(c, c), c))
        await until(pilot, lambda: app.screen.query_one("#reason", Input).value != "p")
        assert await still_open(pilot, task), "a letter of the reason answered the question"
        assert app.screen.query_one("#reason", Input).value == "please no, and do not retry"
        await pilot.press("escape")
        await asyncio.wait_for(task, 5)


async def test_keys_sent_to_the_body_before_focus_moved_are_typed_not_lost() -> None:
    """A terminal's burst is forwarded to the focused widget (the body) key by key; the ones
    still queued there when focus lands in the reason box must type, in order."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app, GIT)
        body = app.screen.query_one(PermissionBody)
        reason = app.screen.query_one("#reason", Input)
        await pilot.press("p")
        assert app.screen.focused is reason
        for c in "lease no, and do not retry":  # queued on the body, focus already moved
            # The way the screen forwards a key (marked forwarded: nothing re-sends it).
            body._forward_event(events.Key(KEY_NAMES.get(c, c), c))
        await until(pilot, lambda: reason.value == "please no, and do not retry")
        assert reason.value == "please no, and do not retry"
        assert await still_open(pilot, task), "a letter of the reason answered the question"
        await pilot.press("escape")
        await asyncio.wait_for(task, 5)


async def test_letters_type_in_the_focused_reason_box() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app, GIT)
        await pilot.press("r", *"yanr")
        assert await still_open(pilot, task)
        assert app.screen.query_one("#reason", Input).value == "yanr"
        await pilot.press("escape")
        assert (await asyncio.wait_for(task, 5)).allow is False


async def test_focus_starts_on_the_body_and_the_reason_is_one_tab_away() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app, GIT)
        assert isinstance(app.screen.focused, PermissionBody)
        await pilot.press("tab")
        assert app.screen.focused is app.screen.query_one("#reason", Input)
        await pilot.press("escape")
        await asyncio.wait_for(task, 5)


async def test_a_answers_always_when_no_text_box_has_focus() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app, GIT)
        await pilot.press("a")
        assert await asyncio.wait_for(task, 5) == PermissionAnswer(True, always=True)
        assert app.facade.permissions.show().tools == ("bash:git status",)


async def test_the_always_buttons_name_their_grants_and_the_wide_one_stores_bash() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app, GIT)
        always = str(app.screen.query_one("#always", Button).label)
        wide = str(app.screen.query_one("#wide", Button).label)
        assert always == "Always: `git status …` in this folder (a)"
        assert wide == "Always: every shell command in this folder"
        await pilot.click("#wide")
        assert await asyncio.wait_for(task, 5) == PermissionAnswer(True, always=True)
        path = app.runtime.dispatcher.permissions.grants.path_for(app.facade.cwd)
        assert json.loads(path.read_text())["allowed_tools"] == ["bash"]
        await until(pilot, lambda: not isinstance(app.screen, PermissionModal))
        lines = [it.text for it in app.main_screen.query_one(Conversation).items]
        assert "bash: allowed for this folder — every shell command" in lines


async def test_the_narrow_always_stores_the_prefix_and_says_so() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app, GIT)
        await pilot.click("#always")
        await asyncio.wait_for(task, 5)
        path = app.runtime.dispatcher.permissions.grants.path_for(app.facade.cwd)
        assert json.loads(path.read_text())["allowed_tools"] == ["bash:git status"]
        await until(pilot, lambda: not isinstance(app.screen, PermissionModal))
        lines = [it.text for it in app.main_screen.query_one(Conversation).items]
        want = "bash: allowed for this folder — only commands starting with `git status …`"
        assert want in lines


def on_screen(app: Any) -> str:
    """The text on the terminal now (the screenshot's text runs, spaces restored)."""
    runs = re.findall(r"<text[^>]*>(.*?)</text>", app.export_screenshot(), flags=re.S)
    return "".join(html.unescape(r) for r in runs).replace("\xa0", " ")


async def test_a_command_under_80_blank_lines_shows_its_last_line_on_screen() -> None:
    app = make_app()
    q = PermissionQuestion("llama", "bash", {"command": HIDDEN}, effect="run", grant="bash:echo")
    async with app.run_test(size=(80, 24)) as pilot:
        task = await ask(pilot, app, q)
        body = app.screen.query_one(PermissionBody)
        assert "command, 82 lines:" in str(body.query_one(Static).render())
        body.scroll_end(animate=False)
        await pilot.pause()
        screen = on_screen(app)
        assert "⋯ 80 blank lines ⋯" in screen
        assert "rm -rf ~" in screen
        await pilot.press("escape")
        await asyncio.wait_for(task, 5)


async def test_a_hostile_grant_is_shown_as_text_on_its_button() -> None:
    app = make_app()
    q = PermissionQuestion(
        "llama", "bash", {"command": "x"}, effect="run", grant="bash:[b]x[/] \x1b]52;c;QQ==\x07"
    )
    async with app.run_test(size=(120, 40)) as pilot:
        task = await ask(pilot, app, q)
        label = str(app.screen.query_one("#always", Button).label)
        assert label == "Always: `[b]x[/] ␛]52;c;QQ==␇ …` in this folder (a)"
        await pilot.press("n")
        assert (await asyncio.wait_for(task, 5)).allow is False


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("a\n\nb", [("line", "a"), ("line", ""), ("line", "b")]),  # one blank line: kept
        ("a\n \t\n\nb", [("line", "a"), ("blank", "⋯ 2 blank lines ⋯"), ("line", "b")]),
        ("\n\n\nrm -rf ~", [("blank", "⋯ 3 blank lines ⋯"), ("line", "rm -rf ~")]),
        ("a\n\n\n", [("line", "a"), ("blank", "⋯ 3 blank lines ⋯")]),
        ("a\u200b\n\n\nb", [("line", "a\u200b"), ("blank", "⋯ 2 blank lines ⋯"), ("line", "b")]),
    ],
)
def test_only_blank_runs_fold_and_every_other_line_stays(
    command: str, shown: list[tuple[str, str]]
) -> None:
    assert command_lines(command) == shown
