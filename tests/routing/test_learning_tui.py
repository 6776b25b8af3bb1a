"""The learning as a user meets it in the real TUI (Pilot, demo agents): the primary answers,
the user types ``/escalate``, a similar prompt then goes to the escalation agent with the
learned rule on its route line, ``/auto`` lists it and ``/auto reset`` forgets it."""

from __future__ import annotations

from tui.conftest import make_app, type_and_send

from milk_tui.tui.widgets.conversation import Conversation

ASKED = "what is the capital city of Italy please"
SIMILAR = "what is the capital city of Spain please"


def items(app, kind: str) -> list:  # type: ignore[no-untyped-def]
    return [it for it in app.main_screen.query_one(Conversation).items if it.kind == kind]


async def test_escalate_teaches_auto_shows_reset_forgets() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, ASKED)
        assert items(app, "user")[-1].agent_name == "demo-local"
        await type_and_send(pilot, "/escalate")
        notices = [it.text for it in items(app, "notice")]
        assert any("learned: prompts like 'what is the capital city" in t for t in notices)
        await type_and_send(pilot, "/auto")
        notices = [it.text for it in items(app, "notice")]
        assert any("learned routes: 1 in this folder" in t and ASKED in t for t in notices)
        await type_and_send(pilot, SIMILAR)
        user = items(app, "user")[-1]
        assert user.agent_name == "demo-claude"
        assert user.detail.startswith(f"learned: like '{ASKED}' which you escalated")
        await type_and_send(pilot, "/auto reset")
        assert any("forgot 1 learned example(s)" in it.text for it in items(app, "notice"))
        await type_and_send(pilot, "/auto")
        await type_and_send(pilot, SIMILAR + "!")
        assert items(app, "user")[-1].agent_name == "demo-local"
