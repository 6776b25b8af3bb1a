"""Loop detection: a repeating reply is cut (its HTTP stream closed early), the user told in
one line, the text before the loop kept; repeated replies across turns warn."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from dispatch_rig import Rig
from hypothesis import given, settings
from hypothesis import strategies as st

from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.config.load import load_config
from milk_tui.config.loop_detection import LoopDetection
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.agent_slot import AgentSlot
from milk_tui.engine.loop_detection import (
    CHECK_EVERY,
    RepetitionWatch,
    ReplyWatch,
    loop_notice,
)
from milk_tui.storage.sessions import SessionStore
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply
from milk_tui.testing.scripted_agent import say
from milk_tui.testing.waits import WAIT_S, until

PROSE = (
    "Rome was founded, the story says, in 753 BC. Its kings gave way to a republic, the "
    "republic to an empire, and the empire split in two. The western half fell in 476; the "
    "eastern half lasted until 1453. Latin became Italian, French and Spanish. "
)
SENTENCE = "The Romans also built numerous temples, including the Colosseum. "


def feed(w: RepetitionWatch, parts: list[str], piece: str) -> bool:
    """What the stream reader does per visible chunk."""
    parts.append(piece)
    chars = sum(map(len, parts))
    return chars >= w.next_check and w.check(parts, chars)


def watch_text(text: str, step: int = 5, repeats: int = 5) -> tuple[bool, int]:
    w = RepetitionWatch(repeats)
    parts: list[str] = []
    for i in range(0, len(text), step):
        if feed(w, parts, text[i : i + step]):
            return True, i + step
    return False, len(text)


def test_a_repeated_sentence_is_found_soon_after_the_fifth_copy() -> None:
    text = PROSE + SENTENCE * 40
    hit, at = watch_text(text)
    assert hit and at <= len(PROSE) + 5 * len(SENTENCE) + CHECK_EVERY + 5


def test_the_cut_keeps_the_text_before_and_the_passage_once() -> None:
    text = PROSE + SENTENCE * 40
    w = RepetitionWatch(5)
    parts: list[str] = []
    for i in range(0, len(text), 7):
        if feed(w, parts, text[i : i + 7]):
            break
    kept, passage = w.cut("".join(parts))
    assert kept.startswith(PROSE) and kept.count("Colosseum") == 1
    assert " ".join(passage.split()) in " ".join(SENTENCE.split()) * 2


def test_notice_is_one_short_line() -> None:
    msg = loop_notice("a b\n c " * 30)
    assert msg.startswith("stopped: the reply kept repeating “") and "\n" not in msg
    assert len(msg) < 110


def test_ordinary_text_separators_and_tables_are_not_loops() -> None:
    table = "| a | b |\n|---|---|\n" + "".join(f"| {i} | {i * i} |\n" for i in range(200))
    for text in (
        PROSE * 1,
        "=" * 2000,
        "-+-" * 500,
        table,
        " ".join(f"item {i}" for i in range(1000)),
        "ha" * 1000,
    ):
        assert watch_text(text) == (False, len(text)), text[:40]


def test_four_copies_are_not_enough() -> None:
    assert not watch_text(PROSE + SENTENCE * 4 + "And then it ended.")[0]


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=97))
def test_any_chunk_size_finds_the_loop(step: int) -> None:
    assert watch_text(PROSE + SENTENCE * 12, step=step)[0]


def test_disabled_never_checks() -> None:
    assert RepetitionWatch(0).next_check == float("inf")


# ----- across turns -------------------------------------------------------------------


def test_near_identical_replies_warn_on_the_third() -> None:
    w = ReplyWatch(LoopDetection())
    reply = "I cannot help with that request because it is unclear what you want."
    assert w.after_turn(reply, 10) == []
    assert w.after_turn(reply + " Sorry.", 10) == []
    out = w.after_turn(reply, 10)
    assert len(out) == 1 and "nearly identical" in out[0]
    assert w.after_turn("Paris is the capital of France.", 10) == []


def test_silent_burn_and_velocity_warn() -> None:
    clock = [0.0]
    w = ReplyWatch(LoopDetection(max_silent_burn_tokens=100), clock=lambda: clock[0])
    assert w.after_turn("", 60) == []
    assert "without a visible reply" in w.after_turn("  ", 60)[0]
    w = ReplyWatch(LoopDetection(token_velocity_threshold=1000), clock=lambda: clock[0])
    assert w.after_turn("a", 600) == []
    clock[0] = 61.0
    assert w.after_turn("b", 600) == []  # the first 600 left the window
    clock[0] = 62.0
    assert "tokens in the last 60s" in w.after_turn("c", 600)[0]


def test_disabled_warns_of_nothing() -> None:
    w = ReplyWatch(LoopDetection(enabled=False, max_silent_burn_tokens=1))
    assert w.after_turn("", 10) == []


def test_config_loads_go_keys_and_names_the_unused_ones(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    p.write_text(
        '{"loop_detection": {"enabled": true, "chunk_repetition_threshold": 7, '
        '"auto_interrupt": true, "tool_echo_threshold": 2, "bogus": 1}}'
    )
    cfg, warnings, _ = load_config(p)
    assert cfg.loop_detection.chunk_repetition_threshold == 7
    joined = "\n".join(warnings)
    assert "loop_detection.auto_interrupt is not used" in joined
    assert "loop_detection.tool_echo_threshold is not used" in joined
    assert "unknown key 'loop_detection.bogus'" in joined
    assert "chunk_repetition_threshold" not in joined
    p.write_text('{"loop_detection": null}')
    assert load_config(p)[0].loop_detection.enabled


# ----- through the dispatcher ---------------------------------------------------------


def openai_rig(store: SessionStore, tmp: Path, srv: FakeOpenAIServer, cfg: MilkConfig) -> Rig:
    rig = Rig(store, tmp, config=cfg)
    ac = AgentConfig(name="llama", provider="local", url=srv.url, model="m")
    rig.dispatcher.state.primary = AgentSlot("primary", ac, OpenAICompatAgent(ac))
    return rig


async def test_a_looping_reply_is_cut_and_the_next_turn_works(
    store: SessionStore, tmp_path: Path
) -> None:
    scripted = [PROSE, *[SENTENCE] * 200]
    held = threading.Event()  # never set: only the client can end this stream
    shown = 2 + 12  # the role chunk, the prose and twelve copies: past the detection point
    with FakeOpenAIServer() as srv:
        rig = openai_rig(store, tmp_path, srv, MilkConfig())
        srv.enqueue(
            FakeReply(text=scripted, hold=held, hold_after=shown),
            FakeReply(text=["Fine ", "now."]),
        )
        out = await asyncio.wait_for(
            rig.dispatcher.run_turn("tell me about Rome", force="primary"), WAIT_S
        )
        assert out.ok
        # The server thread notices the closed socket on its next look at the held stream.
        await until(None, lambda: srv.events_sent, what="the server to see the stream closed")
        assert srv.disconnects == 1
        assert srv.events_sent == [shown] and shown < len(scripted)  # cut, not drained
        notices = [e for e in rig.of("notice") if "kept repeating" in e.message]
        assert len(notices) == 1 and notices[0].level == "warning"
        assert notices[0].message.startswith("stopped: the reply kept repeating “")
        done = rig.of("turn_completed")[-1]
        assert done.text.startswith(PROSE.strip()[:40]) and done.text.count("Colosseum") == 1
        [cut] = rig.of("reply_cut")  # the conversation swaps in what will be recorded
        assert cut.slot == "primary" and cut.kept.strip() == done.text
        assert rig.events.index(cut) < rig.events.index(notices[0])
        assert rig.reload().history[-1].content == done.text
        out = await rig.dispatcher.run_turn("and now?", force="primary")
        assert out.ok and out.text == "Fine now."
        await rig.dispatcher.state.primary.agent.aclose()


async def test_loop_detection_off_streams_to_the_end(store: SessionStore, tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        rig = openai_rig(
            store, tmp_path, srv, MilkConfig(loop_detection=LoopDetection(enabled=False))
        )
        srv.enqueue(FakeReply(text=[SENTENCE] * 30))
        out = await rig.dispatcher.run_turn("x", force="primary")
        assert out.ok and out.text.count("Colosseum") == 30
        await rig.dispatcher.state.primary.agent.aclose()


async def test_repeated_replies_across_turns_warn(rig: Rig) -> None:
    for _ in range(3):
        rig.primary.push(say("I am not sure what you mean, could you rephrase the question?"))
        await rig.dispatcher.run_turn("hm", force="primary")
    warnings = [e for e in rig.of("notice") if e.level == "warning"]
    assert len(warnings) == 1 and "nearly identical" in warnings[0].message
    assert rig.of("turn_completed")[-1].text.startswith("I am not sure")
