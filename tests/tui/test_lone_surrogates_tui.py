"""A reply holding lone surrogates in the real TUI (Pilot, fake OpenAI server): shown with
U+FFFD, recorded (reply and need), and the next turn works — no crash at the database write."""

from __future__ import annotations

from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.tui.widgets.conversation import Conversation
from tui.conftest import fake_agent_config, make_app, type_and_send

NONCE = "tuinonce02"


async def test_a_reply_with_lone_surrogates_is_shown_and_recorded() -> None:
    need = f"<milk:need:{NONCE}>fix \ud83d the lexer</milk:need:{NONCE}>"
    with FakeOpenAIServer() as srv:
        srv.enqueue(
            FakeReply(text=["Broken \ud800", " text \udfff. ", need]),
            FakeReply(text=["All ", "good."]),
        )
        cfg = fake_agent_config(srv.url)
        app = make_app(config=cfg, demo=False)
        async with app.run_test(size=(120, 40)) as pilot:
            session = app.runtime.dispatcher.session
            session.primary_nonce = NONCE
            await type_and_send(pilot, "say something odd")
            items = app.main_screen.query_one(Conversation).items
            assert not [it.text for it in items if it.kind == "error"]
            assert any("Broken \ufffd text \ufffd." in it.text for it in items)
            await type_and_send(pilot, "then just say hello")
            assert [t.role for t in session.history] == ["user", "assistant"] * 2
            stored = SessionStore(app.runtime.db).load(session.id)
            assert stored is not None
            assert stored.history[1].content == "Broken \ufffd text \ufffd."
            assert stored.current_need == "fix \ufffd the lexer"
