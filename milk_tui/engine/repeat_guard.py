"""The repeated-prompt guard: a user asking the same thing again is
taken as dissatisfaction with the primary, which then hands off to the escalation agent.

Pure function, no I/O: the dispatcher calls it before the primary agent runs, passing only
ANSWERED user turns (the current prompt is never in the history, otherwise an
immediate "repeat" of itself would fire on every turn).
"""

from __future__ import annotations

from itertools import islice

from milk_tui.model.session import Session

REPEAT_WINDOW = 10
"""Only the last 10 prior user prompts are compared."""
REPEAT_THRESHOLD = 0.9
"""Fire when the 1/distance score reaches 0.9 (inclusive)."""
SHORT_PROMPT_BYTES = 20
SHORT_PROMPT_WORDS = 3
"""Prompts under 20 bytes AND under 3 words ("ok", "yes") never fire."""
_LABEL_PREFIX = "[user to "

ESCALATION_REASON = "user repeated the same question without expressing satisfaction"


def normalize(s: str) -> str:
    """Lower-case, whitespace runs collapsed to one space, trimmed."""
    return " ".join(s.lower().split())


def strip_label(s: str) -> str:
    """Drop a leading ``[user to X] `` history label (the label ends at the first ``] ``)."""
    if s.startswith(_LABEL_PREFIX):
        end = s.find("] ")
        if end >= 0:
            return s[end + 2 :]
    return s


def recent_prompts(s: Session) -> list[str]:
    """The answered user prompts ``is_repeated_prompt`` compares, oldest first: the last
    ``REPEAT_WINDOW`` after the session's repetition baseline, found newest first so that a
    long session's older turns are not read (model/turn_history.py)."""
    want = min(REPEAT_WINDOW, s.user_turn_count() - max(s.repetition_baseline, 0))
    if want <= 0:
        return []
    users = (t.content for t in reversed(s.history) if t.role == "user")
    return list(islice(users, want))[::-1]


def is_repeated_prompt(user_history: list[str], prompt: str, skip_first: int = 0) -> bool:
    """True when ``prompt`` repeats recent user prompts with a 1/distance score ≥ 0.9.

    ``user_history`` holds prior user prompts oldest first (labelled or not);
    ``skip_first`` is the repetition baseline (set on ``/primary`` or an agent switch)
    so prompts from before the switch do not count.
    """
    p = normalize(prompt)
    if len(p.encode()) < SHORT_PROMPT_BYTES and len(p.split(" ")) < SHORT_PROMPT_WORDS:
        return False
    prior = user_history[max(skip_first, 0) :]
    window = [normalize(strip_label(u)) for u in prior[-REPEAT_WINDOW:]]
    score = 0.0
    for distance, previous in enumerate(reversed(window), start=1):
        if previous == p:
            score += 1.0 / distance
            if score >= REPEAT_THRESHOLD:
                return True
    return False
