"""A reply cut at max_tokens, where a person meets it: the real TUI (Pilot, 80x24 and
160x45) and ``milk -p``, answered by the real llama.cpp server running SmolLM2-135M with a
small ``max_tokens`` (the model's ``length`` finish reason), and by the fake OpenAI server."""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers.peers import smollm2_gguf
from tui.conftest import make_app, settle, until

from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.model.events import parse_event
from milk_tui.testing.cli_run import run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.llama_server import LlamaServer
from milk_tui.tui.widgets.conversation import Conversation
from milk_tui.tui.widgets.prompt_input import PromptInput

PROMPT = "Write a long story about a lighthouse keeper and the sea."


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    log = tmp_path_factory.mktemp("smollm2") / "server.log"
    with LlamaServer(smollm2_gguf(), n_ctx=2048, log=log) as srv:
        yield srv


def _config(url: str, max_tokens: int) -> MilkConfig:
    agent = AgentConfig(
        name="smol", provider="local", url=url, model="m", temperature=0, max_tokens=max_tokens
    )
    return MilkConfig(agent="smol", escalation_agent="smol", agents=[agent])


async def _tui_lines(url: str, size: tuple[int, int]) -> tuple[list[tuple[str, str]], str]:
    """(the conversation's (kind, text) items, the screen as text) after one cut turn."""
    app = make_app(config=_config(url, 8), demo=False)
    async with app.run_test(size=size) as pilot:
        app.screen.query_one(PromptInput).set_text(PROMPT)
        await pilot.press("enter")  # not type_and_send: its 15 s wait is short for this model
        await until(pilot, lambda: not app.facade.busy, timeout=120)  # a cold model is slow
        await settle(pilot, app)
        assert not app.facade.busy, "the turn never ended"
        conv = app.main_screen.query_one(Conversation)
        items = [(it.kind, it.text) for it in conv.items]
        screen = app.export_screenshot()
        if shots := os.environ.get("SHOTS_DIR"):  # for a person to look at
            Path(shots, f"reply-cut-{size[0]}x{size[1]}.svg").write_text(screen)
    return items, _svg_text(screen)


def _svg_text(svg: str) -> str:
    """The screen's text, row by row (an SVG splits a row at every change of style)."""
    rows: dict[str, list[str]] = {}
    for m in re.finditer(r'<text [^>]*clip-path="url\(#[^)]*-line-(\d+)\)">([^<]*)</text>', svg):
        rows.setdefault(m.group(1), []).append(html.unescape(m.group(2)).replace("\xa0", " "))
    return "\n".join("".join(parts) for parts in rows.values())


@pytest.mark.real_peer
@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_tui_shows_the_cut_under_smollm2s_reply(
    smollm2: LlamaServer, size: tuple[int, int]
) -> None:
    items, screen = await _tui_lines(smollm2.url, size)
    kinds = [k for k, _ in items]
    assert ("warning", "smol: reply cut at max_tokens (8); it is incomplete") in items, items
    assert kinds.index("reply") < kinds.index("warning")  # under the reply it is about
    assert "reply cut at max_tokens (8)" in screen  # on screen, not only in the model


async def test_tui_says_nothing_for_a_finished_reply() -> None:
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply(text=["The end."])
        items, screen = await _tui_lines(srv.url, (80, 24))
    assert not [t for k, t in items if "reply cut" in t] and "reply cut" not in screen


@pytest.mark.real_peer
def test_print_mode_with_smollm2(smollm2: LlamaServer, tmp_path: Path, milk_home: Path) -> None:
    agent = {"name": "smol", "provider": "local", "url": smollm2.url, "model": "m"}
    agent |= {"temperature": 0, "max_tokens": 8}
    config = {"agent": "smol", "escalation_agent": "smol", "agents": [agent]}
    (milk_home / "config.json").write_text(json.dumps(config))
    r = run_milk("-p", PROMPT, "--primary", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()  # the cut reply itself is kept and printed
    lines = [ln for ln in r.stderr.splitlines() if "reply cut" in ln]
    assert lines == ["milk-tui: smol: reply cut at max_tokens (8); it is incomplete"]
    js = run_milk("-p", PROMPT, "--primary", "--output-format", "stream-json", cwd=tmp_path)
    events = [parse_event(line) for line in js.stdout.splitlines()]
    (cut,) = [e for e in events if e.type == "reply_truncated"]
    assert (cut.finish_reason, cut.max_tokens, cut.agent_name) == ("length", 8, "smol")
