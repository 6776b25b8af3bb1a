"""What the router learned from the user: prompts the primary answered and the user then
took to the escalation agent (``/escalate`` right after the answer, or the same prompt
asked again), and prompts the router escalated on its own and the user took back to the
primary (``/primary`` right after the escalation agent's answer).  A new prompt close enough
to one of them goes where the user took its example; the closest example wins.

Closeness is word-set overlap (Jaccard: shared words ÷ all words of the two, after dropping
a few function words), so the route reason can name the example it matched and a user can
see why; no model and no embedding (docs/adr/0039-routing-signals-verdict-and-learning.md).
Examples are stored with their folder: this folder's are preferred, every folder's count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from milk_tui.engine.repeat_guard import strip_label
from milk_tui.model.session import ESCALATION, PRIMARY, Session, Turn
from milk_tui.model.terminal_text import inert
from milk_tui.storage.route_examples import RouteExample, RouteExampleStore

REASKED_SIMILARITY = 0.8
"""A prompt this close to the one the primary just answered is the same question again."""
JUDGED_RULES = frozenset({"difficulty", "learned", "score", "classifier"})
"""Escalations the router chose by its own judgement: a ``/primary`` after one of those
corrects it.  Not the user's (``explicit``), the config's (``long_prompt``, ``keyword``) or
the conversation's (``state``, ``fallback``)."""

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
        did = "escalated" if self.example.target == ESCALATION else "kept on the primary"
        return (
            f"learned: like '{clip(self.example.prompt, 40)}' which you {did} "
            f"({self.similarity:.0%} same words; {self.example.why})"
        )


class LearnedRoutes:
    def __init__(self, store: RouteExampleStore, cwd: str) -> None:
        self.store = store
        self.cwd = cwd
        self._taught: tuple[str, int] = ("", -1)
        """(session, history length) last taught: one lesson per answer."""
        self._routed: tuple[str, str, str, str] = ("", "", "", "")
        """(session, prompt, rule, target) of the latest turn the router routed."""

    def routed(self, session: Session, prompt: str, rule: str, target: str) -> None:
        """Note how a turn was routed (a later ``/primary`` corrects only a judged one)."""
        self._routed = (session.id, prompt.strip(), rule, target)

    def teach_primary(self, session: Session) -> str:
        """``/primary`` right after the escalation agent answered a prompt the router
        escalated by its own judgement: prompts like it stay on the primary.  The notice to
        show ("" when there is nothing to learn)."""
        prompt = last_escalated_prompt(session.history)
        sid, noted, rule, target = self._routed
        if (
            prompt is None
            or (sid, noted, target) != (session.id, prompt.strip(), ESCALATION)
            or rule not in JUDGED_RULES
        ):
            return ""
        return self._lesson(session, prompt, "/primary after an escalated answer", PRIMARY)

    def teach(self, session: Session, why: str) -> str:
        """Record the session's last prompt the primary answered as one it failed; the
        notice to show ("" when there was nothing to learn or it was learned already)."""
        prompt = last_primary_prompt(session.history)
        return "" if prompt is None else self._lesson(session, prompt, why, ESCALATION)

    def _lesson(self, session: Session, prompt: str, why: str, target: str) -> str:
        """Record ``prompt`` as going to ``target``, once per answer; the notice to show."""
        mark = (session.id, len(session.history))
        if self._taught == mark:
            return ""
        self._taught = mark
        try:
            self.record(prompt, why, target)
        except Exception as e:  # noqa: BLE001 - a storage failure must not fail the command
            return f"could not record the routing example: {e}"
        where = "go to the escalation agent" if target == ESCALATION else "stay on the primary"
        return (
            f"learned: prompts like '{clip(prompt, 50)}' {where} (/auto shows, /auto reset forgets)"
        )

    def record(self, prompt: str, why: str, target: str = "escalation") -> None:
        if prompt.strip():
            self.store.add(self.cwd, prompt.strip(), target, why)

    def match(self, prompt: str, threshold: float) -> Match | None:
        """The most similar example at or above ``threshold``, either way (this folder's
        first on a tie, then the newest), or None."""
        if threshold <= 0 or not words(prompt):
            return None
        best: Match | None = None
        for ex in self.store.all():  # newest first: a strict ">" keeps the newest on a tie
            if ex.target not in (ESCALATION, PRIMARY):
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
    return _last_prompt_answered_by(history, PRIMARY)


def last_escalated_prompt(history: list[Turn]) -> str | None:
    """The user prompt of the session's latest exchange when the escalation agent answered
    it (and nothing came after), else None: what a ``/primary`` now corrects."""
    return _last_prompt_answered_by(history, ESCALATION)


def _last_prompt_answered_by(history: list[Turn], agent: str) -> str | None:
    answered = False
    for t in reversed(history):
        if t.role == "tool_result":
            continue
        if not answered:
            if not t.is_assistant_of(agent):
                return None
            answered = True
        elif t.role == "user":
            ok = (PRIMARY, "") if agent == PRIMARY else (ESCALATION,)
            return strip_label(t.content) if t.agent in ok else None
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
    lines = [head] + [
        f"  {'escalate' if e.target == ESCALATION else 'keep on the primary'} like "
        f"'{clip(e.prompt)}' ({e.why})"
        for e in latest
    ]
    lines.append("  /auto reset forgets this folder's, /auto reset --global every folder's")
    return "\n".join(lines)


def clip(text: str, limit: int = 50) -> str:
    """Model or user text quoted in a reason: one line, inert (model/terminal_text.py), cut."""
    one = inert(" ".join(text.split()))  # the user's prompt, shown in the route line
    return one if len(one) <= limit else one[: limit - 1] + "…"
