"""Every backend failure is one AgentError naming the agent and the cause (real sockets)."""

from __future__ import annotations

import pytest

from agents.helpers import primary_request
from milk_tui.agents.base import AgentError
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, Hang
from milk_tui.testing.llama_server import free_port


async def fail(url: str, *, timeout: float = 5.0, **kw) -> AgentError:  # noqa: ANN003
    agent = OpenAICompatAgent(AgentConfig(name="llama", url=url, timeout_secs=timeout, **kw))
    try:
        with pytest.raises(AgentError) as e:
            async for _ in agent.stream(primary_request("hi")):
                pass
    finally:
        await agent.aclose()
    assert e.value.agent == "llama"
    return e.value


async def test_http_500_names_status_and_backend_message(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(
        FakeReply(
            status=500,
            error_body='{"error":{"code":500,'
            '"message":"llama_decode failed","type":"server_error"}}',
        )
    )
    err = await fail(fake_openai.url)
    assert str(err) == "agent 'llama': HTTP 500: llama_decode failed"
    assert err.status == 500 and err.retryable


async def test_plain_text_error_body_is_excerpted(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(FakeReply(status=502, error_body="<html>" + "x" * 1000 + "</html>"))
    err = await fail(fake_openai.url)
    assert str(err).startswith("agent 'llama': HTTP 502: <html>xxx")
    assert len(str(err)) < 400


async def test_connection_closed_mid_stream(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(FakeReply(text=["partial"] * 20, cut_after=6))
    err = await fail(fake_openai.url)
    assert str(err).startswith("agent 'llama': stream ended unexpectedly")


async def test_clean_eof_without_done_or_finish(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(
        FakeReply(
            raw_lines=['data: {"choices":[{"index":0,"delta":{"content":"half an answer"}}]}', ""]
        )
    )
    err = await fail(fake_openai.url)
    assert str(err) == ("agent 'llama': stream ended unexpectedly (no [DONE] or finish_reason)")


async def test_finish_reason_without_done_is_accepted(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(FakeReply(text=["fine"], send_done=False))
    agent = OpenAICompatAgent(AgentConfig(name="llama", url=fake_openai.url))
    events = [e async for e in agent.stream(primary_request("x"))]
    await agent.aclose()
    assert events[-1].stop_reason == "stop"


async def test_malformed_sse_chunk(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(FakeReply(text=["a", "b", "c"], malformed_after=2))
    err = await fail(fake_openai.url)
    assert str(err).startswith(
        'agent \'llama\': malformed SSE chunk from backend: {"choices": [{"delta"'
    )


async def test_error_object_inside_the_stream(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(
        FakeReply(
            raw_lines=['data: {"error":{"message":"out of memory","type":"server_error"}}', ""]
        )
    )
    err = await fail(fake_openai.url)
    assert str(err) == "agent 'llama': backend error in stream: out of memory"


@pytest.mark.parametrize("hang", ["before_headers", "after_headers"])
async def test_server_that_never_answers_times_out(
    fake_openai: FakeOpenAIServer, hang: Hang
) -> None:
    fake_openai.enqueue(FakeReply(hang=hang))
    err = await fail(fake_openai.url, timeout=0.5)
    assert str(err) == (
        f"agent 'llama': no response from {fake_openai.url} for 0.5s (timeout_secs)"
    )


async def test_connection_refused() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    err = await fail(url)
    assert str(err).startswith(f"agent 'llama' unreachable at {url} (")


async def test_errors_never_carry_secrets(fake_openai: FakeOpenAIServer) -> None:
    denied = FakeReply(status=401, error_body='{"error":"invalid token s3cr3t-tok"}')
    fake_openai.enqueue(denied, denied)  # the refresh retry is denied too
    err = await fail(fake_openai.url, token_cmd="echo s3cr3t-tok")
    assert "s3cr3t" not in str(err)
    assert str(err).startswith("agent 'llama': HTTP 401: invalid token ***")
