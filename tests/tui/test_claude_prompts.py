"""The Claude CLI's prompts in the TUI: the question picker (AskUserQuestion), "Always" with
the CLI's own rule, and the refused-calls line with its grant-and-retry key."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from textual.widgets import Input, RadioSet, SelectionList

from milk_tui.agents.base import DeniedTool, PermissionAnswer, PermissionQuestion
from milk_tui.agents.claude_settings import settings_path
from milk_tui.engine.dispatch import RETRY_PROMPT
from milk_tui.tui.screens.permission_modal import PermissionModal
from milk_tui.tui.screens.question_modal import QuestionModal
from milk_tui.tui.widgets.conversation import Conversation
from tui.conftest import make_app, settle

DB_Q = {
    "question": "Which database should we use?",
    "header": "Database",
    "multiSelect": False,
    "options": [
        {"label": "PostgreSQL", "description": "the big one"},
        {"label": "SQLite", "description": "one file"},
    ],
}
FEATURES_Q = {
    "question": "Which features do you want?",
    "header": "Features",
    "multiSelect": True,
    "options": [
        {"label": "Auth", "description": "log in"},
        {"label": "Search", "description": "full text"},
        {"label": "Export", "description": "CSV"},
    ],
}


def _lines(app: Any) -> str:
    return "\n".join(it.text for it in app.main_screen.query_one(Conversation).items)


async def _open(pilot: Any, app: Any, questions: list[dict[str, Any]]) -> asyncio.Task[Any]:
    task = asyncio.create_task(app.runtime.dispatcher.permissions.ask_user("claude", questions))
    for _ in range(100):
        await pilot.pause()
        if isinstance(app.screen, QuestionModal):
            break
    assert isinstance(app.screen, QuestionModal)
    return task


async def test_picking_an_option_answers_with_its_label() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await _open(pilot, app, [DB_Q])
        app.screen.query_one(RadioSet).focus()
        await pilot.press("down", "enter")  # the second option
        await pilot.click("#answer")
        assert await asyncio.wait_for(task, 2) == {"Which database should we use?": "SQLite"}
        await pilot.pause()
        assert "claude asked — SQLite" in _lines(app)


async def test_typed_words_win_and_several_choices_are_comma_joined() -> None:
    app = make_app()
    async with app.run_test(size=(120, 50)) as pilot:
        task = await _open(pilot, app, [DB_Q, FEATURES_Q])
        modal = app.screen
        modal.query_one("#other0", Input).value = "DuckDB, in memory"
        features = modal.query_one(SelectionList)
        features.select("Auth")
        features.select("Export")
        await pilot.click("#answer")
        assert await asyncio.wait_for(task, 2) == {
            "Which database should we use?": "DuckDB, in memory",
            "Which features do you want?": "Auth, Export",
        }


async def test_an_unanswered_question_is_named_and_escape_declines() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        task = await _open(pilot, app, [DB_Q])
        await pilot.click("#answer")
        await pilot.pause()
        assert isinstance(app.screen, QuestionModal)  # still open, the gap named
        assert "Which database" in str(app.screen.query_one(".error").render())
        await pilot.press("escape")
        assert await asyncio.wait_for(task, 2) is None


async def test_always_on_a_claude_question_stores_the_cli_rule(tmp_path: Path) -> None:
    app = make_app(cwd=str(tmp_path))
    q = PermissionQuestion(
        "claude",
        "WebFetch",
        {"url": "https://example.com/a"},
        always_rules=("WebFetch(domain:example.com)",),
    )
    async with app.run_test(size=(120, 40)) as pilot:
        task = asyncio.create_task(app.runtime.dispatcher._ask_permission(q))
        for _ in range(100):
            await pilot.pause()
            if isinstance(app.screen, PermissionModal):
                break
        assert isinstance(app.screen, PermissionModal)
        assert "WebFetch(domain:example.com)" in str(
            app.screen.query_one(".perm-body Static").render()
        )
        await pilot.press("a")
        assert await asyncio.wait_for(task, 2) == PermissionAnswer(True, always=True)
        stored = json.loads(settings_path(str(tmp_path)).read_text())
        assert stored == {"permissions": {"allow": ["WebFetch(domain:example.com)"]}}
        listed = app.facade.permissions.show()
        assert listed.tools == ()  # no milk grant of the whole tool
        assert listed.claude_rules == ("WebFetch(domain:example.com)",)
        # asked again in the same run (the CLI does not know yet): granted without a modal
        again = await app.runtime.dispatcher._ask_permission(q)
        assert again.allow and not isinstance(app.screen, PermissionModal)


async def test_refused_calls_are_listed_and_ctrl_g_grants_and_retries(tmp_path: Path) -> None:
    app = make_app(cwd=str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        app.runtime.dispatcher.permissions.record_denials(
            "claude",
            (
                DeniedTool(
                    "WebFetch", {"url": "https://example.com/a"}, ("WebFetch(domain:example.com)",)
                ),
            ),
        )
        await settle(pilot, app)
        text = _lines(app)
        assert "claude was refused: WebFetch https://example.com/a — ctrl+g" in text
        await pilot.press("ctrl+g")
        await settle(pilot, app)
        stored = json.loads(settings_path(str(tmp_path)).read_text())
        assert stored["permissions"]["allow"] == ["WebFetch(domain:example.com)"]
        history = app.facade.history()
        assert history[-2].content == RETRY_PROMPT and history[-1].agent == "escalation"
        await pilot.press("ctrl+g")  # nothing left to grant: a hint, no turn
        await settle(pilot, app)
        assert len(app.facade.history()) == len(history)


async def test_a_later_turn_without_refusals_leaves_nothing_to_retry(tmp_path: Path) -> None:
    app = make_app(cwd=str(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        broker = app.runtime.dispatcher.permissions
        broker.record_denials("claude", (DeniedTool("WebSearch", {"query": "x"}, ("WebSearch",)),))
        broker.record_denials("claude", ())  # the next escalation turn was refused nothing
        await settle(pilot, app)
        assert app.facade.grant_and_retry() is None
        assert not settings_path(str(tmp_path)).exists()
