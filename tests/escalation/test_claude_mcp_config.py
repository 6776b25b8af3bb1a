"""The Claude CLI gets the MCP servers through a generated ``--mcp-config``: the payload,
its permissions and removal, and the REAL CLI reporting the servers in its init event."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from peer_missing import needs_peer

from milk_tui.agents import base as ab
from milk_tui.agents.claude_cli import ClaudeCliAgent
from milk_tui.agents.mcp import claude_config
from milk_tui.agents.redact import Redactor
from milk_tui.config.mcp import McpServerConfig
from milk_tui.config.settings import AgentConfig
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.fake_anthropic import FakeAnthropic, Reply

SERVERS = [
    McpServerConfig(name="local", command="node", args=["server.js"], env={"A": "1"}),
    McpServerConfig(name="api", url="https://mcp.example/mcp", auth="bearer", api_key="k-123456"),
    McpServerConfig(
        name="cmd", url="https://m.example/mcp", auth="token_cmd", token_cmd="echo t-9876"
    ),
    McpServerConfig(
        name="broken", url="https://b.example/mcp", auth="token_cmd", token_cmd="exit 1"
    ),
    McpServerConfig(name="open", url="https://o.example/sse", transport="sse"),
]


async def test_payload_has_stdio_http_and_bearer_entries() -> None:
    body = await claude_config.payload(SERVERS, Redactor())
    assert body == {
        "mcpServers": {
            "local": {"type": "stdio", "command": "node", "args": ["server.js"], "env": {"A": "1"}},
            "api": {
                "type": "http",
                "url": "https://mcp.example/mcp",
                "headers": {"Authorization": "Bearer k-123456"},
            },
            "cmd": {
                "type": "http",
                "url": "https://m.example/mcp",
                "headers": {"Authorization": "Bearer t-9876"},
            },
            "open": {"type": "sse", "url": "https://o.example/sse"},
        }
    }


async def test_the_file_is_private_and_none_without_servers() -> None:
    assert await claude_config.write_mcp_config([], Redactor()) is None
    path = await claude_config.write_mcp_config(SERVERS[:2], Redactor())
    assert path is not None
    try:
        assert stat.S_IMODE(Path(path).stat().st_mode) == 0o600
        assert claude_config.mcp_config_argv(path) == ["--mcp-config", path]
    finally:
        claude_config.remove(path)
    assert not Path(path).exists()


@pytest.mark.real_peer
@needs_peer(
    peers.everything_available(),
    "the reference MCP server (npm @modelcontextprotocol/server-everything)",
)
async def test_the_real_cli_connects_to_the_servers_and_the_file_is_gone(
    claude_bin: str,
    real_claude_env: dict[str, str],
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    private_tmpdir: Path,
) -> None:
    wire = tmp_path / "wire.log"
    agent = ClaudeCliAgent(
        AgentConfig(name="claude", provider="claude-cli", bin=claude_bin),
        env=real_claude_env,
        debug_log=wire,
        mcp_servers=[peers.everything()],
    )
    fake_anthropic.push(Reply.text("ok"))
    assert claude_config.tempfile.gettempdir() == str(private_tmpdir)
    events = [
        e
        async for e in agent.stream(
            ab.AgentRequest(slot="escalation", prompt="hi", cwd=str(tmp_path))
        )
    ]
    assert isinstance(events[-1], ab.Finished)
    init = next(
        json.loads(line[line.index("{") :])
        for line in wire.read_text().splitlines()
        if '"subtype":"init"' in line.replace(" ", "")
    )
    assert {"name": "every", "status": "connected"} in init["mcp_servers"]
    assert any(t.startswith("mcp__every__") for t in init["tools"])
    assert list(private_tmpdir.glob("milk-mcp-*.json")) == []  # written, used, removed
