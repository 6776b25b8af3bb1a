"""Path first: a grant of a tool, ``--allow-tools`` or the skip-permissions switch never
covers a path outside the working folder — whether it leaves through ``..``, an absolute
path, ``~`` or a symlinked sub-folder.  Every file tool, end to end: the fake model scripts
the calls, the real built-in tools would act on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from milk_tui.model import events as ev
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

from .rig import (
    ESCAPES,
    Layout,
    answering,
    call,
    layout,
    of,
    open_app,
    print_mode_config,
    results,
    script,
)

FILE_TOOLS = ["write_file", "edit_file", "delete_file", "move_file", "read_file"]


@pytest.fixture
def lay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    lay = layout(tmp_path, monkeypatch)
    for name in ("victim_e.txt", "victim_d.txt", "victim_m.txt", "victim_o.txt", "secret.txt"):
        (lay.outside / name).write_text(f"orig {name}\n")
    (lay.proj / "mine.txt").write_text("mine\n")
    (lay.proj / "mine2.txt").write_text("mine2\n")
    return lay


def outside_calls(lay: Layout, kind: str) -> list:
    e = lambda name: lay.escape(kind, name)  # noqa: E731
    return [
        call("write_file", "write", path=e("w.txt"), content="HACK"),
        call("edit_file", "edit", path=e("victim_e.txt"), old_string="orig", new_string="HACK"),
        call("delete_file", "delete", path=e("victim_d.txt")),
        call("move_file", "move_in", source=e("victim_m.txt"), destination="in.txt"),
        call("move_file", "move_out", source="mine.txt", destination=e("moved.txt")),
        call("move_file", "overwrite_out", source="mine2.txt", destination=e("victim_o.txt")),
        call("read_file", "read", path=e("secret.txt")),
    ]


def assert_untouched(lay: Layout) -> None:
    assert not (lay.outside / "w.txt").exists()
    assert (lay.outside / "victim_e.txt").read_text() == "orig victim_e.txt\n"
    assert (lay.outside / "victim_d.txt").exists()
    assert (lay.outside / "victim_m.txt").exists() and not (lay.proj / "in.txt").exists()
    assert (lay.proj / "mine.txt").exists() and not (lay.outside / "moved.txt").exists()
    assert (lay.outside / "victim_o.txt").read_text() == "orig victim_o.txt\n"
    assert (lay.proj / "mine2.txt").exists()


@pytest.mark.parametrize("kind", ESCAPES)
@pytest.mark.parametrize("mode", ["granted_headless", "allow_tools"])
async def test_headless_a_grant_or_allow_tools_never_covers_an_outside_path(
    srv: FakeOpenAIServer, lay: Layout, kind: str, mode: str
) -> None:
    app, events = open_app(srv, lay.proj, "deny" if mode == "granted_headless" else "allow")
    app.permissions.grant(FILE_TOOLS)
    script(srv, *outside_calls(lay, kind))
    try:
        assert (await app.run_turn("escape", force="primary")).ok
    finally:
        await app.aclose()
    assert_untouched(lay)
    told = results(srv)
    assert len(told) == 7
    for cid, text in told.items():
        assert text.startswith("permission denied: "), (cid, text)
        assert "outside the working folder" in text and str(lay.outside) in text, (cid, text)
    assert "orig secret" not in told["read"]
    decided = of(events, ev.PermissionDecided)
    assert [(d.allowed, d.how) for d in decided] == [(False, "headless")] * 7
    assert not of(events, ev.PermissionRequested)


@pytest.mark.parametrize("kind", ESCAPES)
async def test_with_skip_permissions_and_grants_every_outside_path_is_asked(
    srv: FakeOpenAIServer, lay: Layout, kind: str
) -> None:
    app, events = open_app(srv, lay.proj, "ask")
    app.permissions.grant(FILE_TOOLS)
    app.permissions.skip = True
    answering(app, lambda q: {"allow": False})
    script(srv, *outside_calls(lay, kind))
    try:
        assert (await app.run_turn("escape", force="primary")).ok
    finally:
        await app.aclose()
    assert_untouched(lay)
    asked = of(events, ev.PermissionRequested)
    assert [q.tool_name for q in asked] == [
        "write_file", "edit_file", "delete_file", "move_file", "move_file", "move_file",
        "read_file",
    ]  # fmt: skip
    write = asked[0]
    assert write.outside_paths == (lay.escape(kind, "w.txt"),)
    assert write.resolved_paths == (str(lay.outside / "w.txt"),)
    assert write.grant == f"write_file:{lay.outside / 'w.txt'}" and write.grant_all == ""
    move_in = asked[3]
    assert move_in.resolved_paths == (str(lay.outside / "victim_m.txt"), str(lay.proj / "in.txt"))
    assert move_in.grant.splitlines() == [
        f"move_file:{lay.outside / 'victim_m.txt'}",
        f"move_file:{lay.proj / 'in.txt'}",
    ]
    assert all(r.startswith("permission denied: the user said no") for r in results(srv).values())


async def test_inside_the_folder_a_grant_still_allows_without_asking(
    srv: FakeOpenAIServer, lay: Layout
) -> None:
    app, events = open_app(srv, lay.proj, "deny")
    app.permissions.grant(["write_file", "move_file"])
    script(
        srv,
        call("write_file", "w", path="sub/../new.txt", content="ok\n"),
        call("move_file", "m", source="mine.txt", destination="deeper/mine.txt"),
    )
    try:
        assert (await app.run_turn("inside", force="primary")).ok
    finally:
        await app.aclose()
    assert (lay.proj / "new.txt").read_text() == "ok\n"
    assert (lay.proj / "deeper" / "mine.txt").read_text() == "mine\n"
    assert [d.how for d in of(events, ev.PermissionDecided)] == ["grant", "grant"]


async def test_always_for_an_outside_path_allows_that_path_only(
    srv: FakeOpenAIServer, lay: Layout
) -> None:
    app, events = open_app(srv, lay.proj, "ask")
    answers = iter([{"allow": True, "always": True}, {"allow": False}, {"allow": False}])
    answering(app, lambda q: next(answers))
    script(srv, call("write_file", "a1", path="../outside/a.txt", content="one\n"))
    script(srv, call("write_file", "a2", path=str(lay.outside / "a.txt"), content="two\n"))
    script(srv, call("write_file", "b", path="../outside/b.txt", content="b\n"))
    script(srv, call("write_file", "in", path="in.txt", content="in\n"))
    try:
        for prompt in ("a", "a again", "b", "inside"):
            assert (await app.run_turn(prompt, force="primary")).ok
    finally:
        await app.aclose()
    assert (lay.outside / "a.txt").read_text() == "two\n"  # the same path: no question
    assert not (lay.outside / "b.txt").exists() and not (lay.proj / "in.txt").exists()
    assert app.permissions.show().tools == (f"write_file:{lay.outside / 'a.txt'}",)
    hows = [(d.tool_name, d.how) for d in of(events, ev.PermissionDecided)]
    assert [h for _, h in hows] == ["always", "grant", "user", "user"]
    assert len(of(events, ev.PermissionRequested)) == 3  # the inside write is asked too


def test_print_mode_with_allow_tools_and_a_grant_refuses_an_outside_write(
    lay: Layout, tmp_path: Path
) -> None:
    """The user's view: ``milk-tui -p … --allow-tools`` as a real process."""
    home = tmp_path / "milk-home"
    env = {**__import__("os").environ, "MILK_HOME": str(home), "HOME": str(lay.outside)}
    with FakeOpenAIServer() as srv:
        print_mode_config(home, srv.url)
        srv.enqueue(
            FakeReply(tool_calls=[call("write_file", "w", path="link/p.txt", content="HACK")]),
            FakeReply(text=["done"]),
        )
        granted = run_milk("permissions", "grant", "write_file", cwd=lay.proj, env=env)
        assert granted.returncode == 0, granted.stderr
        r = run_milk(
            "-p", "write it", "--primary", "--allow-tools", "--output-format", "stream-json",
            cwd=lay.proj, env=env,
        )  # fmt: skip
        told = results(srv)
    assert r.returncode == 0, r.stderr
    assert not (lay.outside / "p.txt").exists()
    assert told["w"].startswith("permission denied: write_file on link/p.txt (")
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    (decided,) = [e for e in lines if e["type"] == "permission_decided"]
    assert (decided["allowed"], decided["how"]) == (False, "headless")
    assert str(lay.outside / "p.txt") in decided["reason"]


def test_a_sibling_folder_sharing_the_name_prefix_is_outside(tmp_path: Path) -> None:
    from milk_tui.agents.tools.paths import call_paths

    proj, sibling = tmp_path / "proj", tmp_path / "proj2"
    proj.mkdir()
    sibling.mkdir()
    got = call_paths(proj.resolve(), {"a": "../proj2/x", "b": "sub/x", "c": "."}, ("a", "b", "c"))
    assert [(p.raw, p.inside) for p in got] == [("../proj2/x", False), ("sub/x", True), (".", True)]
    assert got[0].resolved == str(sibling.resolve() / "x")
