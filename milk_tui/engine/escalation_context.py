"""The orientation text an escalation agent receives.

When a fresh start replaces a return: docs/adr/0002-fresh-start-when-returning-on-stale-context.md.

Two parts with different lifetimes:

* **static** — identity, the need/memory tag instructions and the remembered facts.  It is
  byte-stable across turns (same nonce, same names) so the CLI's prompt cache keeps hitting;
  the instructions are re-sent only when the re-injection thresholds say the agent may
  have lost them.
* **dynamic** — brief, current need (with a freshness label), the prior escalation summary
  on a fresh start, and what the primary did since it was last reported.

The Claude CLI gets ``static + "\\n" + dynamic`` in one ``--append-system-prompt-file``;
HTTP/Bedrock escalation agents get ``orientation_for_http`` as a pinned system message.
"""

from __future__ import annotations

from milk_tui.agents.base import ContextMode
from milk_tui.model.session import ESCALATION, Session
from milk_tui.model.tags import memory_instruction, need_instruction

BRIEF_HEADER = "[Escalation brief from primary agent]"
NEED_HEADER = "[Current user goal]"
STALE_NEED_HEADER = (
    "[Last known user goal — may already be fulfilled; verify from conversation history "
    "before acting]"
)
PRIOR_SUMMARY_HEADER = (
    "[Prior escalation session summary — you previously worked with this user; this is what "
    "you last did together]"
)
PRIMARY_ACTIVITY_HEADER = "[Recent primary agent activity]"
# The wording of the five headers above is part of the interface: the UI and tests key on them.

_RESUMING_MODES: frozenset[str] = frozenset({"resume", "continuation"})


def identity_block() -> str:
    """Who the agent is and the one rule it must not break (no background work)."""
    return (
        "[Milk agent context]\n"
        "You are the escalation agent inside milk, a router that lets one user work with two "
        "AI agents as if they were one: a cheaper primary agent handles routine prompts and "
        "hands harder ones to you. Both agents share this conversation's history and a "
        "long-term memory of remembered facts, so expect to be handed work mid-task, to be "
        "resumed across several turns, and to find that the primary agent did things between "
        "your turns (a summary of that work is given below when there is any).\n"
        "Never start background workflows or background agents: no tool call with "
        "run_in_background set to true, no /bg, nothing that keeps running after your reply. "
        "milk drives you through a one-shot --print invocation that ends when you answer, so "
        "anything still running in the background is lost and its results never reach the "
        "user. Finish the work inside this turn; if you use subagents, run them synchronously "
        "(run_in_background: false) and wait for their results.\n\n"
    )


def build_static_context(
    nonce: str,
    percepts_block: str,
    mode: ContextMode,
    inject_instructions: bool,
    primary_name: str,
    escalation_name: str,
) -> str:
    """Identity, then (when injecting) need + memory instructions and the remembered facts.

    The instructions are sent whenever ``inject_instructions`` is true, Continuation
    included: the caller moves the injection marker when it says yes, so sending nothing
    then would mean a sticky session never got them again.  A Continuation turn under
    the re-injection thresholds gets the identity alone.
    """
    del mode  # the decision is carried by inject_instructions (see docstring)
    out = identity_block()
    if not inject_instructions:
        return out
    return (
        out
        + need_instruction(nonce)
        + memory_instruction(nonce, primary_name, escalation_name)
        + percepts_block
    )


def need_block(session: Session) -> str:
    if not session.current_need:
        return ""
    header = STALE_NEED_HEADER if session.need_is_stale() else NEED_HEADER
    return f"{header}\n{session.current_need}\n\n"


def _primary_activity(session: Session, *, mark_injected: bool, only_if_changed: bool) -> str:
    summary = session.last_local_summary
    if not summary:
        return ""
    if only_if_changed and summary == session.last_local_summary_injected:
        return ""
    if mark_injected:
        session.last_local_summary_injected = summary
    return f"{PRIMARY_ACTIVITY_HEADER}\n{summary}\n"


def _orientation(
    session: Session, mode: ContextMode, *, mark_injected: bool, only_if_changed: bool
) -> str:
    parts: list[str] = []
    if session.escalation_brief:
        parts.append(f"{BRIEF_HEADER}\n{session.escalation_brief}\n\n")
    parts.append(need_block(session))
    if mode == "first" and session.last_escalation_summary:
        # Only on a fresh start: a Returning turn --resumes, which already carries it.
        parts.append(f"{PRIOR_SUMMARY_HEADER}\n{session.last_escalation_summary}\n\n")
    parts.append(
        _primary_activity(session, mark_injected=mark_injected, only_if_changed=only_if_changed)
    )
    return "".join(parts)


def build_dynamic_context(session: Session, mode: ContextMode) -> str:
    """The per-turn part of the CLI context.  MUTATES ``session.last_local_summary_injected``.

    Resume / Continuation: only the primary-activity block, and only when it changed
    since it was last injected.  First / Returning: brief, need, (First only) the prior
    escalation summary, then the changed primary-activity block.
    """
    if mode in _RESUMING_MODES:
        return _primary_activity(session, mark_injected=True, only_if_changed=True)
    return _orientation(session, mode, mark_injected=True, only_if_changed=True)


def orientation_for_http(session: Session, mode: ContextMode) -> str:
    """First system message for HTTP / Bedrock escalation agents.

    Those backends keep no conversation of their own: every request is rebuilt from our
    history and this message is never remembered by them.  So it is always the full
    First/Returning orientation (a "resume" there is just a Returning turn), the primary
    activity is included whenever there is any, and nothing is marked as injected — the
    "changed since injected" rule exists for the CLI, whose resumed session already holds
    what was sent before.
    """
    effective: ContextMode = "first" if mode == "first" else "returning"
    return _orientation(session, effective, mark_injected=False, only_if_changed=False)


def should_inject_memory_instructions(
    session: Session, resuming: bool, turns_threshold: int, bytes_threshold: int
) -> bool:
    """Always when not resuming; otherwise when either resolved threshold
    (0 = off) has been reached since ``memory_instruction_injected_at``.

    Pure: the caller moves the marker to ``escalation_turn_count()`` when this says yes, and
    ``build_static_context`` then sends the instructions in every mode, Continuation
    included, so a moved marker always means the instructions went out.
    """
    if not resuming:
        return True
    if turns_threshold <= 0 and bytes_threshold <= 0:
        return False
    since = session.memory_instruction_injected_at
    if turns_threshold > 0 and session.escalation_turn_count() - since >= turns_threshold:
        return True
    return bytes_threshold > 0 and session.output_bytes_since(ESCALATION, since) >= bytes_threshold
