"""A shell command that names a path outside the folder is asked about like any tool's
outside path — under ``/skip-permissions``, ``--allow-tools`` and a grant of every command
too (``agents/shell_paths.py``, docs/adr/0033-path-first-permissions.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.agents.shell_paths import outside_words
from milk_tui.model import events as ev
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

from .rig import Layout, answering, call, layout, of, open_app, print_mode_config, results, script


@pytest.fixture
def lay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    lay = layout(tmp_path, monkeypatch)
    (lay.outside / "victim.txt").write_text("orig\n")
    (lay.proj / "mine.txt").write_text("mine\n")
    return lay


REACHES_OUT = {
    "home": "rm ~/victim.txt",
    "dollar_home": "rm $HOME/victim.txt",
    "dotdot": "rm ../outside/victim.txt",
    "absolute_in_a_chain": "true && rm {outside}/victim.txt",
    "symlinked_folder": "rm link/victim.txt",
    "glob_through_the_link": "rm l*/victim.txt",
    "redirect": "echo x > ../outside/victim.txt",
    "redirect_first": "> ../outside/victim.txt echo x",
    "option_value": "cp --target-directory=../outside mine.txt",
    "newline_then_command": "true\n\n\nrm ../outside/victim.txt",
}
STAYS_IN = ["ls -la", "git status 2>/dev/null", "cat mine.txt > copy.txt", "FOO=1 make -n",
            "/usr/bin/env true", "grep -r x . | head", "curl https://example.org/a/b"]  # fmt: skip


@pytest.mark.parametrize("case", sorted(REACHES_OUT))
def test_each_way_out_is_seen(lay: Layout, case: str) -> None:
    command = REACHES_OUT[case].format(outside=lay.outside)
    found = outside_words(lay.proj.resolve(), command)
    assert found and all(not p.inside for p in found), command


@pytest.mark.parametrize("command", STAYS_IN)
def test_commands_that_stay_inside_name_no_outside_path(lay: Layout, command: str) -> None:
    assert outside_words(lay.proj.resolve(), command) == ()


@pytest.mark.parametrize("case", ["home", "dotdot", "symlinked_folder", "newline_then_command"])
async def test_skip_permissions_and_a_bash_grant_still_ask_for_an_outside_path(
    srv: FakeOpenAIServer, lay: Layout, case: str
) -> None:
    app, events = open_app(srv, lay.proj, "ask")
    app.permissions.grant(["bash"])
    app.permissions.skip = True
    answering(app, lambda e: {"allow": False})
    script(srv, call("bash", "c", command=REACHES_OUT[case]))
    try:
        assert (await app.run_turn("clean up", force="primary")).ok
    finally:
        await app.aclose()
    (asked,) = of(events, ev.PermissionRequested)
    assert asked.outside_paths, asked
    assert str(lay.outside / "victim.txt") in asked.resolved_paths
    # Always grants exactly this command, and there is no wider choice
    assert asked.grant.startswith("bash=") and asked.grant_all == ""
    assert (lay.outside / "victim.txt").read_text() == "orig\n"
    assert results(srv)["c"].startswith("permission denied: the user said no")


async def test_always_on_it_allows_that_exact_command_only(
    srv: FakeOpenAIServer, lay: Layout
) -> None:
    (lay.outside / "other.txt").write_text("other\n")
    app, events = open_app(srv, lay.proj, "ask")
    answer = {"allow": True, "always": True}
    answering(app, lambda e: answer)
    script(srv, call("bash", "c", command="cat ../outside/victim.txt"))
    try:
        assert (await app.run_turn("read it", force="primary")).ok
        assert "orig" in results(srv)["c"]
        answer = {"allow": False}
        script(
            srv,
            call("bash", "again", command="cat ../outside/victim.txt"),
            call("bash", "other", command="cat ../outside/other.txt"),
        )
        assert (await app.run_turn("and again", force="primary")).ok
    finally:
        await app.aclose()
    told = results(srv)
    assert "orig" in told["again"]
    assert told["other"].startswith("permission denied"), told
    assert len(of(events, ev.PermissionRequested)) == 2


def test_print_mode_with_allow_tools_denies_a_command_reaching_outside(
    lay: Layout, tmp_path: Path
) -> None:
    """The user's view: ``milk-tui -p … --allow-tools`` as a real process."""
    home = tmp_path / "milk-home"
    env = {**__import__("os").environ, "MILK_HOME": str(home), "HOME": str(lay.outside)}
    with FakeOpenAIServer() as srv:
        print_mode_config(home, srv.url)
        srv.enqueue(
            FakeReply(
                tool_calls=[
                    call("bash", "out", command="rm ~/victim.txt"),
                    call("bash", "in", command="rm mine.txt"),
                ]
            ),
            FakeReply(text=["done"]),
        )
        r = run_milk(
            "-p", "clean", "--primary", "--allow-tools", "--output-format", "stream-json",
            cwd=lay.proj, env=env,
        )  # fmt: skip
        told = results(srv)
    assert r.returncode == 0, r.stderr
    assert (lay.outside / "victim.txt").exists()
    assert not (lay.proj / "mine.txt").exists()  # inside, --allow-tools still allows
    assert told["out"].startswith("permission denied: bash on ~/victim.txt ("), told
    assert "bash=rm ~/victim.txt" in told["out"]
    decided = [json.loads(x) for x in r.stdout.splitlines()]
    hows = sorted(e["how"] for e in decided if e["type"] == "permission_decided")
    assert hows == ["headless", "skip"]
