"""OAuth 2.1 against a real local authorization server (the SDK's server auth with
instant consent): discovery, dynamic registration, PKCE, the local callback, stored
tokens reused on the next start, and a callback with the wrong state."""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import pytest

from milk_tui.agents.mcp.manager import McpManager
from milk_tui.agents.redact import known_secrets
from milk_tui.config.mcp import McpServerConfig
from milk_tui.testing import mcp_peers as peers

pytestmark = pytest.mark.real_peer


def browser(tamper: Callable[[str], str] = lambda u: u) -> Callable[[str], None]:
    """A user who approves at once: follow the authorization page's redirect to our
    callback (``tamper`` may change that address first)."""
    tasks: list[asyncio.Task[None]] = []

    async def visit(url: str) -> None:
        async with httpx.AsyncClient() as h:
            page = await h.get(url)
            await h.get(tamper(page.headers["location"]))

    def open_url(url: str) -> None:
        tasks.append(asyncio.get_running_loop().create_task(visit(url)))

    return open_url


def manager(tmp: Path, url: str, warnings: list[str], *others: McpServerConfig) -> McpManager:
    m = McpManager(
        [McpServerConfig(name="secure", url=url, auth="oauth", connect_timeout=15), *others],
        log_dir=tmp / "mcp", cwd=str(tmp), on_warning=warnings.append,
    )  # fmt: skip
    m.open_browser = False
    return m


async def test_sign_in_then_the_stored_token_is_used_next_time(tmp_path: Path) -> None:
    with peers.own_http(oauth=True) as url:
        warnings: list[str] = []
        m = manager(tmp_path, url, warnings)
        try:
            await m.wait_settled(30)
            (before,) = [s for s in m.statuses() if s.name == "secure"]
            assert before.state == "needs_auth"
            assert "authenticate with /mcp or `milk-tui mcp auth secure`" in before.error
            conn = m.get("secure")
            assert conn is not None
            conn.open_url = browser()
            m.authenticate("secure")
            await conn.wait_settled(30)
            assert conn.state == "ready", m.statuses()
            out = await m.toolbox().call("mcp__secure__add", json.dumps({"a": 20, "b": 22}))
            assert out.content == "42"
        finally:
            await m.aclose()
        token_file = tmp_path / "mcp" / "auth" / "secure.json"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        tokens = json.loads(token_file.read_text())["tokens"]
        assert tokens["refresh_token"]
        # a tool that echoes a token shows and stores it masked
        assert {tokens["access_token"], tokens["refresh_token"]} <= set(known_secrets())

        again = manager(tmp_path, url, [])
        try:
            await again.wait_settled(30)
            assert [s.state for s in again.statuses()] == ["ready"]
        finally:
            await again.aclose()


def wrong_state(url: str) -> str:
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query)) | {"state": "forged"}
    return parts._replace(query=urlencode(query)).geturl()


async def test_a_callback_with_the_wrong_state_is_refused(tmp_path: Path) -> None:
    with peers.own_http(oauth=True) as url:
        warnings: list[str] = []
        m = manager(tmp_path, url, warnings, peers.own("plain"))
        try:
            await m.wait_settled(30)
            conn = m.get("secure")
            assert conn is not None
            conn.open_url = browser(wrong_state)
            m.authenticate("secure")
            await conn.wait_settled(30)
            assert conn.state == "needs_auth"
            assert conn.error.startswith("sign-in failed: State parameter mismatch")
            assert warnings[-1].startswith("mcp server 'secure' needs auth: sign-in failed")
            out = await m.toolbox().call("mcp__plain__add", json.dumps({"a": 1, "b": 1}))
            assert out.content == "2"
        finally:
            await m.aclose()
