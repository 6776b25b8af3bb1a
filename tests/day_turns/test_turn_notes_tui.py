"""The real TUI (Pilot, fake OpenAI server) shows a line when an agent records a fact or
sets the goal, so neither happens unseen; under the reply, once the turn is committed."""

from __future__ import annotations

import pytest
from tui.conftest import fake_agent_config, make_app, type_and_send

from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.widgets.conversation import Conversation

NONCE = "tuinonce02"


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_a_fact_and_a_goal_from_the_agent_each_show_a_line(size: tuple[int, int]) -> None:
    with FakeOpenAIServer() as srv:
        srv.enqueue(
            FakeReply(
                text=[
                    "Sure. ",
                    f"<milk:percept:{NONCE}>The user ships on Fridays</milk:percept:{NONCE}>",
                    f"<milk:need:{NONCE}>plan the Friday release</milk:need:{NONCE}>",
                    " Done.",
                ]
            )
        )
        app = make_app(config=fake_agent_config(srv.url), demo=False)
        async with app.run_test(size=size) as pilot:
            app.runtime.dispatcher.session.primary_nonce = NONCE
            await type_and_send(pilot, "help me plan the release for friday")
            items = [(it.kind, it.text) for it in app.main_screen.query_one(Conversation).items]
    assert ("notice", "fake remembered: The user ships on Fridays") in items, items
    assert ("notice", "fake set the goal: plan the Friday release") in items
    at = [t for _, t in items]
    reply_at = next(i for i, (k, _) in enumerate(items) if k == "reply")
    assert reply_at < at.index("fake set the goal: plan the Friday release")  # under the reply
    reply = items[reply_at][1]
    assert "<milk" not in reply and "Fridays" not in reply
