"""A REAL llama.cpp server (the ``xllamacpp`` wheel) with SmolLM2-135M-Instruct, started by
an agent's ``run_cmd`` when its URL does not answer: from ``-p`` and from the TUI (Pilot).
The reply comes from that model (the server's own log counts the tokens it generated) and
the server is gone afterwards."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from milk_tui.facade.application import start
from milk_tui.model import events as ev
from milk_tui.testing.cli_run import run_milk
from milk_tui.tui.app import MilkApp
from milk_tui.tui.ui_state import UIState
from milk_tui.tui.widgets.conversation import Conversation
from servers.peers import env_for, free_port, group_gone, llama_cmd, smollm2_gguf, write_config

pytestmark = pytest.mark.real_peer

MAX_TOKENS = 24


def generated_tokens(log: Path) -> list[int]:
    """The token counts llama.cpp logged for each generation (``eval time = … / N tokens``)."""
    lines = log.read_text(errors="replace").splitlines()
    found = (re.search(r"\beval time =.*?/\s*(\d+) tokens", ln) for ln in lines)
    return [int(m.group(1)) for m in found if m and "prompt eval" not in m.string]


def test_print_mode_starts_llama_cpp_answers_from_the_model_and_stops_it(milk_home: Path) -> None:
    port = free_port()
    write_config(milk_home, port, llama_cmd(smollm2_gguf(), port), max_tokens=MAX_TOKENS)
    r = run_milk(
        "-p", "Say hello.", "--output-format", "stream-json",
        cwd=milk_home, env=env_for(milk_home), timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    events = [ev.parse_event(line) for line in r.stdout.splitlines() if '"server_' not in line]
    server = [json.loads(line) for line in r.stdout.splitlines() if '"server_' in line]
    starting = next(e for e in server if e["type"] == "server_starting")
    assert [e["type"] for e in server][-2:] == ["server_ready", "server_stopped"]
    reply = "".join(e.text for e in events if isinstance(e, ev.TextDelta))
    usage = [e for e in events if isinstance(e, ev.Usage)]
    assert reply.strip()
    assert usage and usage[-1].model == "tiny"
    log = Path(starting["log"])
    # The server run_cmd started generated exactly the tokens that were reported.
    assert usage[-1].completion_tokens in generated_tokens(log)
    assert group_gone(starting["pid"])  # stopped at the end of -p


async def test_tui_starts_llama_cpp_for_the_turn_and_stops_it_on_quit(milk_home: Path) -> None:
    from tui.conftest import settle, until

    from milk_tui.tui.widgets.prompt_input import PromptInput

    port = free_port()
    config = write_config(milk_home, port, llama_cmd(smollm2_gguf(), port), max_tokens=MAX_TOKENS)
    application = start(cwd=str(milk_home), config_path=config, new=True, cooperative=True)
    seen: list[ev.BusEvent] = []
    application.add_listener(seen.append)
    app = MilkApp(application, ui_state=UIState())
    async with app.run_test(size=(120, 40)) as pilot:
        app.screen.query_one(PromptInput).set_text("Say hello.")
        await pilot.press("enter")
        await until(pilot, lambda: not app.facade.busy, timeout=90)  # a model loads, answers
        await settle(pilot, app)
        conv = app.main_screen.query_one(Conversation)
        replies = [it.text for it in conv.items if it.kind == "reply"]
        notices = [it.text for it in conv.items if it.kind == "notice"]
        assert replies and replies[-1].strip(), [it.text for it in conv.items]
        assert any(n.startswith("starting the server of 'smol'") for n in notices)
        assert any(n.startswith("the server of 'smol' is ready after") for n in notices)
        starting = next(e for e in seen if isinstance(e, ev.ServerStarting))
        assert not group_gone(starting.pid)
        await app.action_quit()
    assert group_gone(starting.pid)
    # Read once the server has stopped: it logs a generation's timing after the reply ends.
    usage = [e for e in seen if isinstance(e, ev.Usage)]
    assert usage[-1].completion_tokens in generated_tokens(Path(starting.log))
