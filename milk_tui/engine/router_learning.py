"""What the router learned from the user: prompts the primary answered and the user then
took to the escalation agent (``/escalate`` right after the answer, or the same prompt
asked again).  A new prompt close enough to one of them goes to the escalation agent too.

Closeness is word-set overlap (Jaccard: shared words ÷ all words of the two, after dropping
a few function words), so the route reason can name the example it matched and a user can
see why; no model and no embedding (docs/adr/0039-routing-signals-verdict-and-learning.md).
Examples are stored with their folder: this folder's are preferred, every folder's count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from milk_tui.engine.repeat_guard import strip_label
from milk_tui.model.session import PRIMARY, Session, Turn
from milk_tui.model.terminal_text import inert
from milk_tui.storage.route_examples import RouteExample, RouteExampleStore

REASKED_SIMILARITY = 0.8
"""A prompt this close to the one the primary just answered is the same question again."""

_WORD = re.compile(r"[\w']+")
_STOP = frozenset(
    "a an the this that these those is are was were be do does did of in on at to for from "
    "with and or but it its my our your me i we you please can could would now then".split()
)


def words(text: str) -> frozenset[str]:
    # numbers count whatever their length: "test 1" and "test 2" are different prompts
    return frozenset(
        w for w in _WORD.findall(text.lower()) if w not in _STOP and (len(w) > 1 or w.isdigit())
    )


def similarity(a: str, b: str) -> float:
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


@dataclass(frozen=True)
class Match:
    example: RouteExample
    similarity: float

    def describe(self) -> str:
        return (
            f"learned: like '{clip(self.example.prompt, 40)}' which you escalated "
            f"({self.similarity:.0%} same words; {self.example.why})"
        )


class LearnedRoutes:
    def __init__(self, store: RouteExampleStore, cwd: str) -> None:
        self.store = store
        self.cwd = cwd
        self._taught: tuple[str, int] = ("", -1)
        """(session, history length) last taught: one lesson per primary answer."""

    def teach(self, session: Session, why: str) -> str:
        """Record the session's last prompt the primary answered as one it failed; the
        notice to show ("" when there was nothing to learn or it was learned already)."""
        prompt = last_primary_prompt(session.history)
        mark = (session.id, len(session.history))
        if prompt is None or self._taught == mark:
            return ""
        self._taught = mark
        try:
            self.record(prompt, why)
        except Exception as e:  # noqa: BLE001 - a storage failure must not fail the command
            return f"could not record the routing example: {e}"
        short = clip(prompt, 50)
        return f"learned: prompts like '{short}' go to the escalation agent (/auto shows, /auto reset forgets)"

    def record(self, prompt: str, why: str, target: str = "escalation") -> None:
        if prompt.strip():
            self.store.add(self.cwd, prompt.strip(), target, why)

    def match(self, prompt: str, threshold: float) -> Match | None:
        """The most similar escalated example at or above ``threshold`` (this folder's first
        on a tie), or None."""
        if threshold <= 0 or not words(prompt):
            return None
        best: Match | None = None
        for ex in self.store.all():
            if ex.target != "escalation":
                continue
            sim = similarity(prompt, ex.prompt)
            here = ex.cwd == self.cwd
            if sim >= threshold and (
                best is None
                or sim > best.similarity
                or (sim == best.similarity and here and best.example.cwd != self.cwd)
            ):
                best = Match(ex, sim)
        return best

    def examples(self, everywhere: bool = False) -> list[RouteExample]:
        return self.store.all("" if everywhere else self.cwd)

    def reset(self, everywhere: bool = False) -> int:
        return self.store.clear("" if everywhere else self.cwd)


def last_primary_prompt(history: list[Turn]) -> str | None:
    """The user prompt of the session's latest exchange when the primary answered it (and
    nothing came after), else None: what a ``/escalate`` or a re-ask now corrects."""
    answered = False
    for t in reversed(history):
        if t.role == "tool_result":
            continue
        if not answered:
            if not t.is_assistant_of(PRIMARY):
                return None
            answered = True
        elif t.role == "user":
            return strip_label(t.content) if t.agent in (PRIMARY, "") else None
    return None


SHOWN_EXAMPLES = 3


def learned_summary(learned: LearnedRoutes | None) -> str:
    """What ``/auto`` says the router learned: counts and the latest few examples."""
    if learned is None:
        return "learned routes: none (no database)"
    here, everywhere = learned.examples(), learned.examples(everywhere=True)
    if not everywhere:
        return (
            "learned routes: none yet (a /escalate right after a primary answer, or asking "
            "again, teaches the router)"
        )
    head = f"learned routes: {len(here)} in this folder, {len(everywhere)} in all folders"
    latest = here[:SHOWN_EXAMPLES] or everywhere[:SHOWN_EXAMPLES]
    lines = [head] + [f"  escalate like '{clip(e.prompt)}' ({e.why})" for e in latest]
    lines.append("  /auto reset forgets this folder's, /auto reset --global every folder's")
    return "\n".join(lines)


def clip(text: str, limit: int = 50) -> str:
    """Model or user text quoted in a reason: one line, inert (model/terminal_text.py), cut."""
    one = inert(" ".join(text.split()))  # the user's prompt, shown in the route line
    return one if len(one) <= limit else one[: limit - 1] + "…"
