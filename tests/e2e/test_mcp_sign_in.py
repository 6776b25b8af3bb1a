"""Signing in to an OAuth MCP server as a user does — ``milk-tui mcp auth NAME`` and the
``/mcp`` screen's ``a`` key — against the repo's local OAuth server (``mcp_server.py
--oauth``: dynamic registration, PKCE, instant consent); the browser is ``BROWSER`` set to
a script that follows the page's redirect.  Then the stored token's refresh: a token that
expired is refreshed with the refresh token on the next connection, stored and used."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from e2e.browser import install
from e2e.conftest import deadline, ok
from e2e.tui_driver import drive, until
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.cli_run import run_milk

pytestmark = pytest.mark.real_peer


def oauth_config(home: Path, url: str) -> None:
    (home / "config.toml").write_text(
        '[[agents]]\nname = "demo"\nprovider = "demo"\n'
        f'[[mcp_servers]]\nname = "secure"\nurl = "{url}"\nauth = "oauth"\nconnect_timeout = 15\n'
    )


def tokens(home: Path) -> dict[str, Any]:
    return json.loads((home / "mcp" / "auth" / "secure.json").read_text())["tokens"]


def browser_env(tmp: Path) -> tuple[dict[str, str], Path]:
    command, log = install(tmp)
    return {**os.environ, "BROWSER": command, "DISPLAY": ""}, log


def test_mcp_auth_signs_in_through_the_browser_and_keeps_the_token(
    tmp_path: Path, milk_home: Path
) -> None:
    env, log = browser_env(tmp_path)
    with peers.own_http(oauth=True) as url:
        oauth_config(milk_home, url)
        listed = json.loads(ok("mcp", "list", "--json", cwd=tmp_path))
        assert [s["state"] for s in listed] == ["needs_auth"]  # no browser without `auth`
        assert not log.exists()
        r = run_milk("mcp", "auth", "secure", cwd=tmp_path, env=env, timeout=90)
        assert r.returncode == 0, r.stderr
        assert "mcp server 'secure': ready" in r.stdout
        (page,) = log.read_text().splitlines()
        assert f"open this page to authorize an MCP server: {page}" in r.stderr
        assert "code_challenge=" in page and "/authorize" in page
        assert tokens(milk_home)["access_token"]
        # The next run uses the stored token: no browser, the tools are there.
        out = ok("mcp", "tools", "secure", cwd=tmp_path, env={**env, "BROWSER": "false"})
        assert out.splitlines()[0].startswith("mcp__secure__add")
        assert len(log.read_text().splitlines()) == 1


def test_an_expired_token_is_refreshed_on_the_next_connection(
    tmp_path: Path, milk_home: Path
) -> None:
    env, log = browser_env(tmp_path)
    with peers.own_http(oauth=True, token_ttl_s=2) as url:
        oauth_config(milk_home, url)
        ok("mcp", "auth", "secure", cwd=tmp_path, env=env, timeout=90)
        signed_in = time.time()  # the token was issued before this, for 2 s
        first = tokens(milk_home)
        deadline(lambda: time.time() > signed_in + 3, "the access token to expire")
        out = ok("mcp", "tools", "secure", cwd=tmp_path, env={**env, "BROWSER": "false"})
        assert out.splitlines()[0].startswith("mcp__secure__add")
        second = tokens(milk_home)
        assert second["access_token"] != first["access_token"]
        assert second["refresh_token"] != first["refresh_token"]  # the server rotates it
        assert len(log.read_text().splitlines()) == 1  # refreshed, not signed in again


def test_the_mcp_screen_sign_in_key_signs_in(
    tmp_path: Path, milk_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, log = browser_env(tmp_path)
    monkeypatch.setenv("BROWSER", env["BROWSER"])
    monkeypatch.setenv("DISPLAY", "")
    monkeypatch.chdir(tmp_path)
    with peers.own_http(oauth=True) as url:
        oauth_config(milk_home, url)
        from milk_tui.tui.screens.mcp_screen import McpScreen
        from milk_tui.tui.widgets.prompt_input import PromptInput

        def state(app: Any) -> str:
            return next(s.state for s in app.facade.mcp.statuses() if s.name == "secure")

        async def user(pilot: Any, app: Any) -> None:
            await until(pilot, lambda: state(app) == "needs_auth", "secure to need auth")
            assert app.main_screen is not None
            app.main_screen.query_one(PromptInput).set_text("/mcp")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, McpScreen), "the /mcp screen")
            await pilot.press("a")
            await until(pilot, lambda: state(app) == "ready", "secure ready after sign-in", 60)

        assert drive(monkeypatch, [], user) == 0
    assert len(log.read_text().splitlines()) == 1
    assert tokens(milk_home)["access_token"]
