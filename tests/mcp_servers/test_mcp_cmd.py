"""``milk-tui mcp list|tools|auth`` as a user runs it (real subprocesses, real servers)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from milk_tui.config.mcp import McpServerConfig
from milk_tui.testing import mcp_peers as peers
from milk_tui.testing.cli_run import run_milk

pytestmark = pytest.mark.real_peer


def milk(home: Path, *args: str) -> tuple[int, str, str]:
    env = {**os.environ, "MILK_HOME": str(home), "MILK_CONFIG": str(home / "config.json")}
    r = run_milk("mcp", *args, cwd=home, env=env)
    return r.returncode, r.stdout, r.stderr


def configure(home: Path, *servers: McpServerConfig) -> None:
    body = {"mcp_servers": [s.model_dump(exclude_defaults=True) for s in servers]}
    (home / "config.json").write_text(json.dumps(body))


def test_list_tools_and_auth(milk_home: Path) -> None:
    configure(milk_home, peers.own("calc"), peers.own("broken", "exit"))
    code, out, err = milk(milk_home, "list")
    assert code == 0 and err == ""
    calc, broken = out.splitlines()
    assert calc.split() == ["calc", "stdio", "ready,", "5", "tools"]
    assert broken.startswith("broken") and "down: the process exited" in broken
    code, out, _ = milk(milk_home, "tools", "calc")
    assert code == 0 and out.splitlines()[0] == "mcp__calc__add  Add two integers."
    code, out, err = milk(milk_home, "auth", "broken")
    assert code == 1 and "mcp server 'broken': down: the process exited" in err
    # a server's stderr may echo its environment: its log and the SDK's are private
    logs = milk_home / "mcp"
    assert logs.stat().st_mode & 0o777 == 0o700
    for name in ("calc.log", "broken.log", "sdk.log"):
        assert (logs / name).stat().st_mode & 0o777 == 0o600, name


def test_a_wrong_token_and_an_unknown_name(milk_home: Path) -> None:
    with peers.own_http(token="right-token-1") as url:
        configure(
            milk_home, McpServerConfig(name="api", url=url, auth="bearer", api_key="nope-nope")
        )
        code, out, err = milk(milk_home, "auth", "api")
        assert code == 1
        assert err.strip() == (
            "milk-tui: mcp server 'api': needs auth: the server refused the credentials (HTTP 401)"
        )
        code, out, err = milk(milk_home, "tools", "nosuch")
        assert code == 1 and "no mcp server named 'nosuch' (servers: api)" in err
        code, out, _ = milk(milk_home, "list", "--json")
        (row,) = json.loads(out)
        assert row["state"] == "needs_auth" and row["tools"] == []
