"""A follow-up turn to the escalation agent (the REAL Claude CLI, ``--resume``, against the
fake Anthropic server): the bytes the model receives carry this session's nonce and the
facts added since its last answer, appended to the new user message only, and a fact or a
goal it writes on that turn is recorded."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from milk_tui.engine.escalation_delta import DELTA_HEADER, NEW_FACTS_HEADER
from milk_tui.memory.store import PerceptFilter
from milk_tui.testing.claude_rig import CliRig
from milk_tui.testing.fake_anthropic import FakeAnthropic, RecordedRequest, Reply

pytestmark = pytest.mark.real_peer


@pytest.fixture
def cli_rig(tmp_path: Path, fake_anthropic: FakeAnthropic, claude_bin: str) -> Iterator[CliRig]:
    rig = CliRig(tmp_path, fake_anthropic, claude_bin)
    yield rig
    rig.close()


NEW_FACT = "The deploy target is Debian 12 on arm64"


def _user_messages(req: RecordedRequest) -> list[str]:
    """Each user message's blocks, less the CLI's own cache breakpoint (it moves to the
    newest message every turn; that is how the cache keeps hitting)."""
    out = []
    for m in req.messages:
        if m.get("role") == "user":
            blocks = m["content"] if isinstance(m["content"], list) else [m["content"]]
            plain = [
                {k: v for k, v in b.items() if k != "cache_control"} if isinstance(b, dict) else b
                for b in blocks
            ]
            out.append(json.dumps(plain))
    return out


async def test_follow_up_carries_nonce_and_new_facts_and_records_its_tags(
    cli_rig: CliRig,
) -> None:
    rig = cli_rig
    out = await rig.escalate("Plan the release of the billing service", Reply.text("Plan: A, B."))
    assert out.ok
    first = rig.server.message_requests[-1]
    nonce = rig.session.escalation_nonce
    rig.memory.record(NEW_FACT, producer="user", session_id=rig.session.id)

    def tagged(req: RecordedRequest) -> Reply:
        found = re.findall(r"<milk:percept:([a-z0-9]+)>", req.last_user_text)
        n = found[0] if found else "missing"
        return Reply.text(
            f"Noted. <milk:percept:{n}>Releases need a signed tag</milk:percept:{n}>"
            f"<milk:need:{n}>ship billing 2.0 to Debian</milk:need:{n}> Done."
        )

    rig.server.responder = tagged
    out = await rig.escalate("Now write the release checklist")
    assert out.ok, out
    assert rig.of("escalation_started")[-1].mode == "continuation"
    follow = rig.server.message_requests[-1]
    sent = follow.last_user_text
    # the delta, at the end of the NEW user message, with the nonce and the new fact
    assert sent.index("Now write the release checklist") < sent.index(DELTA_HEADER)
    assert f"<milk:percept:{nonce}>" in sent and f"<milk:need:{nonce}>" in sent
    assert f"{NEW_FACTS_HEADER}\n- {NEW_FACT}" in sent
    # the earlier prefix is untouched: the first user message went out byte-identical
    assert _user_messages(follow)[0] == _user_messages(first)[0]
    assert NEW_FACT not in follow.system_text  # not a rewritten system prompt
    # the tags it wrote on the follow-up are recorded, and hidden from the stored reply
    facts = [p.content for p in rig.memory.list(PerceptFilter(session_id=rig.session.id))]
    assert "Releases need a signed tag" in facts
    assert rig.session.current_need == "ship billing 2.0 to Debian"
    stored = rig.reload().history
    assert stored[-1].content == "Noted.  Done."
    assert stored[-2].content == "Now write the release checklist"  # our prompt, no delta

    # a third turn: the nonce again, but the fact it has seen is not sent twice
    rig.server.responder = None
    out = await rig.escalate("And the rollback plan?", Reply.text("Rollback: C."))
    assert out.ok
    third = rig.server.message_requests[-1].last_user_text
    assert f"<milk:percept:{nonce}>" in third and NEW_FACT not in third
