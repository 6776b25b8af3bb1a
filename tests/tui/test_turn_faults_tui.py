"""A wrong-typed stream chunk in the real TUI (Pilot, fake OpenAI server): the turn ends with
one error line naming the field and the agent, the spinner stops, the prompt comes back,
and a need the failed reply stated is not saved with the next turn."""

from __future__ import annotations

import json

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.status_line import StatusLine
from tui.conftest import fake_agent_config, make_app, settle, type_and_send

NONCE = "tuinonce01"


def data(delta: object) -> str:
    return "data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]})


async def test_a_wrong_typed_chunk_ends_the_turn_and_the_app_is_ready_again() -> None:
    failed_need = f"<milk:need:{NONCE}>rewrite the lexer</milk:need:{NONCE}>"
    with FakeOpenAIServer() as srv:
        srv.enqueue(
            FakeReply(
                raw_lines=[data({"content": "On it. " + failed_need}), "", data({"content": 3})]
            ),
            FakeReply(text=["All ", "good."]),
        )
        cfg = fake_agent_config(srv.url)
        app = make_app(config=cfg, demo=False)
        async with app.run_test(size=(120, 40)) as pilot:
            session = app.runtime.dispatcher.session
            session.primary_nonce = NONCE
            await type_and_send(pilot, "fix the tokenizer please")
            assert not app.facade.busy
            assert not app.main_screen.query_one(StatusLine).model.turn.busy  # spinner stopped
            errors = [
                it.text
                for it in app.main_screen.query_one(Conversation).items
                if it.kind == "error"
            ]
            assert errors, "the failed turn shows an error line"
            assert "agent 'fake'" in errors[-1]
            assert "choices[0].delta.content is a number" in errors[-1]
            assert app.main_screen.query_one(PromptInput).text == "fix the tokenizer please"
            assert session.history == [] and session.current_need != "rewrite the lexer"

            app.main_screen.query_one(PromptInput).set_text("")
            await type_and_send(pilot, "then just say hello")
            assert [t.role for t in session.history] == ["user", "assistant"]
            stored = SessionStore(app.runtime.db).load(session.id)
            assert stored is not None and stored.current_need != "rewrite the lexer"
            assert "rewrite the lexer" not in json.dumps(stored.history[-1].content)


async def test_a_dripping_server_past_turn_timeout_secs_is_warned_about_and_ctrl_c_stops_it() -> (
    None
):
    with FakeOpenAIServer() as srv:
        srv.enqueue(FakeReply(text=["drip "] * 12, drip=0.05))  # ~100 s of body
        agent = AgentConfig(name="fake", provider="local", url=srv.url, model="m", timeout_secs=30)
        agent.limits.turn_timeout_secs = 1
        cfg = MilkConfig(agent="fake", escalation_agent="fake", agents=[agent])
        app = make_app(config=cfg, demo=False)
        async with app.run_test(size=(120, 40)) as pilot:
            # sent without waiting for the turn to end: it ends only by Ctrl+C below
            app.screen.query_one(PromptInput).set_text("take all the time you need")
            await pilot.press("enter")
            conv = app.main_screen.query_one(Conversation)

            def warned() -> list[str]:
                return [it.text for it in conv.items if "turn_timeout_secs" in it.text]

            for _ in range(1500):  # the warning is 1 s away; a deadline, not a duration
                if warned():
                    break
                await pilot.pause(0.02)
            assert warned() == [
                "fake has been at this turn for 1s (turn_timeout_secs); it goes on — "
                "Ctrl+C stops it"
            ], [it.text for it in conv.items]
            assert app.facade.busy  # the turn goes on
            await pilot.press("ctrl+c")
            for _ in range(500):
                if not app.facade.busy:
                    break
                await pilot.pause(0.02)
            await settle(pilot, app)
            assert not app.main_screen.query_one(StatusLine).model.turn.busy
            assert not [it for it in conv.items if it.kind == "error"]
            assert app.runtime.dispatcher.session.history == []
