"""Adversarial cases for ``bash`` prefix grants (``agents/grant_keys.py``,
docs/adr/0033-path-first-permissions.md): words ``sh`` splits differently from Python,
git options and other programs' options that run a program or write a chosen file,
interpreters, and arguments — paths, option values, globs, expansions — that lead
outside the working folder."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from milk_tui.model import events as ev
from milk_tui.testing.fake_openai import FakeOpenAIServer

from .rig import Layout, answering, call, layout, of, open_app, print_mode_config, results, script


@pytest.fixture
def lay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    lay = layout(tmp_path, monkeypatch)
    (lay.outside / "victim.txt").write_text("orig victim\n")
    (lay.outside / "secret.txt").write_text("orig secret\n")
    (lay.proj / "mine.txt").write_text("mine\n")
    return lay


# --- shell prefix grants -------------------------------------------------------------

GIT_GRANTS = ("bash:git status", "bash:git log", "bash:git grep", "bash:git fetch")
HELD_SHELL = {
    "git_status_granted": ("git status", True),
    "double_space": ("git  status", True),
    "tab_between_words": ("git\tstatus -s", True),
    "comment": ("git status # note", True),
    "dollar_ifs_semicolon": ("git status$IFS;id", False),
    "tab_and": ("git status\t&& id", False),
    "here_string": ("git status <<< x", False),
    "carriage_return": ("git status\rid", False),
    "config_before_command": ("git -c core.pager=evil status", False),
    "dash_C_before_command": ("git -C /elsewhere status", False),
    "assignment_first": ("GIT_DIR=/x git status", False),
    "quoted_command": ('git "status"', False),
    "arith_substitution": ("git status $((1))", False),
}
ESCAPED_SHELL = {
    "nbsp_splits_for_python_only": "git\u00a0status -s",
    "vertical_tab": "git\x0bstatus",
    "line_separator": "git status\u2028id",
    "zero_width_space": "git\u200bstatus",
    "log_output_file": "git log --output=/etc/x",
    "grep_pager_abbreviated": "git grep --open-files=sh x",
    "log_output_separate": "git log --output /etc/x",
    "status_output": "git status --output=/etc/x",
    "grep_pager": "git grep -Osh x",
    "grep_pager_long": "git grep --open-files-in-pager=sh x",
    "fetch_upload_pack": "git fetch --upload-pack=evil origin",
    "fetch_config_after": "git fetch -c core.sshCommand=evil origin",
    "log_ext_diff": "git log --ext-diff -p",
}


@pytest.mark.parametrize("name", [*HELD_SHELL, *ESCAPED_SHELL])
def test_a_git_prefix_grant_covers_only_what_it_names(name: str) -> None:
    from milk_tui.agents.grant_keys import command_granted, shell_grant

    command, expected = HELD_SHELL.get(name) or (ESCAPED_SHELL[name], False)
    assert command_granted(command, GIT_GRANTS) is expected
    if name in ESCAPED_SHELL:  # "Always" on it stores that exact command, nothing wider
        assert shell_grant(command).startswith("bash=")


async def test_a_no_break_space_does_not_smuggle_a_program_past_a_prefix_grant(
    srv: FakeOpenAIServer, lay: Layout
) -> None:
    """``sh`` reads ``pytest<NBSP>/../…/bin/touch`` as one path to a program; Python's
    ``split`` read it as ``pytest`` and a ``bash:pytest`` grant ran ``touch``."""
    (lay.proj / "pytest\u00a0").mkdir()
    climb = "/.." * (len(lay.proj.parts) + 2)
    command = f"pytest\u00a0{climb}/usr/bin/touch ../outside/pwned"
    app, events = open_app(srv, lay.proj, "deny")
    app.permissions.grant(["bash:pytest"])
    script(srv, call("bash", "c", command=command))
    try:
        assert (await app.run_turn("attack", force="primary")).ok
    finally:
        await app.aclose()
    assert not (lay.outside / "pwned").exists()
    assert results(srv)["c"].startswith("permission denied: bash ")


async def test_a_git_log_grant_does_not_write_a_file_outside(
    srv: FakeOpenAIServer, lay: Layout
) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    for argv in (["init", "-q"], ["add", "."], ["commit", "-qm", "one"]):
        subprocess.run(
            ["git", *argv],
            cwd=lay.proj,
            check=True,
            env={**os.environ, **env, "GIT_COMMITTER_EMAIL": "t@t"},
        )
    app, events = open_app(srv, lay.proj, "deny")
    app.permissions.grant(["bash:git log"])
    script(
        srv,
        call("bash", "ok", command="git log --oneline"),
        call("bash", "c", command="git log -p --output=../outside/leak.txt"),
    )
    try:
        assert (await app.run_turn("attack", force="primary")).ok
    finally:
        await app.aclose()
    told = results(srv)
    assert "one" in told["ok"]
    assert not (lay.outside / "leak.txt").exists()
    assert told["c"].startswith("permission denied: bash ")


OUTSIDE_ARGS = {
    "rm_dotdot": ("bash:rm", "rm ../outside/victim.txt"),
    "rm_absolute": ("bash:rm", "rm -f {out}/victim.txt"),
    "rm_home": ("bash:rm", "rm ~/victim.txt"),
    "rm_symlinked_folder": ("bash:rm", "rm link/victim.txt"),
    "cat_secret": ("bash:cat", "cat /etc/passwd"),
    "cp_onto_outside": ("bash:cp", "cp mine.txt ../outside/victim.txt"),
    "find_root_delete": ("bash:find", "find / -name victim.txt -delete"),
    "cp_option_value": ("bash:cp", "cp mine.txt --target-directory={out}"),
    "tar_short_option_value": ("bash:tar", "tar -C/etc -cf x.tar passwd"),
    "dollar_expansion": ("bash:cat", "cat $HOME/secret.txt"),
    "dot_star_glob": ("bash:chmod", "chmod -R 777 .*"),
    "dot_dot_star_glob": ("bash:chmod", "chmod -R 777 ..*"),
    "glob_through_symlink": ("bash:rm", "rm l*/victim.txt"),
    "bracket_glob": ("bash:cat", "cat [l]ink/secret.txt"),
}


@pytest.mark.parametrize("name", OUTSIDE_ARGS)
def test_a_prefix_grant_never_covers_an_argument_outside_the_folder(lay: Layout, name: str) -> None:
    from milk_tui.agents.grant_keys import command_granted

    grant, command = OUTSIDE_ARGS[name]
    command = command.format(out=lay.outside)
    assert command_granted(command.split(" ", 1)[0] + " mine.txt", [grant], lay.proj)
    assert not command_granted(command, [grant], lay.proj)
    assert command_granted(command, [f"bash={command}"], lay.proj)  # the exact grant does


async def test_always_on_rm_inside_does_not_let_rm_reach_outside(
    srv: FakeOpenAIServer, lay: Layout
) -> None:
    (lay.proj / "a.txt").write_text("a\n")
    (lay.proj / "b.txt").write_text("b\n")
    app, events = open_app(srv, lay.proj, "ask")
    answers = iter([{"allow": True, "always": True}, {"allow": False}, {"allow": False}])
    answering(app, lambda q: next(answers))
    script(srv, call("bash", "first", command="rm a.txt"))
    script(
        srv,
        call("bash", "in", command="rm b.txt"),
        call("bash", "c", command="rm ../outside/victim.txt"),
        call("bash", "link", command="rm -f link/secret.txt"),
    )
    try:
        for prompt in ("one", "two"):
            assert (await app.run_turn(prompt, force="primary")).ok
    finally:
        await app.aclose()
    assert app.permissions.show().tools == ("bash:rm",)
    assert not (lay.proj / "a.txt").exists() and not (lay.proj / "b.txt").exists()
    assert sorted(p.name for p in lay.outside.iterdir()) == ["secret.txt", "victim.txt"]
    asked = [q.tool_input["command"] for q in of(events, ev.PermissionRequested)]
    assert asked == ["rm a.txt", "rm ../outside/victim.txt", "rm -f link/secret.txt"]


RUNS_A_PROGRAM = {
    "awk_system": ("bash:awk", "awk 'BEGIN{system(\"id\")}'"),
    "sed_e_command": ("bash:sed", "sed 1e\\ id mine.txt"),
    "find_exec_plus": ("bash:find", "find . -exec id {} +"),
    "find_delete": ("bash:find", "find . -name x -delete"),
    "tar_compress_program": ("bash:tar", "tar -Iid -cf x.tar mine.txt"),
    "tar_to_command": ("bash:tar", "tar --to-command=id -xf x.tar"),
    "rsync_remote_shell": ("bash:rsync", "rsync -e id a b"),
    "stored_sudo_prefix": ("bash:sudo", "sudo id"),
}


@pytest.mark.parametrize("name", RUNS_A_PROGRAM)
def test_a_prefix_grant_never_covers_an_option_that_runs_another_program(
    lay: Layout, name: str
) -> None:
    from milk_tui.agents.grant_keys import command_granted, shell_grant

    grant, command = RUNS_A_PROGRAM[name]
    assert not command_granted(command, [grant], lay.proj)
    assert shell_grant(command).startswith("bash=")  # "Always" stores the exact command
    if grant not in ("bash:awk", "bash:sed", "bash:sudo"):
        assert command_granted(f"{grant[5:]} mine.txt", [grant], lay.proj)


def test_print_mode_a_stored_rm_grant_removes_inside_only(lay: Layout, tmp_path: Path) -> None:
    """The user's view: ``milk-tui -p`` as a real process, with ``bash:rm`` granted."""
    from milk_tui.testing.cli_run import run_milk
    from milk_tui.testing.fake_openai import FakeReply

    home = tmp_path / "milk-home"
    env = {**os.environ, "MILK_HOME": str(home), "HOME": str(lay.outside)}
    with FakeOpenAIServer() as srv:
        print_mode_config(home, srv.url)
        calls = [
            call("bash", "in", command="rm mine.txt"),
            call("bash", "home", command="rm ~/victim.txt"),
            call("bash", "glob", command="rm l*/secret.txt"),
        ]
        srv.enqueue(FakeReply(tool_calls=calls), FakeReply(text=["done"]))
        assert run_milk("permissions", "grant", "bash:rm", cwd=lay.proj, env=env).returncode == 0
        r = run_milk("-p", "clean up", "--primary", cwd=lay.proj, env=env)
        told = results(srv)
    assert r.returncode == 0, r.stderr
    assert not (lay.proj / "mine.txt").exists()
    assert sorted(p.name for p in lay.outside.iterdir()) == ["secret.txt", "victim.txt"]
    for cid in ("home", "glob"):
        assert told[cid].startswith("permission denied: bash "), told
