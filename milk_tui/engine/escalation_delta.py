"""What a resumed Claude CLI turn is told at the end of its user message: this session's tag
nonce, and the facts remembered since the agent's last turn.

A resumed CLI session keeps its messages but not the earlier turn's
``--append-system-prompt``: without this block a follow-up turn has no nonce (a ``remember``
or a change of goal written there matches nothing and is dropped) and never hears of facts
added meanwhile.  The block goes at the END of the new user message, so everything before it
— system prompt, earlier turns — is byte-identical and the prompt cache keeps hitting
(https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).  See
docs/adr/0036-escalation-follow-up-delta.md.
"""

from __future__ import annotations

from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptFilter
from milk_tui.model.percept import Consumer
from milk_tui.model.session import ESCALATION, Session

DELTA_HEADER = "[Milk: tags for this turn]"
NEW_FACTS_HEADER = "[Remembered since your last turn]"
MAX_NEW_FACTS = 20
"""A delta is small by design: more new facts than this wait for the next full injection."""
MAX_NEW_FACT_BYTES = 2000


def last_seen_at(session: Session) -> float:
    """When the escalation agent last answered (0: never): facts older than that it saw."""
    for turn in reversed(session.history):
        if turn.is_assistant_of(ESCALATION):
            return turn.timestamp
    return 0.0


def new_facts(memory: MemoryService | None, session: Session) -> list[str]:
    """Facts visible in this session, meant for the escalation agent, added since its last
    answer by someone else (its own it wrote itself), oldest first, within the caps."""
    since = last_seen_at(session)
    if memory is None or since <= 0:
        return []
    recent = memory.list(PerceptFilter(session_id=session.id), limit=200, order="recent")
    fresh = [
        p
        for p in recent
        if p.created_at > since
        and p.producer != ESCALATION
        and p.consumer in (Consumer.ALL, Consumer.ESCALATION)
    ]
    out: list[str] = []
    used = 0
    for p in sorted(fresh, key=lambda p: p.created_at)[:MAX_NEW_FACTS]:
        used += len(p.content.encode())
        if used > MAX_NEW_FACT_BYTES:
            break
        out.append(p.content)
    return out


def delta_block(nonce: str, facts: list[str]) -> str:
    """The nonce in one line of how to use it, then the new facts (if any)."""
    text = (
        f"\n\n{DELTA_HEADER}\n"
        f"A new or changed user goal: <milk:need:{nonce}>the goal</milk:need:{nonce}>. "
        f"A fact worth keeping: <milk:percept:{nonce}>the fact</milk:percept:{nonce}>. "
        "Tags are hidden from the user; use them only when the goal changes or a fact "
        "should outlive this session.\n"
    )
    if facts:
        text += f"{NEW_FACTS_HEADER}\n" + "".join(f"- {f}\n" for f in facts)
    return text
