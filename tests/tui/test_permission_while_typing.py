"""A permission question that opens while the user is typing a prompt cannot be answered by
the letters that keep coming: "and" types into the reason box instead of answering Always.
With an empty prompt, ``a`` still answers Always at once; Tab ends the typing guard."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.widgets import Input

from milk_tui.agents.base import PermissionAnswer, PermissionQuestion
from milk_tui.tui.screens.permission_modal import PermissionModal
from milk_tui.tui.widgets.prompt_input import PromptInput
from tui.conftest import make_app, until

GIT = PermissionQuestion(
    "llama", "bash", {"command": "git status"}, effect="run",
    grant="bash:git status", grant_all="bash",
)  # fmt: skip


PUSH = PermissionQuestion(
    "llama", "bash", {"command": "git push"}, effect="run",
    grant="bash:git push", grant_all="bash",
)  # fmt: skip
"""Not covered by an Always on ``GIT`` (a prefix grant names its words)."""


async def open_question(
    pilot: Any, app: Any, q: PermissionQuestion = GIT
) -> asyncio.Task[PermissionAnswer]:
    task = asyncio.create_task(app.runtime.dispatcher._ask_permission(q))
    await until(pilot, lambda: isinstance(app.screen, PermissionModal))
    await pilot.pause()
    return task


async def test_letters_typed_on_from_the_prompt_answer_nothing() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"tell me ")  # mid-prompt when the question opens
        assert app.main_screen.query_one(PromptInput).text == "tell me "
        task = await open_question(pilot, app)
        await pilot.press(*"and why")
        for _ in range(5):
            await pilot.pause()
        assert not task.done(), "a letter typed on from the prompt answered the question"
        reason = app.screen.query_one("#reason", Input)
        assert app.screen.focused is reason and reason.value == "and why"
        await pilot.press("tab", "escape")
        assert (await asyncio.wait_for(task, 5)).allow is False
        assert app.facade.permissions.show().tools == ()


async def test_with_an_empty_prompt_a_answers_always_and_tab_ends_the_guard() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await open_question(pilot, app)
        await pilot.press("a")
        assert await asyncio.wait_for(task, 5) == PermissionAnswer(True, always=True)
        await until(pilot, lambda: not isinstance(app.screen, PermissionModal))
        await pilot.press(*"so ")
        task = await open_question(pilot, app, PUSH)
        await pilot.press("shift+tab", "shift+tab", "y")  # focus moved on purpose first
        assert (await asyncio.wait_for(task, 5)).allow is True
