"""What MCP servers may put in front of a model: a server listing a thousand tools, a tool
with a 5 MB description or a 30 KiB schema (``milk_tui/testing/mcp_hostile.py``), cut to
the bounds of ``agents/mcp/limits.py`` with one notice per server naming what was cut."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp_types import Tool

from milk_tui.agents.mcp.limits import (
    ELLIPSIS,
    MAX_DESCRIPTION_CHARS,
    MAX_TOOLS_PER_SERVER,
    MAX_TOOLS_TOTAL,
    bound_server_tools,
)
from milk_tui.agents.mcp.manager import McpManager
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from tests.mcp_servers.test_headless import milk, write_config


def tool(name: str, description: str = "d", schema: dict | None = None) -> Tool:
    return Tool(name=name, description=description, input_schema=schema or {"type": "object"})


def test_each_bound_cuts_and_says_so_once() -> None:
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(2000)}}
    tools = [tool("long", "x" * 10_000), tool("wide", schema=wide), tool("n" * 300)]
    tools += [tool(f"t{i}") for i in range(200)]
    out = bound_server_tools("srv", tools)
    assert len(out.tools) == MAX_TOOLS_PER_SERVER
    long = out.tools[0]
    assert long.name == "long" and len(long.description) == MAX_DESCRIPTION_CHARS
    assert long.description.endswith(ELLIPSIS)
    assert "wide" not in [t.name for t in out.tools]
    assert out.notice == (
        "mcp server 'srv': 73 tools past the first 128 dropped; "
        "tool 'wide' skipped (input schema over 16 KiB); "
        f"tool '{'n' * 40}…' skipped (name over 256 characters); "
        "the description of tool 'long' cut to 2,000 characters"
    )
    assert bound_server_tools("srv", [tool("a")]).notice == ""


@pytest.fixture
async def managers() -> AsyncIterator[list[McpManager]]:
    made: list[McpManager] = []
    yield made
    for m in made:
        await m.aclose()


@pytest.mark.real_peer
async def test_a_thousand_tools_and_a_5_mb_description_from_real_servers(
    managers: list[McpManager], tmp_path: Path
) -> None:
    warnings: list[str] = []
    servers = [peers.hostile(name, "many", "1000") for name in ("a", "b", "c")]
    m = McpManager(servers, log_dir=tmp_path, cwd=str(tmp_path), on_warning=warnings.append)
    managers.append(m)
    await m.wait_settled(60)
    assert [s.state for s in m.statuses()] == ["ready"] * 3, m.statuses()
    per_server = sorted(w for w in warnings if w.startswith("mcp server"))
    assert len(per_server) == 3 and len(warnings) == 3
    assert per_server[0].startswith("mcp server 'a': 873 tools past the first 128 dropped")
    assert "tool 'wide' skipped" in per_server[0] and "tool 'huge' cut" in per_server[0]

    specs = m.toolbox().specs()
    assert len(specs) == MAX_TOOLS_TOTAL
    assert max(len(s.description) for s in specs) < MAX_DESCRIPTION_CHARS + 30
    assert max(len(json.dumps(s.parameters)) for s in specs) < 1024
    (total,) = warnings[3:]
    assert total == "mcp: more than 256 tools in all; 128 not offered, of mcp server 'c' (128)"
    m.toolbox()
    m.toolbox(["a"])  # one server: under the total, nothing said
    m.toolbox()  # the same cut again: said once already
    assert len(warnings) == 4


@pytest.mark.real_peer
def test_headless_requests_carry_the_bounded_tools(milk_home: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        write_config(milk_home, srv, [peers.hostile("lots", "many", "1000")])
        srv.enqueue(FakeReply(text=["done"]))
        code, out, err = milk(milk_home, tmp_path)
        body = srv.chat_requests[0].json
    assert code == 0 and out.strip() == "done", err
    (line,) = err.splitlines()
    assert line.startswith("milk-tui: mcp server 'lots': 873 tools past the first 128 dropped")
    offered = [t["function"] for t in body["tools"]]
    mcp = [f for f in offered if f["name"].startswith("mcp__lots__")]
    assert len(mcp) == MAX_TOOLS_PER_SERVER
    huge = next(f for f in mcp if f["name"] == "mcp__lots__huge")
    assert huge["description"].endswith(ELLIPSIS)
    assert len(json.dumps(body)) < 200_000
