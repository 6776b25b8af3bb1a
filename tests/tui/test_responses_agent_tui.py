"""An ``api_format = "responses"`` agent in the real TUI (Pilot, the fake Responses API
server): a turn with a tool round shows the tool and the answer and is recorded; a
``response.failed`` ends the next turn with one error line and the app is ready again."""

from __future__ import annotations

from pathlib import Path

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.testing.fake_openai_responses import (
    FakeResponsesServer,
    FakeToolCall,
    ResponsesReply,
    responses_usage,
)
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.tool_line import ToolLine
from tui.conftest import make_app, type_and_send


async def test_a_responses_agent_answers_with_a_tool_round_then_fails_cleanly(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    with FakeResponsesServer() as srv:
        srv.enqueue(
            ResponsesReply(
                tool_calls=[FakeToolCall("read_file", '{"path": "notes.txt"}', id="c1")],
                usage=responses_usage(90, 9, cached=60),
            ),
            ResponsesReply(text=["The note says: ", "remember the milk."]),
            ResponsesReply(text=["par"], failed="the model fell over"),
        )
        agent = AgentConfig(
            name="gpt", provider="local", url=srv.url, model="m", api_format="responses"
        )
        cfg = MilkConfig(agent="gpt", escalation_agent="gpt", agents=[agent])
        app = make_app(config=cfg, demo=False, cwd=str(tmp_path))
        async with app.run_test(size=(120, 40)) as pilot:
            await type_and_send(pilot, "what does my note say?")
            items = app.main_screen.query_one(Conversation).items
            replies = [it.text for it in items if it.kind == "reply"]
            assert replies and replies[-1].endswith("The note says: remember the milk.")
            tool = app.main_screen.query_one(ToolLine)
            assert tool.tool_name == "read_file" and "remember the milk" in tool.result
            assert not tool.is_error
            session = app.runtime.dispatcher.session
            assert [t.role for t in session.history][-1] == "assistant"
            recorded = len(session.history)

            await type_and_send(pilot, "and another thing")
            errors = [it.text for it in items if it.kind == "error"]
            assert len(errors) == 1
            assert "agent 'gpt'" in errors[0] and "the model fell over" in errors[0]
            assert not app.facade.busy
            assert app.main_screen.query_one(PromptInput).text == "and another thing"
            assert len(session.history) == recorded  # the failed turn recorded nothing
        assert [r.path for r in srv.chat_requests] == ["/v1/responses"] * 3
