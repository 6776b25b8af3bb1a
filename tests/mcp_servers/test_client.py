"""The MCP client against real servers: the npm reference server over stdio and streamable
HTTP, and the SDK-based test server in every bad way a server can be."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from peer_missing import needs_peer

from milk_tui.agents.mcp.manager import McpManager
from milk_tui.agents.mcp.results import MAX_RESULT_CHARS
from milk_tui.agents.mcp.toolbox import MAX_NAME, tool_name
from milk_tui.config.mcp import McpServerConfig
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.llama_server import free_port
from milk_tui.testing.waits import until

pytestmark = pytest.mark.real_peer


class Run:
    def __init__(self, tmp: Path, servers: list[McpServerConfig]) -> None:
        self.warnings: list[str] = []
        self.manager = McpManager(
            servers, log_dir=tmp / "mcp-logs", cwd=str(tmp), on_warning=self.warnings.append
        )

    def state(self, name: str) -> str:
        return next(s.state for s in self.manager.statuses() if s.name == name)

    async def call(self, name: str, args: dict[str, object]) -> tuple[str, bool]:
        out = await self.manager.toolbox().call(name, json.dumps(args))
        return out.content, out.is_error


@pytest.fixture
async def run(tmp_path: Path) -> AsyncIterator[list[Run]]:
    made: list[Run] = []
    yield made
    for r in made:
        await r.manager.aclose()


async def started(made: list[Run], tmp: Path, *servers: McpServerConfig) -> Run:
    r = Run(tmp, list(servers))
    made.append(r)
    await r.manager.wait_settled(30)
    # wait_settled gives up quietly at each server's own start timeout; on a busy machine
    # a server may still be starting then: the checks below need every first attempt done.
    await until(
        None,
        lambda: all(s.state != "starting" for s in r.manager.statuses()),
        30,
        what="every server's first start attempt to end",
    )
    return r


needs_everything = needs_peer(
    peers.everything_available(),
    "the reference MCP server (npm @modelcontextprotocol/server-everything)",
)


@needs_everything
async def test_reference_server_over_stdio(run: list[Run], tmp_path: Path) -> None:
    r = await started(run, tmp_path, peers.everything())
    assert r.state("every") == "ready" and not r.warnings
    names = [s.name for s in r.manager.toolbox().specs()]
    assert "mcp__every__echo" in names and "mcp__every__get-sum" in names
    spec = next(s for s in r.manager.toolbox().specs() if s.name == "mcp__every__get-sum")
    assert spec.effect == "run" and "a" in spec.parameters["properties"]
    assert await r.call("mcp__every__echo", {"message": "hi"}) == ("Echo: hi", False)
    text, err = await r.call("mcp__every__get-tiny-image", {})
    assert "[image image/png" in text and not err


@needs_everything
async def test_reference_server_over_streamable_http(run: list[Run], tmp_path: Path) -> None:
    with peers.everything_http() as url:
        r = await started(run, tmp_path, McpServerConfig(name="web", transport="http", url=url))
        assert r.state("web") == "ready", r.manager.statuses()
        assert await r.call("mcp__web__echo", {"message": "over http"}) == (
            "Echo: over http",
            False,
        )


@needs_everything
async def test_an_http_entry_falls_back_to_sse(run: list[Run], tmp_path: Path) -> None:
    port = free_port()
    argv = [str(peers.EVERYTHING_BIN), "sse"]
    with peers.http_server(argv, port, {"PORT": str(port)}) as url:
        sse = url.removesuffix("/mcp") + "/sse"
        r = await started(run, tmp_path, McpServerConfig(name="old", url=sse, transport="http"))
        (status,) = r.manager.statuses()
        assert (status.state, status.transport) == ("ready", "sse")
        assert await r.call("mcp__old__echo", {"message": "sse"}) == ("Echo: sse", False)


async def test_bad_servers_each_named_once_and_the_good_one_works(
    run: list[Run], tmp_path: Path
) -> None:
    r = await started(
        run,
        tmp_path,
        peers.own("good"),
        peers.own("quits", "exit"),
        peers.own("noise", "garbage", connect_timeout=3),
        peers.own("mute", "hang", connect_timeout=2),
        McpServerConfig(name="ghost", command=str(tmp_path / "no-such-server")),
    )
    assert r.state("good") == "ready"
    by_name = {w.split("'")[1]: w for w in r.warnings}
    assert sorted(by_name) == ["ghost", "mute", "noise", "quits"] and len(r.warnings) == 4
    assert "exited" in by_name["quits"] and "refusing to start" in by_name["quits"]
    assert "not MCP: 'this is not json-rpc'" in by_name["noise"]
    assert "no answer to initialize within 2s" in by_name["mute"]
    assert "not found" in by_name["ghost"]
    assert await r.call("mcp__good__add", {"a": 2, "b": 3}) == ("5", False)
    assert [s.name for s in r.manager.toolbox().specs()][0].startswith("mcp__good__")


async def test_tool_error_big_result_timeout_and_list_changed(
    run: list[Run], tmp_path: Path
) -> None:
    r = await started(run, tmp_path, peers.own("t", timeout=4))
    text, err = await r.call("mcp__t__fail", {"why": "nope"})
    assert err and text
    assert await r.call("mcp__t__grow", {}) == ("grown", False)
    await until(None, lambda: "mcp__t__extra" in [s.name for s in r.manager.toolbox().specs()])
    assert await r.call("mcp__t__extra", {}) == ("extra!", False)
    text, err = await r.call("mcp__t__slow", {"seconds": 30})
    assert err and "mcp server 't'" in text and "did not answer within 4s" in text
    assert r.state("t") == "down" and len(r.warnings) == 1


async def test_a_10_mb_result_is_cut_with_a_note(run: list[Run], tmp_path: Path) -> None:
    r = await started(run, tmp_path, peers.own("big", timeout=60))
    text, err = await r.call("mcp__big__big", {})
    assert not err and len(text) < MAX_RESULT_CHARS + 100
    assert text.endswith(
        f"[result truncated: {10 * 1024 * 1024 - MAX_RESULT_CHARS} more characters not shown]"
    )


async def test_bearer_and_token_cmd_over_http_and_a_wrong_token(
    run: list[Run], tmp_path: Path
) -> None:
    with peers.own_http(token="s3cret-token") as url:
        r = await started(
            run,
            tmp_path,
            McpServerConfig(name="key", url=url, auth="bearer", api_key="s3cret-token"),
            McpServerConfig(name="cmd", url=url, auth="token_cmd", token_cmd="echo s3cret-token"),
            McpServerConfig(name="wrong", url=url, auth="bearer", api_key="not-the-token"),
        )
        assert r.state("key") == "ready" and r.state("cmd") == "ready"
        assert r.state("wrong") == "needs_auth", r.manager.statuses()
        (warning,) = r.warnings
        assert "mcp server 'wrong'" in warning and "401" in warning
        assert "not-the-token" not in warning
        assert await r.call("mcp__cmd__add", {"a": 1, "b": 1}) == ("2", False)


def test_tool_names_are_provider_safe_and_bounded() -> None:
    assert tool_name("git hub", "list.issues") == "mcp__git_hub__list_issues"
    long = tool_name("s" * 40, "t" * 40)
    assert len(long) == MAX_NAME and long != tool_name("s" * 40, "t" * 41)


def test_log_files_are_per_server(tmp_path: Path) -> None:
    m = McpManager([peers.own("a b")], log_dir=tmp_path, cwd=str(tmp_path))
    (status,) = m.statuses()
    assert status.log_file.endswith("a_b.log") and status.state == "starting"
    m.start()  # no running event loop: nothing starts (the first turn or the UI does it)
    assert not (tmp_path / "a_b.log").exists()
