"""A server's credentials never reach what is stored, shown or logged: the reference
server's ``get-env`` tool and a hostile server echo the secrets of their ``env``, a hostile
server writes one to stderr, a failing ``token_cmd`` prints its token, and a model repeats
one; a real ``milk-tui -p --debug`` run, then the bytes on disk are searched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from peer_missing import needs_peer

from milk_tui.config.mcp import McpServerConfig
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, FakeToolCall
from tests.mcp_servers.test_headless import milk, write_config

pytestmark = pytest.mark.real_peer

EVERY_SECRET = "sk-every-env-5b1e9c2d7a"
LEAK_SECRET = "ghp_leakyEnvToken0042xyz"
TOKEN_SECRET = "tok-failing-cmd-9f3e77"
SECRETS = (EVERY_SECRET, LEAK_SECRET, TOKEN_SECRET)


def assert_no_secret(where: str, data: bytes) -> None:
    for s in SECRETS:
        assert s.encode() not in data, f"{s} in {where}"
        assert s.encode("utf-16-le") not in data, f"{s} (UTF-16) in {where}"


@needs_peer(peers.everything_available(), "npm mcp-server-everything")
def test_server_secrets_are_masked_in_everything_stored_shown_or_logged(
    milk_home: Path, tmp_path: Path
) -> None:
    servers = [
        peers.everything(env={"EVERY_API_TOKEN": EVERY_SECRET, "EVERY_MODE": "plain-value"}),
        peers.hostile("leaky", "leak", "LEAK_TOKEN", env={"LEAK_TOKEN": LEAK_SECRET}),
        McpServerConfig(
            name="tok",
            url="http://127.0.0.1:9/mcp",
            auth="token_cmd",
            token_cmd=f"echo {TOKEN_SECRET} >&2; exit 1",
        ),
    ]
    with FakeOpenAIServer() as srv:
        write_config(milk_home, srv, servers)
        (milk_home / "config.json").chmod(0o600)  # holding keys: else a warning of its own
        calls = [
            FakeToolCall("mcp__every__get-env", "{}", id="c1"),
            FakeToolCall("mcp__leaky__leak", "{}", id="c2"),
        ]
        repeat = [f"done: {LEAK_SECRET[:7]}", f"{LEAK_SECRET[7:]} and {EVERY_SECRET}"]
        srv.enqueue(FakeReply(tool_calls=calls), FakeReply(text=repeat))
        code, out, err = milk(milk_home, tmp_path, "--allow-tools", "--debug")
        to_model = srv.chat_requests[1].json["messages"]

    assert code == 0, err
    assert out.strip() == "done: *** and ***"
    assert err.splitlines() == [
        "milk-tui: mcp server 'tok' needs auth: token_cmd `echo` failed (exit 1)"
    ]
    results = {m["tool_call_id"]: json.loads(m["content"]) for m in to_model if m["role"] == "tool"}
    env = json.loads(results["c1"]["output"])
    assert env["EVERY_API_TOKEN"] == "***" and env["EVERY_MODE"] == "plain-value"
    assert results["c2"] == {"output": "the secret is ***."}
    assert_no_secret("the request to the model", json.dumps(to_model).encode())

    assert_no_secret("-p stdout", out.encode())
    assert_no_secret("-p stderr", err.encode())
    stored = b"".join(p.read_bytes() for p in milk_home.glob("milk.db*"))
    assert b"done: *** and ***" in stored  # the reply that repeated them, masked
    assert_no_secret("the session database", stored)
    wire = (milk_home / "wire-debug.log").read_bytes()
    assert b"the secret is ***." in wire
    assert_no_secret("the --debug wire log", wire)
    logs = sorted((milk_home / "mcp").glob("*.log*"))
    assert {p.name for p in logs} >= {"every.log", "leaky.log"}
    for p in logs:
        assert_no_secret(str(p), p.read_bytes())
    assert "starting with *** in my environment" in (milk_home / "mcp" / "leaky.log").read_text()


async def test_a_key_and_a_token_cmd_output_echoed_by_any_server_are_masked(
    tmp_path: Path,
) -> None:
    """The values under plain names reach the tools only because the servers echo them;
    what makes them secret is the other entries' ``api_key`` and ``token_cmd`` output."""
    from milk_tui.agents.mcp.manager import McpManager

    key, token = "k3y-of-the-api-entry", "t0ken-printed-by-cmd"
    servers = [
        peers.hostile("a", "leak", "PLAIN_A", env={"PLAIN_A": key}),
        peers.hostile("b", "leak", "PLAIN_B", env={"PLAIN_B": token}),
        McpServerConfig(name="api", url="http://127.0.0.1:9/mcp", auth="bearer", api_key=key),
        McpServerConfig(
            name="cmd", url="http://127.0.0.1:9/mcp", auth="token_cmd", token_cmd=f"echo {token}"
        ),
    ]
    m = McpManager(servers, log_dir=tmp_path / "mcp", cwd=str(tmp_path))
    try:
        await m.wait_settled(60)
        box = m.toolbox()
        assert (await box.call("mcp__a__leak", "{}")).content == "the secret is ***."
        assert (await box.call("mcp__b__leak", "{}")).content == "the secret is ***."
    finally:
        await m.aclose()
