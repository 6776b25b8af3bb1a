"""Scoped shell grants: "Always" on one ``bash`` command grants its prefix (``bash:git
status``), matched on whole words, never a chained or redirected command; every command is
the separate, explicit choice (``bash``), which a grant file from before still means."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.agents.grant_keys import command_granted, command_prefix, shell_grant
from milk_tui.agents.tool_permission import path_question
from milk_tui.config.paths import permissions_dir
from milk_tui.engine.permission_policy import decide
from milk_tui.model import events as ev
from milk_tui.storage.permission_grants import GrantStore
from milk_tui.testing.fake_openai import FakeOpenAIServer

from .rig import answering, call, of, open_app, results, script


def allowed(command: str, *grants: str) -> bool:
    q = path_question("llama", "bash", {"command": command}, (), effect="run")
    d = decide(q, root=Path("/"), skip=False, granted=frozenset(grants), can_ask=False)
    assert d is not None
    return d.allowed


@pytest.mark.parametrize(
    ("command", "grant"),
    [
        ("git status -s", "bash:git status"),
        ("npm test", "bash:npm test"),
        ("ls -la src", "bash:ls"),
        ("git -C /elsewhere push", "bash=git -C /elsewhere push"),  # no honest subcommand
        ("make", "bash=make"),
        ("sudo rm -rf build", "bash=sudo rm -rf build"),  # a wrapper runs anything
        ("FOO=1 make test", "bash=FOO=1 make test"),
        ("git status; rm -rf x", "bash=git status; rm -rf x"),
        ("echo a\nrm b", "bash=echo a%0Arm b"),
    ],
)
def test_the_grant_always_offers_for_a_command(command: str, grant: str) -> None:
    assert shell_grant(command) == grant
    q = path_question("llama", "bash", {"command": command}, ())
    assert (q.grant, q.grant_all) == (grant, "bash")


def test_a_prefix_grant_matches_whole_leading_words_of_a_simple_command_only() -> None:
    g = "bash:git status"
    assert allowed("git status", g) and allowed("git status -s", g)
    assert allowed("  git   status  --short ", g)
    assert not allowed("git push", g)
    assert not allowed("git statusx", g)  # whole words
    assert not allowed("git", g)
    for chained in (
        "git status; rm -rf x",
        "git status && rm -rf x",
        "git status || rm -rf x",
        "git status | sh",
        "git status > /etc/passwd",
        "git status < /dev/zero",
        "git status `rm -rf x`",
        "git status $(rm -rf x)",
        "git status &",
        "git status\nrm -rf x",
    ):
        assert not allowed(chained, g), chained
    assert command_prefix("git status; rm -rf x") == ""


def test_an_exact_grant_matches_that_command_only_and_bash_matches_all() -> None:
    exact = "bash=git status; make"
    assert allowed("git status; make", exact) and allowed(" git status; make ", exact)
    assert not allowed("git status; make install", exact)
    assert not allowed("git status", exact)
    assert allowed("rm -rf / ; anything | sh", "bash")
    assert command_granted("x", ["bash"]) and not command_granted("x", ["bash:y"])


def bash(call_id: str, command: str):  # noqa: ANN201 — a FakeToolCall
    return call("bash", call_id, command=command)


async def test_always_stores_the_prefix_and_wide_stores_every_command(
    srv: FakeOpenAIServer, tmp_path: Path
) -> None:
    app, events = open_app(srv, tmp_path, "ask")
    answers = iter(
        [
            {"allow": True, "always": True},  # echo one → bash:echo
            {"allow": False},  # touch pwned (not covered by bash:echo)
            {"allow": False},  # echo; touch (chained)
            {"allow": True, "always": True, "wide": True},  # printf → bash
        ]
    )
    answering(app, lambda q: next(answers))
    script(srv, bash("e1", "echo one"))
    script(srv, bash("e2", "echo two -n"))
    script(srv, bash("t", "touch pwned"))
    script(srv, bash("c", "echo three; touch pwned2"))
    script(srv, bash("p", "printf x"))
    script(srv, bash("any", "touch after-wide && echo ok"))
    try:
        for prompt in ("1", "2", "3", "4", "5", "6"):
            assert (await app.run_turn(prompt, force="primary")).ok
    finally:
        await app.aclose()
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()
    assert (tmp_path / "after-wide").exists()
    asked = of(events, ev.PermissionRequested)
    assert [(q.tool_input["command"], q.grant, q.grant_all) for q in asked] == [
        ("echo one", "bash:echo", "bash"),
        ("touch pwned", "bash:touch", "bash"),
        ("echo three; touch pwned2", "bash=echo three; touch pwned2", "bash"),
        ("printf x", "bash:printf", "bash"),
    ]
    hows = [d.how for d in of(events, ev.PermissionDecided)]
    assert hows == ["always", "grant", "user", "user", "always", "grant"]
    assert app.permissions.show().tools == ("bash", "bash:echo")


async def test_a_grant_file_from_before_with_plain_bash_still_allows_every_command(
    srv: FakeOpenAIServer, tmp_path: Path
) -> None:
    store = GrantStore(permissions_dir())
    store.path_for(str(tmp_path)).parent.mkdir(parents=True, exist_ok=True)
    store.path_for(str(tmp_path)).write_text(
        json.dumps({"cwd": str(tmp_path.resolve()), "allowed_tools": ["bash"]})
    )
    app, events = open_app(srv, tmp_path, "deny")
    script(srv, bash("x", "touch made && echo done > made2"))
    try:
        assert (await app.run_turn("run", force="primary")).ok
    finally:
        await app.aclose()
    assert (tmp_path / "made").exists() and (tmp_path / "made2").exists()
    assert [(d.allowed, d.how) for d in of(events, ev.PermissionDecided)] == [(True, "grant")]
    assert "error" not in results(srv)["x"]
