"""Memory-instruction re-injection through the dispatcher (fake CLI: many turns, fast).

On sticky Continuation turns the instructions are re-sent once a threshold is crossed:
a moved injection marker always means the instructions went out.
"""

from __future__ import annotations

from pathlib import Path

from milk_tui.config.settings import MilkConfig
from milk_tui.testing.claude_rig import CliRig
from milk_tui.testing.fake_anthropic import FakeAnthropic
from milk_tui.testing.fake_claude_cli import FakeCli

NEED_INSTRUCTION_HEADER = "[Milk current-need tracking]"


async def test_continuation_resends_instructions_every_third_turn(
    tmp_path: Path, fake_anthropic: FakeAnthropic, fake_cli: FakeCli
) -> None:
    fake_cli.turns({"text": "An answer without a question."})
    rig = CliRig(
        tmp_path,
        fake_anthropic,
        str(fake_cli.bin),
        config=MilkConfig(memory_reinjection_turns=3, memory_reinjection_bytes=-1),
        extra_env=fake_cli.env,
    )
    try:
        for i in range(6):
            out = await rig.escalate(f"escalated question number {i}")
            assert out.ok, out
        stored = rig.reload()
    finally:
        rig.close()
    modes = [e.mode for e in rig.of("escalation_started")]
    assert modes == ["first"] + ["continuation"] * 5
    sent = [NEED_INSTRUCTION_HEADER in (c["context"] or "") for c in fake_cli.calls]
    assert sent == [True, False, False, True, False, False]
    # what the dispatcher kept with each turn is exactly what the CLI got
    kept = [t.context_text for t in stored.history if t.role == "user"]
    assert kept == [c["context"] or "" for c in fake_cli.calls]
    assert all("--resume" in c["argv"] for c in fake_cli.calls[1:])
