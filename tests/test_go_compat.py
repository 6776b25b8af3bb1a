"""docs/go-compat.md kept honest where it is cheap: every Go milk slash command typed into
the real TUI is answered (never sent to a model, never "unknown command"), every Go milk
command-line word parses or gets one line, and a Go config with every key set loads with
exactly the warnings the document lists as refused."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import certifi
import pytest
from tui.conftest import make_app, type_and_send

from milk_tui.cli import main
from milk_tui.config.load import load_config
from milk_tui.tui.commands import parse_slash
from milk_tui.tui.redirects import redirect
from milk_tui.tui.widgets.conversation import Conversation

DOC = Path(__file__).resolve().parents[1] / "docs" / "go-compat.md"

TYPED = [
    "/escalate", "/escalate fresh", "/primary", "/auto", "/new", "/list", "/export",
    "/export json", "/agent", "/agent status", "/agent list", "/agent add",
    "/agent remove nosuch", "/agent switch", "/agent switch claude",
    "/agent switch claude as escalation", "/agent tool list", "/agent tool enable x",
    "/skip-permissions", "/skip-permissions on", "/skip-permissions off",
    "/learn the sky is blue", "/memory", "/memory global", "/memory session", "/memory sky", "/memory show #1", "/forget nosuch",
    "/panel memory", "/tasks", "/task done 1", "/colorize full", "/think on", "/history global",
    "/usage", "/metrics", "/otel", "/otel on", "/otel debug enable", "/mcp", "/mcp list",
    "/mcp add", "/mcp remove x", "/mcp enable x", "/mcp disable x", "/mcp tools x",
    "/mcp reconnect x", "/mcp assign x llama", "/mcp unassign x llama", "/mcp auth x",
    "/workflow dev build it", "/bash allow ls", "/server status", "/server start for x",
    "/server stop", "/config", "/config init", "/config open", "/reload", "/open README.md",
    "/setup telegram on", "/attach README.md", "/paste", "/update", "/help", "/drop",
]  # fmt: skip
"""Go milk's slash commands as a user types them (with arguments), in an order that leaves
nothing open: each one is answered, then its screen is closed."""


def _doc_section(title: str) -> str:
    text = DOC.read_text()
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def _first_cells(section: str) -> list[str]:
    rows = [ln for ln in section.splitlines() if ln.startswith("| `")]
    return [r.split("|")[1] for r in rows]


def test_every_slash_command_of_the_document_is_typed_here() -> None:
    cells = _first_cells(_doc_section("Slash"))
    words = {w for cell in cells for w in re.findall(r"`(/[a-z-]+)", cell)}
    assert len(words) > 30
    typed = {t.split()[0] for t in TYPED} | {"/exit", "/quit"}
    assert words - typed == set()
    for word in ("/exit", "/quit"):
        parsed = parse_slash(word)
        assert parsed is not None and parsed[0].name == "/quit"


async def test_go_slash_commands_are_answered_and_never_sent_to_a_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", "true")  # /config open and /open run an editor that exits
    (tmp_path / "README.md").write_text("hi\n")
    app = make_app(cwd=str(tmp_path), session="go-compat")
    silent = {"/think on", "/new"}  # the status line and the header show these
    outcome: dict[str, str] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        conv = app.main_screen.query_one(Conversation)
        for typed in TYPED:
            before = len(conv.items)
            await type_and_send(pilot, typed)
            said = list(conv.items[before:])
            opened = app.screen is not app.main_screen
            outcome[typed] = type(app.screen).__name__ if opened else (said[0].text if said else "")
            for _ in range(4):
                if app.screen is app.main_screen:
                    break
                await pilot.press("escape")
                await pilot.pause()
            assert app.screen is app.main_screen, typed
            assert not any(it.kind == "user" for it in said), typed
            assert not any("unknown command" in it.text for it in said), typed
            assert said or opened or typed in silent, typed
        assert app.facade.history() == []
    assert outcome["/agent switch"] == outcome["/agent status"] == "AgentScreen"
    assert outcome["/mcp list"] == "McpScreen"
    assert outcome["/mcp auth x"] == "mcp server 'x': no such server"
    assert (
        outcome["/skip-permissions"]
        == "skip-permissions is off for this session (/skip-permissions on|off)"
    )


async def test_agent_add_with_key_values_fills_the_form_in(tmp_path: Path) -> None:
    from textual.widgets import Input

    from milk_tui.tui.screens.agent_form import AgentForm

    app = make_app(cwd=str(tmp_path), session="agent-add")
    async with app.run_test(size=(120, 40)) as pilot:
        await type_and_send(pilot, "/agent add flavour=x")
        said = app.main_screen.query_one(Conversation).items[-1].text
        await type_and_send(
            pilot, "/agent add name=llama url=http://127.0.0.1:9 token_cmd='pass x'"
        )
        assert isinstance(app.screen, AgentForm)
        values = {i.id: i.value for i in app.screen.query(Input)}
    assert said.startswith("/agent: add: unknown agent key flavour (keys: name, provider, ")
    assert values["agent-name"] == "llama" and values["agent-url"] == "http://127.0.0.1:9"
    assert values["agent-token_cmd"] == "pass x" and values["agent-model"] == ""


GO_CLI = [
    (["-c", "--demo", "-p", "hi"], 0, ""),
    (["--continue", "--demo", "-p", "hi"], 0, ""),
    (["--list", "--all"], 2, "milk-tui: --list: not in milk-tui — milk-tui sessions list"),
    (["--drop"], 2, "milk-tui: --drop: not in milk-tui — --new starts a new session"),
    (["config", "path"], 1, "milk-tui: no config file: running on defaults"),
    (["otel", "debug", "enable"], 2, "milk-tui: otel: not in milk-tui — set otel.endpoint"),
    (["update", "check"], 2, "milk-tui: update: not in milk-tui — milk-tui is updated by"),
    (["eval", "--list"], 0, ""),
    (["fix the test"], 2, "milk-tui: 'fix the test' is not a command — one prompt runs with -p"),
]


@pytest.mark.parametrize(("argv", "code", "line"), GO_CLI)
def test_go_command_lines_work_or_get_one_line(
    argv: list[str], code: int, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        got = main(argv)
    except SystemExit as e:
        got = int(e.code or 0)
    err = capsys.readouterr().err
    assert got == code
    if line:
        assert err.startswith(line) and err.count("\n") == 1


def test_a_command_line_that_parses_never_reads_as_a_go_word(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["-p", "config", "--demo"]) == 0
    with pytest.raises(SystemExit) as e:
        main(["--bogus"])
    assert e.value.code == 2 and "unrecognized arguments: --bogus" in capsys.readouterr().err


def go_config(d: Path) -> dict[str, Any]:
    """A Go milk config.json with every key of every kind set to something not the default."""
    (d / "prompt.md").write_text("You work on {{milk:need}}\n{{milk:memory}}")
    limits = {
        "context_budget_chars": 1, "message_budget_chars": 2, "memory_reinjection_turns": 3,
        "memory_reinjection_bytes": 4, "memory_result_max_bytes": 5, "percept_inject_max": 6,
        "percept_inject_max_bytes": 7, "percept_relevance_gate": False,
        "max_tool_iterations": 8, "returning_fresh_start_local_turns": 9,
        "turn_timeout_secs": 10, "tool_timeout_secs": 11, "included_tools": ["read_file"],
        "excluded_tools": ["bash"],
    }  # fmt: skip
    return {
        "agent": "llama", "escalation_agent": "opus",
        "agents": [
            {"name": "llama", "provider": "local", "url": "http://127.0.0.1:9", "model": "q",
             "api_key": "sk-abcdefgh12345678", "token_cmd": "echo tok", "headers": {"X-A": "b"},
             "chat_path": "/v2/chat", "api_format": "responses", "tls_skip_verify": False,
             "tls_ca_cert": certifi.where(), "run_cmd": "llama-server -m x.gguf",
             "prompt": "p", "prompt_file": str(d / "prompt.md"), "system_prompt_tier": "full",
             "context_window_tokens": 32768, "mcp_servers": ["fs"], "limits": limits,
             "tools": [{"agent": "opus", "description": "ask opus", "enabled": False}]},
            {"name": "br", "provider": "bedrock", "model": "anthropic.x",
             "aws_region": "eu-west-1", "aws_key_id": "AKIAXXXXXXXXXXXXXXXX",
             "aws_secret": "s3cr3tvaluexxxxxxxx", "aws_token": "tokxxxxxxxxxxxxxxx",
             "aws_service": "bedrock-runtime", "aws_refresh_cmd": "aws sso login",
             "prompt_caching": True},
            {"name": "opus", "provider": "claude-cli", "bin": "claude",
             "dangerously_skip_permissions": True, "allowed_tools": ["Read"],
             "add_dirs": ["/tmp"], "settings": {"a": 1}, "extra_args": ["--verbose"]},
            {"name": "smol", "provider": "subprocess", "bin": "milk-smolagent", "model": "m",
             "url": "http://127.0.0.1:9", "action_type": "tool_calling",
             "model_type": "LiteLLMModel", "smolagent_tools": ["web_search"], "max_steps": 5,
             "authorized_imports": ["numpy"]},
            {"name": "aid", "provider": "aider-cli", "bin": "aider", "model": "m",
             "extra_args": ["--no-git"]},
        ],
        "agent_tools": [{"agent": "llama", "description": "the cheap one", "enabled": True}],
        "mcp_servers": [
            {"name": "fs", "transport": "stdio", "command": "mcp-fs", "args": ["/"],
             "auth": "none", "timeout": "30s", "connect_timeout": "5s", "enabled": True},
            {"name": "web", "transport": "http", "url": "https://mcp.example", "auth": "oauth",
             "oauth_client_id": "cid", "oauth_scopes": ["a"], "tls_skip_verify": True},
            {"name": "tok", "transport": "http", "url": "https://t.example", "auth": "token_cmd",
             "token_cmd": "echo t", "enabled": False},
            {"name": "key", "url": "https://k.example", "auth": "bearer", "api_key": "k-12345678"},
        ],
        "default_route": "escalate", "rules": {"escalate_above_tokens": 100},
        "otel": {"enabled": True, "log_level": "DEBUG", "traces": True, "metrics": False,
                 "warn_mb": 10, "max_mb": 100, "metrics_flush_minutes": 1, "log_format": "json",
                 "log_context": "x", "pre_debug_log_level": "WARN"},
        "colorization": "full", "debug_claude_code": True, "debug_local": True,
        "debug_subprocess": True, "aws_auth_refresh": True, "show_reasoning": True,
        "sticky_escalation": False, "context_budget_chars": 5000,
        "memory_reinjection_turns": 5, "memory_reinjection_bytes": 5000,
        "percept_inject_max": 5, "percept_inject_max_bytes": 500, "percept_store_max": 100,
        "percept_relevance_gate": False, "local_memory_result_max_bytes": 100,
        "local_memory_reinjection_turns": 3, "local_memory_reinjection_bytes": 300,
        "local_context_budget_chars": 9000, "local_max_tool_iterations": 7,
        "returning_fresh_start_local_turns": 4,
        "remote_oversight": {"backend": "telegram", "telegram": {"token": "t", "chat_id": 1},
                             "perm_timeout_secs": 60, "timeout_action": "allow",
                             "notify_tools": False},
        "loop_detection": {"enabled": True, "max_consecutive_similar_responses": 4,
                           "response_similarity_threshold": 0.9,
                           "token_velocity_window_seconds": 30, "token_velocity_threshold": 1000,
                           "max_silent_burn_tokens": 100, "max_consecutive_turns_without_user": 5,
                           "tool_echo_threshold": 2, "chunk_repetition_threshold": 4,
                           "chunk_window_size": 20, "auto_interrupt": True},
        "config_editors": ["nano"], "update_check": False, "update_channel": "stable",
        "update_last_check": "2026-01-01T00:00:00Z", "update_skipped_version": "1.2.3",
        "experimental_permission_management": True,
        "experimental_lazy_history_management": True, "direct_bash": True,
        "direct_bash_allow": ["ls"],
    }  # fmt: skip


def _warned_key(warning: str) -> str:
    """The key a load warning names, as the document spells it (``oauth_*`` for the family)."""
    m = re.search(r"key '([^']+)' is not supported", warning) or re.search(
        r": ((?:otel|loop_detection)\.\w+) is not used", warning
    )
    assert m, warning
    key = re.sub(r"\[\d+\]", "", m.group(1)).split(".")[-1]
    return "oauth_*" if key.startswith("oauth_") else key


def _refused_in_doc() -> set[str]:
    out: set[str] = set()
    for title in ("Top-level keys", "Per-agent keys", "`limits` keys", "`mcp_servers` keys",
                  "`otel` keys", "`loop_detection` keys"):  # fmt: skip
        for row in _doc_section(title).splitlines():
            cells = row.split("|")
            if row.startswith("| `") and cells[2].strip().startswith("**refused"):
                out |= set(re.findall(r"`([a-z_*]+)`", cells[1]))
    return out


def test_a_go_config_with_every_key_loads_with_exactly_the_refusals_of_the_document(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(go_config(tmp_path), indent=2))
    path.chmod(0o600)
    cfg, warnings, used = load_config(path)
    assert used == path
    assert [a.name for a in cfg.agents] == ["llama", "br", "opus", "smol", "aid"]
    assert len(cfg.mcp_servers) == 4 and cfg.agent_tools[0].agent == "llama"
    assert all(str(path) in w for w in warnings)  # each names the file
    warned = [_warned_key(w) for w in warnings]
    assert sorted(set(warned)) == sorted(_refused_in_doc())


def test_the_refusals_quoted_for_slash_commands_are_what_the_tui_answers() -> None:
    quoted = [
        re.findall(r"`(/[^`]+: not in milk-tui — [^`]+)`", row)
        for row in _doc_section("Slash").splitlines()
        if "**refused**" in row
    ]
    assert all(len(q) == 1 for q in quoted) and len(quoted) >= 6
    for (line,) in quoted:
        name, _, sub = line.split(":")[0].partition(" ")
        assert redirect(name, sub) == line
