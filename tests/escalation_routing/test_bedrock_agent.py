"""BedrockAgent through REAL boto3/botocore against the event-stream fake (no stubs)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from agents.helpers import cancel, stream_until

from milk_tui.agents import base as ab
from milk_tui.agents.bedrock import BedrockAgent
from milk_tui.testing.fake_bedrock import TEST_KEY_ID as FAKE_KEY_ID
from milk_tui.testing.fake_bedrock import TEST_MODEL_ID as MODEL_ID
from milk_tui.testing.fake_bedrock import TEST_SECRET as FAKE_SECRET
from milk_tui.testing.fake_bedrock import Reply
from milk_tui.testing.fake_bedrock import agent_config as bedrock_config
from milk_tui.testing.waits import until


class RecordingTools:
    """A ToolBox that records calls; ``escalate`` ends the loop like the real tool."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []

    def specs(self) -> list[ab.ToolSpec]:
        return [
            ab.ToolSpec(
                "read_file",
                "Read a file",
                {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            ),
            ab.ToolSpec(
                "escalate",
                "Hand off",
                {"type": "object", "properties": {"reason": {"type": "string"}}},
            ),
        ]

    async def call(self, name: str, arguments: str) -> ab.ToolOutcome:
        args = json.loads(arguments)
        self.calls.append((name, args))
        if name == "escalate":
            return ab.ToolOutcome("escalating", escalate_reason=args.get("reason", ""))
        return ab.ToolOutcome(f"contents of {args['path']}")


def req(prompt: str = "hello", **kw) -> ab.AgentRequest:
    return ab.AgentRequest(slot="escalation", prompt=prompt, cwd=".", **kw)


async def collect(agent: BedrockAgent, request: ab.AgentRequest) -> list:
    return [ev async for ev in agent.stream(request)]


async def test_streamed_text_usage_and_signed_request(fake_bedrock):
    fake_bedrock.script(
        Reply().text("Hel", "lo", " world").usage(11, 5, cache_read=7, cache_write=2)
    )
    agent = BedrockAgent(bedrock_config(fake_bedrock))
    events = await collect(agent, req("say hello"))
    assert "".join(e.text for e in events if isinstance(e, ab.TextChunk)) == "Hello world"
    assert [type(e) for e in events][-2:] == [ab.UsageEvent, ab.Finished]
    usage = events[-2]
    # Bedrock numbers are additive: inputTokens already excludes the cached part.
    assert (
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.cache_read,
        usage.cache_creation,
    ) == (11, 5, 7, 2)
    assert usage.model == MODEL_ID and usage.role_suffix == ""
    assert events[-1].stop_reason == "end_turn"
    sent = fake_bedrock.stream_requests[0]
    assert sent.model_id == MODEL_ID and "%3A" in sent.path  # one percent-encoded path segment
    assert sent.access_key_id == FAKE_KEY_ID
    assert sent.headers["authorization"].startswith("AWS4-HMAC-SHA256 ")
    assert sent.body["messages"] == [{"role": "user", "content": [{"text": "say hello"}]}]
    assert "toolConfig" not in sent.body and "system" not in sent.body


async def test_reasoning_content_becomes_thinking(fake_bedrock):
    fake_bedrock.script(Reply().reasoning("let me ", "think").text("answer"))
    events = await collect(BedrockAgent(bedrock_config(fake_bedrock)), req())
    assert "".join(e.text for e in events if isinstance(e, ab.ThinkingChunk)) == "let me think"
    assert "".join(e.text for e in events if isinstance(e, ab.TextChunk)) == "answer"
    assert events.index(next(e for e in events if isinstance(e, ab.ThinkingChunk))) < events.index(
        next(e for e in events if isinstance(e, ab.TextChunk))
    )


async def test_tool_use_round_trip(fake_bedrock):
    fake_bedrock.script(
        Reply()
        .reasoning("need the file", signature="sig-1")
        .text("Looking.")
        .tool_use("tu-1", "read_file", {"path": "README.md"}, pieces=3)
        .usage(20, 8),
        Reply().text("The README says hi.").usage(40, 6),
    )
    tools = RecordingTools()
    events = await collect(
        BedrockAgent(bedrock_config(fake_bedrock)), req("what is in README.md", tools=tools)
    )
    assert tools.calls == [("read_file", {"path": "README.md"})]
    call = next(e for e in events if isinstance(e, ab.ToolCallEvent))
    assert (call.call_id, call.name, json.loads(call.arguments)) == (
        "tu-1",
        "read_file",
        {"path": "README.md"},
    )
    result = next(e for e in events if isinstance(e, ab.ToolResultEvent))
    assert (result.call_id, result.content, result.is_error) == (
        "tu-1",
        "contents of README.md",
        False,
    )
    assert [u.prompt_tokens for u in events if isinstance(u, ab.UsageEvent)] == [20, 40]
    assert events[-1] == ab.Finished(stop_reason="end_turn")

    first, second = fake_bedrock.stream_requests
    specs = {t["toolSpec"]["name"]: t["toolSpec"] for t in first.body["toolConfig"]["tools"]}
    assert specs["read_file"]["inputSchema"]["json"]["required"] == ["path"]
    assert second.body["toolConfig"] == first.body["toolConfig"]
    assistant, results = second.body["messages"][-2:]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0] == {
        "reasoningContent": {"reasoningText": {"text": "need the file", "signature": "sig-1"}}
    }
    assert {"text": "Looking."} in assistant["content"]
    assert {
        "toolUse": {"toolUseId": "tu-1", "name": "read_file", "input": {"path": "README.md"}}
    } in assistant["content"]
    assert results == {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "tu-1", "content": [{"text": "contents of README.md"}]}}
        ],
    }


async def test_escalate_tool_finishes_with_reason(fake_bedrock):
    fake_bedrock.script(Reply().tool_use("tu-9", "escalate", {"reason": "needs a bigger model"}))
    events = await collect(BedrockAgent(bedrock_config(fake_bedrock)), req(tools=RecordingTools()))
    assert events[-1].escalation_reason == "needs a bigger model"
    assert len(fake_bedrock.stream_requests) == 1


async def test_tool_iteration_cap_is_an_error(fake_bedrock):
    fake_bedrock.script(
        *[Reply().tool_use(f"t{i}", "read_file", {"path": f"f{i}"}) for i in range(5)]
    )
    agent = BedrockAgent(bedrock_config(fake_bedrock), max_tool_iterations=2)
    with pytest.raises(
        ab.AgentError,
        match=r"^bedrock agent 'bedrock-claude': exceeded maximum tool iterations \(2\)$",
    ) as info:
        await collect(agent, req(tools=RecordingTools()))
    assert info.value.agent == "bedrock-claude"
    # The same cap as every API backend: at most that many model calls per turn.
    assert len(fake_bedrock.stream_requests) == 2


async def test_repeating_the_same_tool_call_ends_the_turn(fake_bedrock):
    same = {"path": "a.txt"}
    fake_bedrock.script(
        Reply().tool_use("t1", "read_file", same), Reply().tool_use("t2", "read_file", same)
    )
    tools = RecordingTools()
    events = await collect(BedrockAgent(bedrock_config(fake_bedrock)), req(tools=tools))
    assert len(tools.calls) == 1
    assert events[-1].stop_reason == "repeated_tool_calls"
    assert "read_file" in "".join(e.text for e in events if isinstance(e, ab.TextChunk))


class SlowTools(RecordingTools):
    """``read_file`` of ``slow`` never returns; the others answer at once."""

    async def call(self, name: str, arguments: str) -> ab.ToolOutcome:
        if json.loads(arguments).get("path") == "slow":
            await asyncio.sleep(30)
        return await super().call(name, arguments)


async def test_tools_run_concurrently_with_a_timeout(fake_bedrock):
    fake_bedrock.script(
        Reply()
        .tool_use("t1", "read_file", {"path": "slow"})
        .tool_use("t2", "read_file", {"path": "fast"}),
        Reply().text("done"),
    )
    agent = BedrockAgent(bedrock_config(fake_bedrock), tool_timeout=0.3)
    events = await collect(agent, req(tools=SlowTools()))
    results = [
        (e.call_id, e.content, e.is_error) for e in events if isinstance(e, ab.ToolResultEvent)
    ]
    assert results == [
        ("t1", 'tool "read_file" timed out after 0.3s', True),
        ("t2", "contents of fast", False),
    ]
    sent = fake_bedrock.stream_requests[1].body["messages"][-1]["content"]
    assert [b["toolResult"]["toolUseId"] for b in sent] == ["t1", "t2"]
    assert sent[0]["toolResult"]["status"] == "error"
    assert events[-1] == ab.Finished(stop_reason="end_turn")


@pytest.mark.parametrize(
    "code,retryable",
    [
        ("throttlingException", True),
        ("modelStreamErrorException", False),
        ("validationException", False),
        ("serviceUnavailableException", True),
    ],
)
async def test_in_stream_exception_becomes_agent_error(fake_bedrock, code, retryable):
    fake_bedrock.script(Reply().text("partial ").exception(code, f"{code} happened mid-stream"))
    got: list = []
    with pytest.raises(ab.AgentError) as info:
        async for ev in BedrockAgent(bedrock_config(fake_bedrock)).stream(req()):
            got.append(ev)
    assert [e.text for e in got if isinstance(e, ab.TextChunk)] == ["partial "]
    msg = str(info.value)
    assert "bedrock-claude" in msg and code in msg and f"{code} happened mid-stream" in msg
    assert info.value.retryable is retryable


async def test_http_error_names_status_and_code(fake_bedrock):
    fake_bedrock.script(
        Reply.http_error(400, "ValidationException", "messages: roles must alternate")
    )
    with pytest.raises(ab.AgentError) as info:
        await collect(BedrockAgent(bedrock_config(fake_bedrock)), req())
    assert str(info.value) == (
        "bedrock agent 'bedrock-claude': ValidationException (HTTP 400): "
        "messages: roles must alternate"
    )
    assert info.value.status == 400


def refresh_script(tmp_path: Path, key_id: str, *, fail: bool = False) -> tuple[str, Path]:
    runs = tmp_path / "refresh-runs.txt"
    script = tmp_path / "refresh.py"
    script.write_text(
        "import json, sys\n"
        f"open({str(runs)!r}, 'a').write('run\\n')\n"
        + ("sys.stderr.write('sso login required\\n'); sys.exit(3)\n" if fail else "")
        + f"print(json.dumps({{'AccessKeyId': {key_id!r}, 'SecretAccessKey': 'new-secret-xyz',"
        " 'SessionToken': 'new-token-abc'}))\n"
    )
    return f"{sys.executable} {script}", runs


async def test_403_runs_refresh_cmd_once_then_succeeds(fake_bedrock, tmp_path):
    cmd, runs = refresh_script(tmp_path, "AKIAREFRESHED0002")
    fake_bedrock.accepted_key_ids = {"AKIAREFRESHED0002"}
    fake_bedrock.script(Reply().text("after refresh"))
    agent = BedrockAgent(bedrock_config(fake_bedrock, aws_refresh_cmd=cmd))
    events = await collect(agent, req())
    assert "".join(e.text for e in events if isinstance(e, ab.TextChunk)) == "after refresh"
    assert runs.read_text().count("run") == 1
    assert [r.access_key_id for r in fake_bedrock.stream_requests] == [
        FAKE_KEY_ID,
        "AKIAREFRESHED0002",
    ]
    assert "x-amz-security-token" in fake_bedrock.stream_requests[1].headers
    # The refreshed credentials stay in use for the next turn: no second refresh.
    await collect(agent, req("again"))
    assert runs.read_text().count("run") == 1


async def test_403_refresh_is_tried_once_per_turn(fake_bedrock, tmp_path):
    cmd, runs = refresh_script(tmp_path, "AKIASTILLWRONG003")
    fake_bedrock.accepted_key_ids = {"AKIANEVERACCEPTED"}
    with pytest.raises(ab.AgentError, match="ExpiredTokenException") as info:
        await collect(BedrockAgent(bedrock_config(fake_bedrock, aws_refresh_cmd=cmd)), req())
    assert info.value.status == 403
    assert runs.read_text().count("run") == 1
    assert len(fake_bedrock.stream_requests) == 2


async def test_failed_refresh_reports_original_403(fake_bedrock, tmp_path):
    cmd, runs = refresh_script(tmp_path, "AKIAUNUSED", fail=True)
    fake_bedrock.accepted_key_ids = set()
    with pytest.raises(ab.AgentError) as info:
        await collect(BedrockAgent(bedrock_config(fake_bedrock, aws_refresh_cmd=cmd)), req())
    msg = str(info.value)
    assert "ExpiredTokenException (HTTP 403)" in msg
    assert "aws_refresh_cmd `" in msg and "failed (exit 3): sso login required" in msg
    assert len(fake_bedrock.stream_requests) == 1


async def test_403_without_refresh_cmd_fails_without_secrets(fake_bedrock):
    fake_bedrock.script(
        Reply.http_error(
            403,
            "InvalidSignatureException",
            f"Signature mismatch for {FAKE_KEY_ID} using {FAKE_SECRET}",
        )
    )
    with pytest.raises(ab.AgentError) as info:
        await collect(BedrockAgent(bedrock_config(fake_bedrock)), req())
    msg = str(info.value)
    assert "InvalidSignatureException (HTTP 403)" in msg
    assert FAKE_SECRET not in msg and FAKE_KEY_ID not in msg and "***" in msg


async def test_default_credential_chain_from_environment(fake_bedrock, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFROMENVIRON04")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "env-secret")
    agent = BedrockAgent(bedrock_config(fake_bedrock, aws_key_id="", aws_secret=""))
    assert await agent.available()
    await collect(agent, req())
    assert fake_bedrock.stream_requests[0].access_key_id == "AKIAFROMENVIRON04"


async def test_no_credentials_anywhere(fake_bedrock):
    agent = BedrockAgent(bedrock_config(fake_bedrock, aws_key_id="", aws_secret=""))
    assert not await agent.available()
    with pytest.raises(ab.AgentError, match="no AWS credentials found"):
        await collect(agent, req())
    assert fake_bedrock.requests == []


async def test_available_from_profile_or_refresh_cmd(fake_bedrock, tmp_path, monkeypatch):
    cfg_file = tmp_path / "aws-config"
    cfg_file.write_text("[profile work]\ncredential_process = /bin/false\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(cfg_file))
    bare = bedrock_config(fake_bedrock, aws_key_id="", aws_secret="")
    assert not await BedrockAgent(bare).available()
    monkeypatch.setenv("AWS_PROFILE", "work")
    assert await BedrockAgent(bare).available()
    monkeypatch.delenv("AWS_PROFILE")
    assert await BedrockAgent(bare.model_copy(update={"aws_refresh_cmd": "get-creds"})).available()
    assert fake_bedrock.requests == []  # availability never touches the network


async def test_system_messages_land_in_system_array(fake_bedrock):
    messages = [
        ab.ChatMessage("system", "[Orientation] you are the escalation agent"),
        ab.ChatMessage("system", "[Remembered facts] tests use pytest"),
        ab.ChatMessage("user", "[user to llama] list files"),
        ab.ChatMessage("system", "[llama as primary] a.txt b.txt"),
        ab.ChatMessage("user", "[user to bedrock-claude] why so slow?"),
        ab.ChatMessage("assistant", "Because of the N+1 query."),
    ]
    await collect(
        BedrockAgent(bedrock_config(fake_bedrock)),
        req("fix it", system_prompt="ROLE PROMPT", messages=messages),
    )
    body = fake_bedrock.stream_requests[0].body
    assert [b["text"] for b in body["system"]] == [
        "ROLE PROMPT",
        "[Orientation] you are the escalation agent",
        "[Remembered facts] tests use pytest",
        "[llama as primary] a.txt b.txt",
    ]
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user"]  # consecutive users merged, alternation kept
    assert [b["text"] for b in body["messages"][0]["content"]] == [
        "[user to llama] list files",
        "[user to bedrock-claude] why so slow?",
    ]
    assert body["messages"][-1]["content"] == [{"text": "fix it"}]


async def test_cancel_stops_the_stream_promptly(fake_bedrock):
    fake_bedrock.script(Reply().text("first words").hold())
    agent = BedrockAgent(bedrock_config(fake_bedrock, timeout_secs=120))
    task = await stream_until(agent, req(), ab.TextChunk, 10)
    # Without the socket shutdown the worker would sit in recv() for the 120 s read timeout.
    await cancel(task, 10)
    await until(
        None,
        lambda: not any(t.name.startswith("bedrock-") for t in threading.enumerate()),
        what="the bedrock worker threads to end",
    )


async def test_complete_uses_converse(fake_bedrock):
    fake_bedrock.script(Reply().text("escalate"))
    answer = await BedrockAgent(bedrock_config(fake_bedrock)).complete("classify this")
    assert answer == "escalate"
    assert fake_bedrock.requests[0].operation == "converse"


async def test_debug_log_has_traffic_but_no_secrets(fake_bedrock, tmp_path):
    log = tmp_path / "wire.log"
    fake_bedrock.script(Reply().text("logged"))
    await collect(BedrockAgent(bedrock_config(fake_bedrock), debug_log=log), req("log me"))
    text = log.read_text()
    assert "log me" in text and "logged" in text
    assert FAKE_SECRET not in text and FAKE_KEY_ID not in text


def test_importing_the_agent_does_not_import_boto3():
    code = (
        "import sys, milk_tui.agents.bedrock, milk_tui.agents.factory; "
        "print('boto3' in sys.modules, 'botocore' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


async def test_no_credentials_but_refresh_cmd_fetches_them_first(fake_bedrock, tmp_path):
    cmd, runs = refresh_script(tmp_path, "AKIAFROMREFRESH05")
    agent = BedrockAgent(
        bedrock_config(fake_bedrock, aws_key_id="", aws_secret="", aws_refresh_cmd=cmd)
    )
    events = await collect(agent, req())
    assert isinstance(events[-1], ab.Finished)
    assert runs.read_text().count("run") == 1
    assert [r.access_key_id for r in fake_bedrock.stream_requests] == ["AKIAFROMREFRESH05"]
