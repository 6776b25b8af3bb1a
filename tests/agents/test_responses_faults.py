"""Every fault of a Responses API stream is one AgentError naming the agent and the cause
(real sockets, the fake Responses server), as on the chat path
(docs/adr/0016-stream-faults-are-turn-errors.md)."""

from __future__ import annotations

import pytest

from agents.helpers import primary_request
from milk_tui.agents.base import AgentError, Finished, TextChunk
from milk_tui.agents.openai_responses import OpenAIResponsesAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_openai_responses import FakeResponsesServer, ResponsesReply
from milk_tui.testing.llama_server import free_port


async def drain(agent: OpenAIResponsesAgent) -> list[object]:
    """One turn's events; the agent's connections are closed either way."""
    try:
        return [e async for e in agent.stream(primary_request("hi"))]
    finally:
        await agent.aclose()


async def fail(url: str, **kw: object) -> AgentError:
    """The one AgentError a turn against ``url`` ends with; it names the agent."""
    config = AgentConfig(name="resp", url=url, api_format="responses", timeout_secs=5, **kw)
    with pytest.raises(AgentError) as e:
        await drain(OpenAIResponsesAgent(config))
    assert e.value.agent == "resp"
    return e.value


@pytest.fixture
def fake():  # noqa: ANN201
    with FakeResponsesServer() as srv:
        yield srv


async def test_cut_stream(fake: FakeResponsesServer) -> None:
    fake.enqueue(ResponsesReply(text=["partial"] * 20, cut_after=8))
    err = await fail(fake.url)
    assert str(err).startswith("agent 'resp': stream ended unexpectedly")
    assert err.retryable


async def test_clean_end_without_completed(fake: FakeResponsesServer) -> None:
    fake.enqueue(
        ResponsesReply(raw_lines=['data: {"type":"response.output_text.delta","delta":"half"}', ""])
    )
    err = await fail(fake.url)
    assert str(err) == "agent 'resp': stream ended unexpectedly (no response.completed)"


async def test_error_event(fake: FakeResponsesServer) -> None:
    fake.enqueue(ResponsesReply(text=["a"], error_event="model overloaded"))
    err = await fail(fake.url)
    assert str(err) == "agent 'resp': backend error in stream: model overloaded"


async def test_error_event_with_a_nested_error_object(fake: FakeResponsesServer) -> None:
    fake.enqueue(
        ResponsesReply(
            raw_lines=['data: {"type":"error","error":{"code":"rate_limit","message":"slow down"}}']
        )
    )
    err = await fail(fake.url)
    assert str(err) == "agent 'resp': backend error in stream: slow down"


async def test_response_failed(fake: FakeResponsesServer) -> None:
    fake.enqueue(ResponsesReply(text=["a", "b"], failed="the model crashed"))
    err = await fail(fake.url)
    assert str(err) == "agent 'resp': backend error in stream: the model crashed"


async def test_response_failed_without_a_message(fake: FakeResponsesServer) -> None:
    fake.enqueue(
        ResponsesReply(raw_lines=['data: {"type":"response.failed","response":{"error":null}}'])
    )
    err = await fail(fake.url)
    assert str(err).endswith("backend error in stream: response failed without an error message")


@pytest.mark.parametrize(
    ("line", "named"),
    [
        (
            '{"type":"response.output_text.delta","delta":5}',
            "response.output_text.delta: delta is a number (expected a string)",
        ),
        (
            '{"type":"response.output_item.added","item":{"type":"function_call","name":["x"]}}',
            "response.output_item.added: item.name is an array (expected a string)",
        ),
        (
            '{"type":"response.function_call_arguments.delta","delta":{}}',
            "response.function_call_arguments.delta: delta is an object (expected a string)",
        ),
        (
            '{"type":"response.completed","response":{"usage":{"input_tokens":"many"}}}',
            "response.completed: response.usage.input_tokens is a string (expected a token count)",
        ),
        (
            '{"type":"response.completed","response":[]}',
            "response.completed: response is an array (expected an object)",
        ),
        ('{"type":7}', "type is a number (expected a string)"),
    ],
)
async def test_a_wrong_typed_event_names_the_field(
    fake: FakeResponsesServer, line: str, named: str
) -> None:
    fake.enqueue(ResponsesReply(raw_lines=["data: " + line, ""]))
    err = await fail(fake.url)
    assert str(err) == f"agent 'resp': malformed SSE chunk from backend: {named}"


async def test_malformed_json(fake: FakeResponsesServer) -> None:
    fake.enqueue(ResponsesReply(text=["a", "b", "c"], malformed_after=4))
    err = await fail(fake.url)
    assert str(err).startswith(
        'agent \'resp\': malformed SSE chunk from backend: {"type": "response.output_text.delta"'
    )


@pytest.mark.parametrize(
    ("status", "body", "message", "retryable"),
    [
        (
            400,
            '{"error":{"message":"Unknown parameter: \'seed\'."}}',
            "Unknown parameter: 'seed'.",
            False,
        ),
        (401, '{"error":{"message":"Incorrect API key"}}', "Incorrect API key", False),
        (404, '{"error":{"message":"not found"}}', "not found", False),
        (429, '{"error":{"message":"Rate limit reached"}}', "Rate limit reached", True),
        (500, "upstream exploded", "upstream exploded", True),
        (503, '{"error":{"message":"overloaded"}}', "overloaded", True),
    ],
)
async def test_http_error_status(
    fake: FakeResponsesServer, status: int, body: str, message: str, retryable: bool
) -> None:
    fake.enqueue(ResponsesReply(status=status, error_body=body))
    err = await fail(fake.url)
    assert str(err) == f"agent 'resp': HTTP {status}: {message}"
    assert err.status == status and err.retryable is retryable


async def test_nothing_listening() -> None:
    err = await fail(f"http://127.0.0.1:{free_port()}")
    assert err.unreachable and "unreachable at" in str(err)


async def test_incomplete_keeps_what_came(fake: FakeResponsesServer) -> None:
    """Cut short by the server's own limit: the text so far is the answer, not a fault."""
    fake.enqueue(ResponsesReply(text=["a long", " answ"], incomplete="max_output_tokens"))
    events = await drain(
        OpenAIResponsesAgent(AgentConfig(name="resp", url=fake.url, api_format="responses"))
    )
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "a long answ"
    assert events[-1] == Finished(stop_reason="max_output_tokens")
