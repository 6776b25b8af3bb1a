"""What a new user meets with routing words and commands, driven through the prompt."""

from __future__ import annotations

import pytest

from milk_tui.tui.widgets.conversation import Conversation
from tui.conftest import make_app, type_and_send


def lines(app, kind: str | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    items = app.main_screen.query_one(Conversation).items
    return [it.text for it in items if kind is None or it.kind == kind]


def user_prompts(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.content for m in app.runtime.dispatcher.session.history if m.role == "user"]


async def test_unknown_command_with_arguments_is_never_sent() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/frobnicate list")
        await type_and_send(pilot, "/frobnicate")
        warnings = lines(app, "warning")
        assert sum("unknown command /frobnicate" in t for t in warnings) == 2
        assert user_prompts(app) == []


async def test_prompt_starting_with_slash_is_sent_escaped() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "//agent list explains what?")
        await type_and_send(pilot, " /new is a slash command?")
        assert user_prompts(app) == ["/agent list explains what?", "/new is a slash command?"]


async def test_auto_returns_to_automatic_routing_and_the_pin_shows() -> None:
    from milk_tui.tui.widgets.status_line import StatusLine

    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        for command, pinned in (("/escalate", "escalation"), ("/primary", "primary")):
            await type_and_send(pilot, command)
            assert f"pinned: {pinned}" in app.main_screen.query_one(StatusLine).plain
        status = app.main_screen.query_one(StatusLine)
        await type_and_send(pilot, "/auto")
        flags = app.runtime.dispatcher.flags
        assert not (flags.pinned_primary or flags.pinned_escalate or flags.auto_sticky)
        assert "pinned" not in status.plain
        assert any("automatic routing" in t for t in lines(app, "notice"))
        await type_and_send(pilot, "hello")
        users = [it for it in app.main_screen.query_one(Conversation).items if it.kind == "user"]
        assert users[-1].extra["label"] != "pinned"


async def test_need_text_sets_the_need_as_the_user() -> None:
    from milk_tui.tui.widgets.need_pane import NeedPane

    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await type_and_send(pilot, "/need ship the parser fix today")
        s = app.runtime.dispatcher.session
        assert (s.current_need, s.need_producer) == ("ship the parser fix today", "user")
        pane = app.main_screen.query_one(NeedPane)
        assert pane.view.need == "ship the parser fix today"
        assert "set by you with /need" in str(pane.body.render())
        stored = app.runtime.dispatcher.store.load(s.id)
        assert stored is not None and stored.current_need == "ship the parser fix today"
        await type_and_send(pilot, "/need")
        assert any("set by user" in t for t in lines(app, "notice"))


async def test_help_has_the_routing_words_and_a_glossary() -> None:
    from milk_tui.tui.screens.help_modal import HelpModal

    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpModal)
        from textual.widgets import Static

        body = app.screen.query_one(Static)
        text = "\n".join(body.render_line(y).text for y in range(body.size.height))
        for word in ("/auto", "fresh start", "downgraded", "pinned", "scope", "weight", "need"):
            assert word in text
        assert "//" in text


@pytest.mark.parametrize(
    ("typed", "restored"),
    [
        ("/escalate write a long essay", "/escalate write a long essay"),
        ("refactor the parser", "refactor the parser"),  # the primary hands off itself
    ],
    ids=["/escalate", "hand-off"],
)
async def test_ctrl_c_during_an_escalation_leaves_no_stale_state(
    monkeypatch: pytest.MonkeyPatch, typed: str, restored: str
) -> None:
    """No "● running" for good, the cancelled prompt is no earlier need, and the prompt
    comes back as typed (with its /escalate)."""
    from milk_tui.tui.widgets.escalation_pane import EscalationPane
    from milk_tui.tui.widgets.need_pane import NeedPane
    from milk_tui.tui.widgets.prompt_input import PromptInput
    from tui.conftest import settle

    monkeypatch.setenv("MILK_DEMO_PACE", "0.05")
    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        box = app.main_screen.query_one(PromptInput)
        esc = app.main_screen.query_one(EscalationPane)
        box.set_text(typed)
        await pilot.press("enter")
        for _ in range(400):
            await pilot.pause()
            if esc.active:
                break
        assert esc.active and app.runtime.dispatcher.busy
        await pilot.press("ctrl+c")
        await settle(pilot, app)
        need = app.main_screen.query_one(NeedPane)
        assert not esc.active
        assert need.earlier == [] and need.view.need == ""
        assert box.text == restored


async def test_header_counts_questions_and_the_fact_pane_says_its_letters() -> None:
    from milk_tui.tui.widgets.app_header import AppHeader

    app = make_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await type_and_send(pilot, "what is a monad?")
        header = str(app.main_screen.query_one(AppHeader).render())
        assert "1 question" in header and "2 turns" not in header
        from milk_tui.tui.facts.table import FactTable

        table = app.main_screen.query_one(FactTable)
        head = "".join(seg.text for seg in table.render_line(0))
        assert "S session" in head and "G global" in head
