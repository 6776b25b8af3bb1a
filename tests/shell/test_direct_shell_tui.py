"""The direct shell in the real TUI: a typed command runs on a PTY in the shell pane, its
output goes with the next prompt (in the request the fake OpenAI server receives), once;
the confirm takes one key and cannot be answered by typing; /bash and /colorize save."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

from tui.conftest import make_app, settle, type_and_send, until

from milk_tui.testing.fake_openai import FakeOpenAIServer
from milk_tui.tui.screens.shell_confirm import ShellConfirm
from milk_tui.tui.screens.shell_screen import ShellScreen
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput
from milk_tui.tui.widgets.terminal_view import TerminalView

PY = sys.executable


def _config(tmp_path: Path, url: str, allow: list[str]) -> Path:
    path = tmp_path / "config.toml"
    allowed = ", ".join(f'"{w}"' for w in allow)
    path.write_text(
        f'agent = "fake"\nescalation_agent = "fake"\ndirect_bash = true\n'
        f"direct_bash_allow = [{allowed}]\n\n"
        f'[[agents]]\nname = "fake"\nprovider = "local"\nurl = "{url}"\nmodel = "m"\n'
    )
    return path


def _app(tmp_path: Path, srv: FakeOpenAIServer, allow: list[str]) -> Any:
    work = tmp_path / "work"
    work.mkdir()
    cfg = _config(tmp_path, srv.url, allow)
    return make_app(config_path=str(cfg), demo=False, cwd=str(work)), work, cfg


async def _enter(pilot: Any, text: str) -> None:
    pilot.app.screen.query_one(PromptInput).set_text(text)
    await pilot.press("enter")


async def _finish_pane(pilot: Any) -> None:
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, ShellScreen), what="the shell pane")
    await until(pilot, lambda: app.screen.exit_code is not None, what="the command to exit")
    await pilot.press("enter")
    await until(pilot, lambda: not isinstance(app.screen, ShellScreen), what="the pane to close")


def _user_text(srv: FakeOpenAIServer, n: int) -> str:
    msgs = srv.chat_requests[n].json["messages"]
    return str([m for m in msgs if m["role"] == "user"][-1]["content"])


async def test_an_allowed_command_runs_and_its_output_goes_with_the_next_prompt_once(
    tmp_path: Path,
) -> None:
    with FakeOpenAIServer() as srv:
        app, work, _ = _app(tmp_path, srv, ["echo"])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await _enter(pilot, "echo shell-said-$((6*7))")
            await until(pilot, lambda: isinstance(app.screen, ShellScreen), what="the pane")
            term = app.screen.query_one(TerminalView)
            await until(pilot, lambda: "shell-said-42" in term.text(), what="the output")
            await _finish_pane(pilot)
            assert app.facade.attachments.staged[0].kind == "shell"
            notes = [it.text for it in app.main_screen.query_one(Conversation).items]
            assert any("$ echo shell-said" in t and "next prompt" in t for t in notes)
            await type_and_send(pilot, "what did it print")
            first = _user_text(srv, 0)
            assert "shell-said-42" in first and "$ echo shell-said-$((6*7))" in first
            assert "[exit status 0]" in first
            assert app.facade.attachments.staged == []
            await type_and_send(pilot, "and now")
            assert "shell-said-42" not in _user_text(srv, 1)  # consumed once


async def test_a_command_not_allowed_asks_one_key(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        app, work, _ = _app(tmp_path, srv, [])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await _enter(pilot, "touch made-by-enter")
            await until(pilot, lambda: isinstance(app.screen, ShellConfirm), what="the confirm")
            assert not (work / "made-by-enter").exists()
            await pilot.press("enter")
            await _finish_pane(pilot)
            assert (work / "made-by-enter").exists()

            await _enter(pilot, "touch made-by-n")  # n: the line goes to the agent instead
            await until(pilot, lambda: isinstance(app.screen, ShellConfirm), what="the confirm")
            await pilot.press("n")
            await settle(pilot, app)
            assert not (work / "made-by-n").exists()
            assert _user_text(srv, 0).startswith("touch made-by-n")

            await _enter(pilot, "touch made-by-esc")
            await until(pilot, lambda: isinstance(app.screen, ShellConfirm), what="the confirm")
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, ShellConfirm), what="closed")
            assert not (work / "made-by-esc").exists()
            assert app.screen.query_one(PromptInput).text == "touch made-by-esc"

            app.screen.query_one(PromptInput).set_text("")
            await _enter(pilot, "touch made-by-ctrl-c")  # the app's Ctrl+C: cancel, not quit
            await until(pilot, lambda: isinstance(app.screen, ShellConfirm), what="the confirm")
            await pilot.press("ctrl+c")
            await until(pilot, lambda: not isinstance(app.screen, ShellConfirm), what="closed")
            await pilot.pause()
            assert not (work / "made-by-ctrl-c").exists()
            assert app.screen.query_one(PromptInput).text == "touch made-by-ctrl-c"


async def test_typing_into_the_confirm_never_answers_it(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        app, work, _ = _app(tmp_path, srv, [])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await _enter(pilot, "touch made-by-typing")
            await until(pilot, lambda: isinstance(app.screen, ShellConfirm), what="the confirm")
            confirm = app.screen
            # a typed word arrives at once: its first letter is y, the confirm's "yes"
            for ch in "yes please":
                confirm.post_message(_key(ch))
            await until(pilot, lambda: not isinstance(app.screen, ShellConfirm), what="closed")
            await pilot.pause()
            assert not isinstance(app.screen, ShellScreen)
            assert not (work / "made-by-typing").exists()
            assert app.screen.query_one(PromptInput).text == "yes please"
            # a lone y is text too: the first letter of a word typed without looking
            await _enter(pilot, "touch made-by-typing")
            await until(pilot, lambda: isinstance(app.screen, ShellConfirm), what="the confirm")
            await pilot.press("y")
            await until(pilot, lambda: not isinstance(app.screen, ShellConfirm), what="closed")
            await pilot.pause()
            assert not (work / "made-by-typing").exists()
            assert app.screen.query_one(PromptInput).text == "y"
            assert srv.chat_requests == []


async def test_keys_of_a_burst_split_by_the_question_closing_keep_their_order(
    tmp_path: Path,
) -> None:
    """The question answers with the keys it had when it decided; keys it still had queued
    arrive after that (before or after the flow put the first ones back), and keys sent once
    it is gone reach the box directly.  All of them end in the box in the order typed."""
    from milk_tui.tui.screens.shell_flow import TypedAhead

    with FakeOpenAIServer() as srv:
        app, _work, _ = _app(tmp_path, srv, [])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            box = app.screen.query_one(PromptInput)
            ahead = TypedAhead()
            ahead.add(",")  # queued for the question, handled before the flow resumed
            box.insert("!")  # typed after the question was gone: straight into the box
            ahead.attach(box, "yes")  # the keys the question decided on
            assert box.text == "yes,!"
            ahead.add(" go")  # queued for the question, handled after the flow resumed
            assert box.text == "yes, go!"
            assert box.cursor_location == box.document.end  # typing goes on at the end


def _key(ch: str) -> Any:
    from textual import events

    return events.Key("space" if ch == " " else ch, ch)


async def test_a_hostile_child_never_reaches_the_terminal_raw(tmp_path: Path) -> None:
    hostile = (
        "import sys; sys.stdout.write('\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;owned\\x07"
        "\\x1b[?1049hALT\\x1b[?1049l\\x9b2J\\r\\x1b[31mred\\x1b[0m \\x07bell done\\n')"
    )
    with FakeOpenAIServer() as srv:
        app, work, _ = _app(tmp_path, srv, [])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await _enter(pilot, f'!{PY} -c "{hostile}"')
            await until(pilot, lambda: isinstance(app.screen, ShellScreen), what="the pane")
            term = app.screen.query_one(TerminalView)
            await until(pilot, lambda: "done" in term.text(), what="the output")
            drawn = "".join(
                seg.text for y in range(term.size.height) for seg in term.render_line(y)
            )
            assert "red" in drawn and "done" in drawn
            assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in drawn)
            await _finish_pane(pilot)
            staged = app.facade.attachments.for_turn()[0].data.decode()
            assert "\x1b" not in staged and "\x07" not in staged and "cHduZWQ" not in staged


async def test_ctrl_c_interrupts_the_child_and_resize_reaches_it(tmp_path: Path) -> None:
    script = (
        "import os,signal,time\n"
        "signal.signal(signal.SIGWINCH, lambda *a: print('size', *os.get_terminal_size(), flush=True))\n"
        "print('ready', *os.get_terminal_size(), flush=True)\n"
        "time.sleep(300)\n"
    )
    with FakeOpenAIServer() as srv:
        app, work, _ = _app(tmp_path, srv, [])
        (work / "w.py").write_text(script)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await _enter(pilot, f"!{PY} w.py")
            await until(pilot, lambda: isinstance(app.screen, ShellScreen), what="the pane")
            pane = app.screen
            term = pane.query_one(TerminalView)
            await until(pilot, lambda: "ready" in term.text(), what="the child to start")
            w, h = term.size.width, term.size.height
            assert f"ready {w} {h}" in term.text()
            await pilot.resize_terminal(120, 40)
            w2, h2 = 120 - (100 - w), 40 - (30 - h)
            await until(pilot, lambda: f"size {w2} {h2}" in term.text(), what="the new size")
            await pilot.press("ctrl+c")
            await until(pilot, lambda: pane.exit_code is not None, what="the child to end")
            assert pane.exit_code != 0
            assert "KeyboardInterrupt" in term.text()


async def test_bash_allow_and_colorize_are_saved(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        app, work, cfg = _app(tmp_path, srv, ["ls"])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await type_and_send(pilot, "/bash allow git")
            await type_and_send(pilot, "/bash deny ls")
            await type_and_send(pilot, "/colorize off")
            saved = tomllib.loads(cfg.read_text())
            assert saved["direct_bash_allow"] == ["git"]
            assert saved["colorization"] == "off"
            assert saved["agents"][0]["name"] == "fake"  # the rest kept
            await type_and_send(pilot, "/bash")
            last = app.main_screen.query_one(Conversation).items[-1].text
            assert "direct shell: on" in last and "git" in last
            await type_and_send(pilot, "/colorize loud")
            last = app.main_screen.query_one(Conversation).items[-1].text
            assert "unknown mode 'loud'" in last
            assert tomllib.loads(cfg.read_text())["colorization"] == "off"


async def test_scrollback_is_capped_and_paged(tmp_path: Path) -> None:
    from milk_tui.tui.widgets.terminal_view import SCROLLBACK_LINES

    with FakeOpenAIServer() as srv:
        app, work, _ = _app(tmp_path, srv, [])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await _enter(pilot, "!seq 1 5000")
            await until(pilot, lambda: isinstance(app.screen, ShellScreen), what="the pane")
            pane = app.screen
            await until(pilot, lambda: pane.exit_code is not None, what="the command to exit")
            term = pane.query_one(TerminalView)
            await until(pilot, lambda: term.text().endswith("5000"), what="the last line")
            kept = term.text().splitlines()
            assert len(kept) <= SCROLLBACK_LINES + term.size.height and "1" not in kept[:1]
            bottom = "".join(s.text for s in term.render_line(term.size.height - 1))
            await pilot.press("pageup")
            await pilot.pause()
            paged = "".join(s.text for s in term.render_line(term.size.height - 1))
            assert bottom.strip() == "5000" and paged.strip() != "5000"
            assert int(paged.strip()) < 5000
            await pilot.press("enter")
            await until(pilot, lambda: not isinstance(app.screen, ShellScreen), what="closed")
            data = app.facade.attachments.for_turn()[0].data.decode()
            assert data.endswith("5000\n[exit status 0]")
            assert len(data.encode()) <= 16 * 1024 + 64  # the end of it only
