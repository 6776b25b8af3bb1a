"""Adversarial cases for path-first permissions (docs/adr/0033-path-first-permissions.md):
spellings of a path outside the folder the resolver must still see, files inside that lead
outside (symlinks, hard links), and the built-in tools' own walks.  Every file tool is
granted and the run says ``--allow-tools``: nothing outside may change or be read, and
the model is told why.  The real built-in tools act on real files.  Then MCP path
arguments a schema names in other ways, the Claude CLI's Glob pattern, and a folder's own
Claude settings files.  Shell grants: ``test_adversarial_shell.py``."""

from __future__ import annotations

import getpass
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeToolCall

from .rig import Layout, call, layout, open_app, results, script

GRANTED = [
    "read_file", "list_dir", "grep", "find_files", "write_file", "edit_file", "delete_file",
    "move_file", "bash",
]  # fmt: skip


@pytest.fixture
def lay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    lay = layout(tmp_path, monkeypatch)
    (lay.outside / "victim.txt").write_text("orig victim\n")
    (lay.outside / "secret.txt").write_text("orig secret\n")
    (lay.proj / "mine.txt").write_text("mine\n")
    return lay


@dataclass(frozen=True)
class Case:
    call: Callable[[Layout], FakeToolCall]
    setup: Callable[[Layout], object] = lambda lay: None
    told: str = "permission denied: "
    """How what the model is told starts ("" for a call that runs)."""


def _link(name: str, target: Callable[[Layout], Path]) -> Callable[[Layout], object]:
    return lambda lay: (lay.proj / name).symlink_to(target(lay))


def _hardlink(lay: Layout) -> None:
    os.link(lay.outside / "victim.txt", lay.proj / "hl.txt")


CASES: dict[str, Case] = {
    "proc_self_root": Case(
        lambda lay: call("write_file", "c", path=f"/proc/self/root{lay.outside}/victim.txt", content="HACK")
    ),
    "double_slash": Case(lambda lay: call("write_file", "c", path=f"/{lay.outside}/victim.txt", content="HACK")),
    "dot_segments": Case(lambda lay: call("write_file", "c", path="./sub/.././../outside/./victim.txt", content="HACK")),
    "trailing_slash_dot": Case(lambda lay: call("list_dir", "c", path="link/.")),
    "tilde_user": Case(lambda lay: call("read_file", "c", path=f"~{getpass.getuser()}/secret.txt")),
    "nul_byte": Case(lambda lay: call("write_file", "c", path="../outside/victim.txt\x00.md", content="HACK")),
    "newline": Case(lambda lay: call("write_file", "c", path="../outside/vic\ntim.txt", content="HACK")),
    "very_long": Case(
        lambda lay: call("write_file", "c", path="a/" * 300 + "../" * 300 + "../outside/victim.txt", content="HACK")
    ),
    "symlink_loop": Case(lambda lay: call("write_file", "c", path="loop/x", content="HACK"), _link("loop", lambda lay: lay.proj / "loop")),
    "new_folder_under_symlink": Case(lambda lay: call("write_file", "c", path="link/new/deep/w.txt", content="HACK")),
    "move_onto_symlink_out": Case(
        lambda lay: call("move_file", "c", source="mine.txt", destination="flink"),
        _link("flink", lambda lay: lay.outside / "victim.txt"),
    ),
    "move_symlink_out_in": Case(
        lambda lay: call("move_file", "c", source="flink", destination="got.txt"),
        _link("flink", lambda lay: lay.outside / "victim.txt"),
    ),
    "edit_symlink_out": Case(
        lambda lay: call("edit_file", "c", path="flink", old_string="orig", new_string="HACK"),
        _link("flink", lambda lay: lay.outside / "victim.txt"),
    ),
    "write_symlink_out": Case(
        lambda lay: call("write_file", "c", path="flink", content="HACK"),
        _link("flink", lambda lay: lay.outside / "victim.txt"),
    ),
    "read_symlink_out": Case(
        lambda lay: call("read_file", "c", path="flink"),
        _link("flink", lambda lay: lay.outside / "secret.txt"),
    ),
    "list_dir_root": Case(lambda lay: call("list_dir", "c", path="/")),
    "grep_outside_root": Case(lambda lay: call("grep", "c", pattern="orig", path="..")),
    "find_outside_root": Case(lambda lay: call("find_files", "c", path="../outside", pattern="*")),
    "read_path_as_list": Case(lambda lay: call("read_file", "c", path=["mine.txt", "../outside/secret.txt"])),
    "duplicate_json_key": Case(
        lambda lay: FakeToolCall("read_file", '{"path": "mine.txt", "path": "../outside/secret.txt"}', id="c")
    ),
    "grep_walk_skips_symlink_out": Case(lambda lay: call("grep", "c", pattern="orig", path="."), told=""),
    "find_pattern_climbs": Case(lambda lay: call("find_files", "c", path=".", pattern="../../**"), told=""),
    "unicode_slash_stays_inside": Case(
        lambda lay: call("write_file", "c", path="..\u2215outside\u2215victim.txt", content="HACK"), told=""
    ),
    "move_dotdot_of_symlink": Case(lambda lay: call("move_file", "c", source="link/..", destination="up")),
    "delete_symlinked_folder": Case(lambda lay: call("delete_file", "c", path="link")),
    "http_get_file_url": Case(
        lambda lay: call("http_get", "c", url=f"file://{lay.outside}/secret.txt"), told="http_get: only"
    ),
    "dollar_home_is_literal": Case(
        lambda lay: call("write_file", "c", path="$HOME/victim.txt", content="HACK"), told=""
    ),
    "bash_cwd_argument_ignored": Case(
        lambda lay: call("bash", "c", command="cat victim.txt", cwd=str(lay.outside)), told=""
    ),
    "hardlink_write": Case(lambda lay: call("write_file", "c", path="hl.txt", content="HACK"), _hardlink, told="hl.txt: "),
    "hardlink_edit": Case(
        lambda lay: call("edit_file", "c", path="hl.txt", old_string="orig", new_string="HACK"), _hardlink, told="hl.txt: "
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", CASES)
async def test_no_spelling_of_an_outside_path_gets_past_a_grant(
    srv: FakeOpenAIServer, lay: Layout, name: str
) -> None:
    case = CASES[name]
    case.setup(lay)
    app, _ = open_app(srv, lay.proj, "allow")
    app.permissions.grant(GRANTED)
    script(srv, case.call(lay))
    try:
        assert (await app.run_turn("attack", force="primary")).ok
    finally:
        await app.aclose()
    assert (lay.outside / "victim.txt").read_text() == "orig victim\n"
    assert sorted(p.name for p in lay.outside.iterdir()) == ["secret.txt", "victim.txt"]
    told = results(srv)["c"]
    assert "orig secret" not in told and "orig victim" not in told, told
    assert told.startswith(case.told), told


# --- MCP path arguments the schema names in other ways ----------------------------------

MCP_SCHEMAS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "camel_case_name": ({"outputPath": {"type": "string"}}, {"outputPath": "../outside/o"}),
    "camel_case_suffix": ({"targetFile": {"type": "string"}}, {"targetFile": "/etc/passwd"}),
    "type_list": ({"path": {"type": ["string", "null"]}}, {"path": "../outside/o"}),
    "any_of": ({"dest": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, {"dest": "~/o"}),
    "file_uri": ({"uri": {"type": "string"}}, {"uri": "file:///etc/passwd"}),
    "file_uri_format": ({"ref": {"type": "string", "format": "uri"}}, {"ref": "file:/etc/x"}),
    "url_file_scheme": ({"url": {"type": "string"}}, {"url": "file:///etc/shadow"}),
    "file_uri_other_host": ({"uri": {"type": "string"}}, {"uri": "file://evil/etc/x"}),
    "location": ({"location": {"type": "string"}}, {"location": "/etc"}),
    "nested_object": (
        {"options": {"type": "object", "properties": {"path": {"type": "string"}}}},
        {"options": {"path": "../outside/o"}},
    ),
    "pydantic_ref_model": (
        {"opts": {"$ref": "#/$defs/Opts"}},
        {"opts": {"target_dir": "/etc"}},
    ),
    "optional_ref_model": (
        {"opts": {"anyOf": [{"$ref": "#/$defs/Opts"}, {"type": "null"}]}},
        {"opts": {"target_dir": "../outside"}},
    ),
    "array_of_objects": (
        {
            "edits": {
                "type": "array",
                "items": {"type": "object", "properties": {"file_path": {"type": "string"}}},
            }
        },
        {"edits": [{"file_path": "in.txt"}, {"file_path": "link/o"}]},
    ),
}


@pytest.mark.parametrize("name", MCP_SCHEMAS)
def test_a_granted_mcp_tool_is_denied_an_outside_path_however_its_schema_names_it(
    lay: Layout, name: str
) -> None:
    from types import SimpleNamespace

    from milk_tui.agents.mcp.toolbox import _spec
    from milk_tui.agents.tool_permission import path_question
    from milk_tui.agents.tools.paths import call_paths
    from milk_tui.engine.permission_policy import decide

    props, args = MCP_SCHEMAS[name]
    defs = {"Opts": {"type": "object", "properties": {"target_dir": {"type": "string"}}}}
    schema = {"type": "object", "properties": props, "$defs": defs}
    tool = SimpleNamespace(name="t", title=None, description="d", input_schema=schema)
    spec = _spec("mcp__s__t", "s", tool)
    assert spec.path_args == tuple(props)
    q = path_question("a", spec.name, args, call_paths(lay.proj, args, spec.path_args))
    d = decide(q, root=lay.proj, skip=True, granted=frozenset({spec.name}), can_ask=False)
    assert d is not None and not d.allowed and "outside the working folder" in d.reason


def test_an_https_url_or_a_plain_word_of_an_mcp_call_stays_inside(lay: Layout) -> None:
    from milk_tui.agents.tools.paths import call_paths

    args = {"url": "https://example.com/a/../../b", "target": "notes", "opts": {"n": "3"}}
    assert all(p.inside for p in call_paths(lay.proj, args, ("url", "target", "opts")))


# --- Claude CLI control questions ---------------------------------------------------------


@pytest.mark.parametrize("pattern", ["../outside/**", "/etc/*", "~/**/*.env"])
async def test_a_claude_glob_with_a_pattern_outside_is_decided_path_first(
    lay: Layout, pattern: str
) -> None:
    from milk_tui.facade.application import start

    from .rig import config
    from .test_mcp_and_claude_paths import answer, can_use_tool

    app = start(
        cwd=str(lay.proj), config=config("http://127.0.0.1:9/v1"), permission_policy="allow"
    )
    app.permissions.grant(["Glob"])
    try:
        out = await answer(app, lay.proj, can_use_tool("Glob", {"pattern": pattern}, ""))
        inside = await answer(app, lay.proj, can_use_tool("Glob", {"pattern": "src/**/*.py"}, ""))
    finally:
        await app.aclose()
    assert out["behavior"] == "deny" and "outside the working folder" in out["message"]
    assert inside["behavior"] == "allow"


class _Conn:
    """Just enough of an MCP connection to see which arguments reach the server."""

    def __init__(self, schema: dict[str, Any]) -> None:
        from types import SimpleNamespace

        self.name = "s"
        self.tools = [SimpleNamespace(name="t", title=None, description="d", input_schema=schema)]
        self.got: list[dict[str, Any]] = []

    async def call(self, tool: str, args: dict[str, Any]) -> Any:
        from milk_tui.agents.mcp.connection import McpCallError

        self.got.append(args)
        raise McpCallError("recorded")


async def test_an_mcp_server_never_gets_an_argument_its_schema_does_not_declare(
    lay: Layout,
) -> None:
    """The check resolves the path arguments the schema names; an undeclared ``path`` the
    model adds would reach the server unchecked, so it is not passed."""
    import json

    from milk_tui.agents.mcp.toolbox import McpToolBox

    closed = _Conn({"type": "object", "properties": {"text": {"type": "string"}}})
    await McpToolBox([closed]).call("mcp__s__t", json.dumps({"text": "x", "path": "/etc/x"}))  # type: ignore[list-item]
    assert closed.got == [{"text": "x"}]
    open_ = _Conn({"type": "object", "additionalProperties": True})
    box = McpToolBox([open_])  # type: ignore[list-item]
    (spec,) = box.specs()
    args = {"text": "x", "path": "/etc/x"}
    from milk_tui.agents.tools.paths import call_paths

    assert [p.raw for p in call_paths(lay.proj, args, spec.path_args) if not p.inside] == ["/etc/x"]


async def test_a_symlink_made_earlier_in_the_same_reply_is_not_written_through(
    srv: FakeOpenAIServer, lay: Layout
) -> None:
    """Every call of a reply is checked before any runs: ``made/w.txt`` was decided inside
    (``made`` did not exist); the ``ln`` that runs first makes it lead outside, and the
    write refuses the path that now resolves elsewhere."""
    app, _ = open_app(srv, lay.proj, "allow")
    app.permissions.grant(GRANTED)
    script(
        srv,
        call("bash", "ln", command="ln -s ../outside made"),
        call("write_file", "c", path="made/victim.txt", content="HACK"),
    )
    try:
        assert (await app.run_turn("attack", force="primary")).ok
    finally:
        await app.aclose()
    assert (lay.outside / "victim.txt").read_text() == "orig victim\n"
    told = results(srv)["c"]
    assert "not touched" in told or told.startswith("wrote made/victim.txt"), told


@pytest.mark.parametrize(
    ("grant", "path"),
    [
        ("write_file:/", "{out}/victim.txt"),  # a path grant is one path, never a prefix
        ("write_file:{out}", "{out}/victim.txt"),
        ("write_file:{out}/../outside/victim.txt", "{out}/victim.txt"),  # never resolved
        ("write_file:{out}/victim.txt%0A", "{out}/victim.txt"),
        ("read_file:{out}/victim.txt", "{out}/victim.txt"),  # another tool's grant
        ("write_file:{out}/Victim.txt", "{out}/victim.txt"),
    ],
)
def test_a_tampered_path_grant_covers_no_other_path(lay: Layout, grant: str, path: str) -> None:
    from milk_tui.agents.tool_permission import path_question
    from milk_tui.agents.tools.paths import call_paths
    from milk_tui.engine.permission_policy import decide

    out = str(lay.outside)
    args = {"path": path.format(out=out), "content": "x"}
    q = path_question(
        "a", "write_file", args, call_paths(lay.proj, args, ("path",)), effect="write"
    )
    granted = frozenset({grant.format(out=out), "write_file", "bash"})
    d = decide(q, root=lay.proj, skip=True, granted=granted, can_ask=False)
    assert d is not None and not d.allowed
    exact = frozenset({f"write_file:{out}/victim.txt"})
    ok = decide(q, root=lay.proj, skip=False, granted=exact, can_ask=False)
    assert ok is not None and ok.allowed  # the exact grant is what allows it


# --- a folder's own Claude settings -------------------------------------------------------

HOOKS = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch /tmp/x"}]}]}}


def _claude_argv(folder: Path) -> list[str]:
    from milk_tui.agents import base as ab
    from milk_tui.agents.claude_cli import ClaudeCliAgent
    from milk_tui.config.settings import AgentConfig

    agent = ClaudeCliAgent(AgentConfig(name="claude", provider="claude-cli", bin="/bin/claude"))
    return agent.build_argv(
        ab.AgentRequest(slot="escalation", prompt="hi", cwd=str(folder)), "s", None
    )


def _trust_all(folder: Path) -> None:
    from milk_tui.agents.claude_project import project_trust, trust_files
    from milk_tui.config.paths import permissions_dir
    from milk_tui.config.project_trust import TrustStore

    store = TrustStore(permissions_dir())
    trust_files(str(folder), store, project_trust(str(folder), store).ask, True)


def _settings_loaded(folder: Path) -> bool:
    return "--setting-sources" not in _claude_argv(folder)


def test_a_trusted_settings_file_changed_before_launch_is_not_loaded(
    milk_home: Path, lay: Layout
) -> None:
    settings = lay.proj / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": "x"}))
    _trust_all(lay.proj)
    assert _settings_loaded(lay.proj)
    settings.write_text(json.dumps(HOOKS))  # changed after the answer, before the launch
    assert not _settings_loaded(lay.proj)


def test_a_settings_file_symlinked_to_a_trusted_one_is_judged_by_its_content(
    milk_home: Path, lay: Layout
) -> None:
    (lay.proj / ".claude").mkdir()
    shared = lay.outside / "settings.json"
    shared.write_text(json.dumps({"model": "x"}))
    (lay.proj / ".claude" / "settings.json").symlink_to(shared)
    _trust_all(lay.proj)
    assert _settings_loaded(lay.proj)
    shared.write_text(json.dumps(HOOKS))  # the link's target changes: asked again
    assert not _settings_loaded(lay.proj)


@pytest.mark.parametrize("shape", ["claude_dir_symlink", "settings_is_a_folder", "fifo", "env"])
def test_a_folder_cannot_smuggle_settings_past_the_trust_check(
    milk_home: Path, lay: Layout, shape: str
) -> None:
    claude = lay.proj / ".claude"
    if shape == "claude_dir_symlink":
        (lay.outside / "s").mkdir()
        (lay.outside / "s" / "settings.json").write_text(json.dumps(HOOKS))
        claude.symlink_to(lay.outside / "s")
    elif shape == "settings_is_a_folder":
        (claude / "settings.json").mkdir(parents=True)
    elif shape == "fifo":  # would block a plain read for ever
        claude.mkdir()
        os.mkfifo(claude / "settings.json")
    else:
        claude.mkdir()
        env = {"env": {"CLAUDE_CONFIG_DIR": str(lay.outside)}}
        (claude / "settings.local.json").write_text(json.dumps(env))
    assert not _settings_loaded(lay.proj)
