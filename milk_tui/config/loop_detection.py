"""The ``loop_detection`` config key: when a reply, or a run of replies, counts as a loop.

A Go milk ``config.json`` loads unchanged; keys we accept but do not act on are listed in
``UNUSED_KEYS`` with the reason, and setting one produces a start-up warning naming it
(docs/adr/0012-text-tool-calls-and-loop-detection.md).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class LoopDetection(BaseModel):
    model_config = ConfigDict(extra="allow")
    enabled: bool = True
    max_consecutive_similar_responses: int = 3
    """This many near-identical replies in a row raise a warning."""
    response_similarity_threshold: float = 0.85
    """Character-trigram Jaccard at or above which two replies are near-identical."""
    token_velocity_window_seconds: float = 60
    token_velocity_threshold: int = 300000
    """Completion tokens within the window above which a warning is raised."""
    max_silent_burn_tokens: int = 20000
    """Completion tokens spent by consecutive turns without visible text before a warning."""
    max_consecutive_turns_without_user: int = 10
    tool_echo_threshold: int = 3
    chunk_repetition_threshold: int = 5
    """A passage repeated this many times in a row ends the reply."""
    chunk_window_size: int = 50
    auto_interrupt: bool = False


UNUSED_KEYS = {
    "max_consecutive_turns_without_user": "every turn here starts from a user prompt",
    "tool_echo_threshold": "the tool loop already ends a round that only repeats its calls",
    "chunk_window_size": "repetition is measured on the reply's text, not on chunks",
    "auto_interrupt": "a repeating reply is always cut; repeated replies only warn",
}
"""Accepted for compatibility, not acted on: key → why."""


def loop_detection_warnings(where: str, data: object) -> list[str]:
    """Warnings for a ``loop_detection`` object as written in a config file."""
    if not isinstance(data, dict):
        return []
    known = set(LoopDetection.model_fields)
    out = []
    for k in data:
        if k in UNUSED_KEYS:
            out.append(f"{where}: loop_detection.{k} is not used ({UNUSED_KEYS[k]})")
        elif k not in known:
            out.append(f"{where}: unknown key 'loop_detection.{k}' ignored")
    return out
