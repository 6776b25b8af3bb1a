"""The OpenAI-compatible agent against the fake server: what it SENDS and what it yields."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest

from agents.helpers import cancel, primary_request, stream_until
from milk_tui.agents import base as ab
from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.agents.tools import BuiltinToolBox, CompositeToolBox, LocalToolBox, Tool
from milk_tui.config.settings import AgentConfig
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall, usage
from milk_tui.testing.waits import until


def agent_for(srv: FakeOpenAIServer, **kw) -> OpenAICompatAgent:  # noqa: ANN003
    opts = {k: kw.pop(k) for k in ("max_tool_iterations", "tool_timeout", "debug_log") if k in kw}
    cfg = AgentConfig(name="llama", url=srv.url, model=kw.pop("model", "qwen"), **kw)
    return OpenAICompatAgent(cfg, **opts)


async def run(agent: OpenAICompatAgent, prompt: str = "hi", **kw) -> list:  # noqa: ANN003
    out = [ev async for ev in agent.stream(primary_request(prompt, **kw))]
    await agent.aclose()
    return out


def text_of(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, ab.TextChunk))


async def test_request_shape_and_events(fake_openai: FakeOpenAIServer, tmp_path: Path) -> None:
    fake_openai.enqueue(
        FakeReply(
            reasoning=["let me ", "think"], text=["Hel", "lo"], usage=usage(619, 17, cached=576)
        )
    )
    box = BuiltinToolBox(
        tmp_path, on_need=lambda g: None, on_record_memory=None, allow_escalate=True
    )
    history = [
        ab.ChatMessage("user", "[user to llama] before"),
        ab.ChatMessage("assistant", "ok"),
        ab.ChatMessage("system", "[claude as escalation] did it"),
    ]
    events = await run(
        agent_for(fake_openai), "now", system_prompt="You are llama.", messages=history, tools=box
    )
    body = fake_openai.chat_requests[0].json
    assert body["model"] == "qwen" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "You are llama."},
        {"role": "user", "content": "[user to llama] before"},
        {"role": "assistant", "content": "ok"},
        {"role": "system", "content": "[claude as escalation] did it"},
        {"role": "user", "content": "now"},
    ]
    names = [t["function"]["name"] for t in body["tools"]]
    assert names == [s.name for s in box.specs()]
    assert all(
        t["type"] == "function" and t["function"]["parameters"]["type"] == "object"
        for t in body["tools"]
    )
    # The thoughts first, then the text; how they were cut carries no meaning (read_ahead
    # joins what arrived together).
    k = next(i for i, e in enumerate(events) if not isinstance(e, ab.ThinkingChunk))
    assert "".join(e.text for e in events[:k] if isinstance(e, ab.ThinkingChunk)) == "let me think"
    assert isinstance(events[k], ab.TextChunk)
    assert text_of(events) == "Hello"
    assert ab.UsageEvent("qwen", prompt_tokens=43, completion_tokens=17, cache_read=576) in events
    assert events[-1] == ab.Finished(stop_reason="stop")


async def test_no_tools_key_without_tools_and_extra_sampling_keys(
    fake_openai: FakeOpenAIServer,
) -> None:
    await run(agent_for(fake_openai, temperature=0.2, max_tokens=64))
    body = fake_openai.chat_requests[0].json
    assert "tools" not in body
    assert body["temperature"] == 0.2 and body["max_tokens"] == 64


async def test_chat_path_and_bearer_only_for_bearer_providers(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.chat_path = "/api/chat"
    await run(
        agent_for(
            fake_openai,
            provider="openrouter",
            api_key="sk-test-123",
            chat_path="api/chat",
            headers={"X-Title": "milk", "Authorization": "Bearer old"},
        )
    )
    await run(
        agent_for(fake_openai, provider="local", api_key="sk-test-123", chat_path="/api/chat")
    )
    bearer, local = fake_openai.chat_requests
    assert bearer.path == "/api/chat"
    assert bearer.headers["authorization"] == "Bearer sk-test-123"  # auth beats `headers`
    assert bearer.headers["x-title"] == "milk"
    assert "authorization" not in local.headers


def counting_token_cmd(tmp_path: Path) -> str:
    counter = tmp_path / "n"
    return (
        f"n=$(cat {counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {counter}; "
        f'echo "  tok-$n-s3cr3t  "'
    )


async def test_token_cmd_refreshed_once_on_401(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    fake_openai.enqueue(
        FakeReply(status=401, error_body='{"error":{"message":"expired"}}'),
        FakeReply(text=["fine"]),
    )
    events = await run(
        agent_for(
            fake_openai,
            provider="bearer",
            api_key="ignored",
            token_cmd=counting_token_cmd(tmp_path),
        )
    )
    assert text_of(events) == "fine"
    auths = [r.headers["authorization"] for r in fake_openai.chat_requests]
    assert auths == ["Bearer tok-1-s3cr3t", "Bearer tok-2-s3cr3t"]  # trimmed, wins over key


async def test_token_cmd_second_403_is_the_error(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    fake_openai.enqueue(
        FakeReply(status=403, error_body="denied"), FakeReply(status=403, error_body="still denied")
    )
    with pytest.raises(ab.AgentError) as e:
        await run(agent_for(fake_openai, token_cmd=counting_token_cmd(tmp_path)))
    assert str(e.value) == "agent 'llama': HTTP 403: still denied"
    assert e.value.status == 403
    assert len(fake_openai.chat_requests) == 2  # retried exactly once


async def test_token_cmd_failure_is_worded(fake_openai: FakeOpenAIServer) -> None:
    with pytest.raises(ab.AgentError, match=r"token_cmd `echo` failed \(exit 3\)$"):
        await run(agent_for(fake_openai, token_cmd="echo 'no creds' >&2; exit 3"))
    with pytest.raises(ab.AgentError, match="token_cmd: empty output"):
        await run(agent_for(fake_openai, token_cmd="true"))
    assert fake_openai.chat_requests == []


def _slow_fast_box(order: list[str]) -> LocalToolBox:
    async def slow(args: dict) -> ab.ToolOutcome:
        # Still running until the other call of the round has finished: a round run one
        # call after the other never gets there (and fails naming this wait).
        await until(None, lambda: "fast" in order, what="the fast call to run meanwhile")
        order.append("slow")
        return ab.ToolOutcome("slow result")

    async def fast(args: dict) -> ab.ToolOutcome:
        order.append("fast")
        return ab.ToolOutcome("fast result")

    obj = {"type": "object"}
    return LocalToolBox(
        [Tool(ab.ToolSpec("slow", "s", obj), slow), Tool(ab.ToolSpec("fast", "f", obj), fast)]
    )


async def test_tool_round_runs_concurrently_results_in_call_order(
    fake_openai: FakeOpenAIServer,
) -> None:
    order: list[str] = []
    fake_openai.enqueue(
        FakeReply(
            text=["checking"],
            tool_calls=[
                FakeToolCall("slow", "{}", id="c1"),
                FakeToolCall("fast", '{"a": 1}', id="c2"),
            ],
            usage=usage(10, 5),
        ),
        FakeReply(text=["done"], usage=usage(30, 2)),
    )
    events = await run(agent_for(fake_openai), tools=CompositeToolBox([_slow_fast_box(order)]))
    assert order == ["fast", "slow"]  # ran concurrently
    kinds = [
        (type(e).__name__, getattr(e, "call_id", ""))
        for e in events
        if isinstance(e, ab.ToolCallEvent | ab.ToolResultEvent)
    ]
    assert kinds == [
        ("ToolCallEvent", "c1"),
        ("ToolCallEvent", "c2"),
        ("ToolResultEvent", "c1"),
        ("ToolResultEvent", "c2"),
    ]
    assert sum(isinstance(e, ab.UsageEvent) for e in events) == 2  # one per inference call
    second = fake_openai.chat_requests[1].json["messages"]
    assert second[-3] == {
        "role": "assistant",
        "content": "checking",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "slow", "arguments": "{}"}},
            {"id": "c2", "type": "function", "function": {"name": "fast", "arguments": '{"a": 1}'}},
        ],
    }
    assert second[-2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": json.dumps({"output": "slow result"}),
    }
    assert second[-1]["tool_call_id"] == "c2"
    assert text_of(events) == "checkingdone"


async def test_invalid_tool_arguments_are_fed_back_not_fatal(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    fake_openai.enqueue(
        FakeReply(tool_calls=[FakeToolCall("read_file", '{"path": "a.txt"', id="bad")]),
        FakeReply(text=["sorry"]),
    )
    box = BuiltinToolBox(
        tmp_path, on_need=lambda g: None, on_record_memory=None, allow_escalate=False
    )
    events = await run(agent_for(fake_openai), tools=CompositeToolBox([box]))
    result = next(e for e in events if isinstance(e, ab.ToolResultEvent))
    assert result.is_error and "invalid JSON arguments" in result.content
    sent = fake_openai.chat_requests[1].json["messages"]
    assert sent[-2]["tool_calls"][0]["function"]["arguments"] == "{}"  # echo stays parseable
    assert "invalid JSON arguments" in json.loads(sent[-1]["content"])["error"]
    assert events[-1] == ab.Finished(stop_reason="stop")


async def test_iteration_cap_is_an_error(fake_openai: FakeOpenAIServer, tmp_path: Path) -> None:
    n = iter(range(100))
    fake_openai.responder = lambda req: FakeReply(
        tool_calls=[FakeToolCall("list_dir", json.dumps({"path": f"d{next(n)}"}))]
    )
    box = BuiltinToolBox(
        tmp_path, on_need=lambda g: None, on_record_memory=None, allow_escalate=False
    )
    with pytest.raises(
        ab.AgentError, match=r"^agent 'llama': exceeded maximum tool iterations \(3\)$"
    ):
        await run(agent_for(fake_openai, max_tool_iterations=3), tools=box)
    assert len(fake_openai.chat_requests) == 3


async def test_duplicate_tool_round_ends_the_turn_normally(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    (tmp_path / "f.txt").write_text("data\n")
    same = FakeReply(tool_calls=[FakeToolCall("read_file", '{"path": "f.txt"}')])
    fake_openai.responder = lambda req: same
    box = BuiltinToolBox(
        tmp_path, on_need=lambda g: None, on_record_memory=None, allow_escalate=False
    )
    events = await run(agent_for(fake_openai, max_tool_iterations=5), tools=box)
    assert len(fake_openai.chat_requests) == 2
    assert events[-1] == ab.Finished(stop_reason="repeated_tool_calls")
    assert "read_file" in text_of(events)  # the tool-trail digest instead of an empty answer


async def test_escalate_tool_finishes_with_the_reason(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    fake_openai.enqueue(
        FakeReply(
            tool_calls=[
                FakeToolCall("escalate", '{"reason": "needs a refactor across modules"}'),
                FakeToolCall("list_dir", "{}"),
            ]
        )
    )
    box = BuiltinToolBox(
        tmp_path, on_need=lambda g: None, on_record_memory=None, allow_escalate=True
    )
    events = await run(agent_for(fake_openai), tools=box)
    assert events[-1] == ab.Finished(
        stop_reason="escalate", escalation_reason="needs a refactor across modules"
    )
    assert len(fake_openai.chat_requests) == 1


async def test_reasoning_only_answer_is_promoted_to_text(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.enqueue(FakeReply(reasoning=["The answer ", "is 4."]))
    events = await run(agent_for(fake_openai))
    assert text_of(events) == "The answer is 4."
    # Streamed as thinking first (chunk boundaries carry no meaning: read_ahead joins
    # what arrived together).
    thought = "".join(e.text for e in events if isinstance(e, ab.ThinkingChunk))
    assert thought == "The answer is 4."


async def test_debug_log_has_the_wire_but_no_secrets(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    log = tmp_path / "logs" / "wire.log"
    fake_openai.enqueue(FakeReply(status=401, error_body="expired"), FakeReply(text=["ok"]))
    await run(
        agent_for(
            fake_openai,
            provider="bearer",
            api_key="sk-live-AAAA1111",
            token_cmd=counting_token_cmd(tmp_path),
            headers={"X-Api-Key": "hdr-secret-999"},
            debug_log=log,
        )
    )
    text = log.read_text()
    assert '"content": "hi"' in text and 'data: {"id":"chatcmpl-fake"' in text
    assert "data: [DONE]" in text and "HTTP 401" in text
    for secret in ("s3cr3t", "tok-1", "tok-2", "hdr-secret-999", "sk-live-AAAA1111"):
        assert secret not in text
    assert fake_openai.chat_requests[1].headers["x-api-key"] == "hdr-secret-999"


async def test_backend_echoing_a_secret_is_redacted_in_the_error(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.enqueue(
        FakeReply(
            status=400,
            error_body=json.dumps(
                {
                    "error": {
                        "message": "bad key sk-live-ZZZZ9999 for Authorization: Bearer sk-live-ZZZZ9999"
                    }
                }
            ),
        )
    )
    with pytest.raises(ab.AgentError) as e:
        await run(agent_for(fake_openai, provider="bearer", api_key="sk-live-ZZZZ9999"))
    assert "sk-live-ZZZZ9999" not in str(e.value)
    assert str(e.value).startswith("agent 'llama': HTTP 400: bad key ***")


async def test_available(fake_openai: FakeOpenAIServer) -> None:
    agent = agent_for(fake_openai)
    assert await agent.available()
    assert fake_openai.requests[-1].path == "/v1/models"
    await agent.aclose()
    port = fake_openai.port
    fake_openai.stop()
    dead = OpenAICompatAgent(AgentConfig(name="x", url=f"http://127.0.0.1:{port}"))
    assert not await dead.available()


async def test_cancellation_closes_the_http_stream(fake_openai: FakeOpenAIServer) -> None:
    held = threading.Event()  # never set: the stream runs until the client leaves
    fake_openai.enqueue(FakeReply(text=["tick "] * 400, hold=held, hold_after=2))
    agent = agent_for(fake_openai)
    await cancel(await stream_until(agent, primary_request("go"), ab.TextChunk, 5), 5)
    await until(None, lambda: fake_openai.disconnects, what="the server to see the close")
    assert fake_openai.disconnects == 1 and fake_openai.events_sent == [2]
    await agent.aclose()


async def test_slow_tool_times_out_into_an_error_result(fake_openai: FakeOpenAIServer) -> None:
    async def forever(args: dict) -> ab.ToolOutcome:
        await asyncio.sleep(30)
        return ab.ToolOutcome("never")

    box = LocalToolBox([Tool(ab.ToolSpec("wait", "w", {"type": "object"}), forever)])
    fake_openai.enqueue(
        FakeReply(tool_calls=[FakeToolCall("wait", "{}")]), FakeReply(text=["gave up"])
    )
    events = await run(agent_for(fake_openai, tool_timeout=0.2), tools=box)
    result = next(e for e in events if isinstance(e, ab.ToolResultEvent))
    assert result.is_error and result.content == 'tool "wait" timed out after 0.2s'
    assert text_of(events) == "gave up"


async def test_tool_call_without_a_toolbox_is_answered_with_an_error(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.enqueue(
        FakeReply(tool_calls=[FakeToolCall("bash", '{"command": "ls"}')]), FakeReply(text=["ok"])
    )
    events = await run(agent_for(fake_openai))
    result = next(e for e in events if isinstance(e, ab.ToolResultEvent))
    assert result.is_error and "not available" in result.content


async def test_every_sensitive_header_value_is_redacted_in_errors(
    fake_openai: FakeOpenAIServer,
) -> None:
    """A proxy echoing our request headers must not leak any of them."""
    headers = {"Proxy-Authorization": "Basic cHJveHk6SECRET1", "X-Auth-Token": "tok SECRET2"}
    fake_openai.enqueue(
        FakeReply(
            status=407,
            error_body=json.dumps(
                {
                    "error": {
                        "message": (
                            "proxy refused Proxy-Authorization: Basic cHJveHk6SECRET1 / token tok SECRET2"
                        )
                    }
                }
            ),
        )
    )
    with pytest.raises(ab.AgentError) as e:
        await run(agent_for(fake_openai, headers=headers))
    assert "SECRET1" not in str(e.value) and "SECRET2" not in str(e.value)
    assert "HTTP 407" in str(e.value)
