"""Which agent gets a prompt: explicit flags, state, rules, weighted score, classifier.

Decision order: single-turn forces, pins and stickiness (``RouteFlags``); a waiting
escalation question; the hard rules (long prompt, keyword); the difficulty signals
(engine/router_signals.py, at any length); what the user taught it (engine/router_learning.py);
the short-prompt rule, which a difficulty signal keeps a prompt out of; the weighted score
(``RouterRules``); for an inconclusive score the configured fallback or the primary's own
verdict.  The router is agent-agnostic: the classifier is a callable the runtime supplies,
which asks the primary model the router's one-word question and returns its answer, as text
or as a ``Verdict`` with its probability; an unsure or unparsable verdict escalates
(docs/adr/0039-routing-signals-verdict-and-learning.md).

Two rules that are ours on purpose:

* A single-turn ``force_primary`` beats pinned / auto-sticky escalation: a caller that
  forces primary gets primary even if it skipped ``primary_command``.
  ``force_escalate`` still beats ``force_primary``.
* While primary is pinned, a successful escalated turn (``/escalate <msg>``, a waiting
  follow-up, a fallback) does not switch auto-sticky on: the pin is the user's standing
  instruction and a one-off must not silently override it.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from milk_tui.agents.base import UsageEvent
from milk_tui.agents.verdict import Verdict, parse_choice
from milk_tui.config.settings import MilkConfig
from milk_tui.engine import router_signals as signals
from milk_tui.engine.router_learning import (
    REASKED_SIMILARITY,
    LearnedRoutes,
    clip,
    last_escalated_prompt,
    last_primary_prompt,
    similarity,
)
from milk_tui.engine.router_rules import RouterRules
from milk_tui.model.session import ESCALATION, PRIMARY, Session, State

Target = Literal["primary", "escalation"]
Classifier = Callable[[str], Awaitable[str | Verdict]]
CHOICES = ("primary", "escalate")
"""The verdict's words, in the grammar that constrains them."""

CLASSIFIER_PROMPT = (
    'Answer with exactly one word: "primary" or "escalate".\n'
    'Answer "escalate" only for complex multi-file refactoring, architectural design or '
    'deep reasoning. Answer "primary" for shell commands, reading files, grep, simple code '
    "questions, debugging and small functions.\n\nTask: {prompt}"
)
"""One-word verdict: "escalate", "primary", or unparsable (which escalates: unsure)."""

ESCALATE_FALLBACKS = {"claude", "escalation", "escalate"}
"""classifier_fallback values that send inconclusive prompts straight to escalation."""


@dataclass
class RouteFlags:
    force_escalate: bool = False
    """Single turn: ``/escalate <msg>`` / ``--escalate``."""
    force_primary: bool = False
    """Single turn: ``/primary <msg>`` / ``--primary``."""
    pinned_escalate: bool = False
    """Bare ``/escalate``: every turn goes to escalation until ``/primary``."""
    pinned_primary: bool = False
    """Bare ``/primary``: every turn goes to primary until ``/escalate``."""
    auto_sticky: bool = False
    """Set after a successful escalated turn when ``sticky_escalation`` is on."""


@dataclass
class RouteDecision:
    target: Target
    reason: str
    rule: str
    """explicit, state, long_prompt, keyword, difficulty, learned, short_prompt, score,
    classifier, default."""
    label: str = ""
    """pinned / sticky / forced / "" — the status line shows it next to the agent name."""


@dataclass
class Score:
    total: int = 0
    signals: list[str] = field(default_factory=list)

    def add(self, name: str, weight: int) -> None:
        self.total += weight
        self.signals.append(f"{name} {weight:+d}")

    def describe(self) -> str:
        return ", ".join(self.signals) or "no signals"


class Router:
    def __init__(self, config: MilkConfig, cwd: str, classifier: Classifier | None = None) -> None:
        self.config = config
        self.cwd = cwd
        self.classifier = classifier
        self.classifier_usage: list[UsageEvent] = []
        """Tokens the classifier spent, recorded (role ``classifier``) with the next turn
        that commits (engine/turn_commit.py)."""
        self.rules = RouterRules.from_config(dict(config.rules or {}))
        self.learned: LearnedRoutes | None = None
        """The user's corrections, set by the dispatcher (it owns the database)."""

    @property
    def classifier_fallback(self) -> str:
        return (
            self.config.classifier_fallback or self.rules.classifier_fallback or "local"
        ).lower()

    # ----- the decision ---------------------------------------------------------------

    async def decide(
        self, prompt: str, session: Session, flags: RouteFlags, *, use_learned: bool = True
    ) -> RouteDecision:
        """``use_learned`` False: the turn that just taught the router (a re-ask) goes as it
        would have — the primary's repeat guard hands an exact repeat on with its reason —
        and the next similar prompt is the one that moves."""
        d = await self._decide(prompt, session, flags, use_learned)
        if self.learned is not None:  # a /primary after an escalation it judged corrects it
            self.learned.routed(session, prompt, d.rule, d.target)
        return d

    async def _decide(
        self, prompt: str, session: Session, flags: RouteFlags, use_learned: bool
    ) -> RouteDecision:
        explicit = self._explicit(flags)
        if explicit is not None:
            return explicit
        if session.state == State.ESCALATION_WAITING:
            return RouteDecision(ESCALATION, "answering the escalation agent's question", "state")
        ruled = self.apply_rules(prompt, session.current_need, use_learned=use_learned)
        if isinstance(ruled, RouteDecision):
            return ruled
        return await self._fallback(prompt, ruled)

    def _explicit(self, f: RouteFlags) -> RouteDecision | None:
        if f.force_escalate:
            return RouteDecision(
                ESCALATION, "escalation requested for this turn", "explicit", "forced"
            )
        if f.force_primary:
            return RouteDecision(PRIMARY, "primary requested for this turn", "explicit", "forced")
        if f.pinned_escalate:
            return RouteDecision(ESCALATION, "pinned with /escalate", "explicit", "pinned")
        if f.auto_sticky:
            return RouteDecision(
                ESCALATION, "staying with the escalation agent (sticky)", "explicit", "sticky"
            )
        if f.pinned_primary:
            return RouteDecision(PRIMARY, "pinned with /primary", "explicit", "pinned")
        return None

    def apply_rules(
        self, prompt: str, need: str = "", *, use_learned: bool = True
    ) -> RouteDecision | Score:
        """Hard rules, difficulty, learned examples, short prompt, then the weighted score;
        a ``Score`` back means inconclusive."""
        r = self.rules
        lower = prompt.lower()
        approx_tokens = len(prompt) // 4  # characters / 4, rounded down
        if approx_tokens > r.escalate_above_tokens:
            return RouteDecision(
                ESCALATION,
                f"long prompt (~{approx_tokens} tokens > {r.escalate_above_tokens})",
                "long_prompt",
            )
        for kw in r.escalate_keywords:
            if kw and kw.lower() in lower:
                return RouteDecision(ESCALATION, f"escalate keyword '{kw}'", "keyword")
        found = signals.difficulty_signals(prompt, need) if r.difficulty_threshold > 0 else []
        strength = signals.total(found)
        learned = (
            self.learned.match(prompt, r.learn_similarity) if self.learned and use_learned else None
        )
        if learned is not None and learned.example.target == PRIMARY:  # the user's judgement
            return RouteDecision(PRIMARY, learned.describe(), "learned")
        if found and strength >= r.difficulty_threshold:
            why = f"difficulty {strength} >= {r.difficulty_threshold} ({signals.describe(found)})"
            return RouteDecision(
                ESCALATION, why + (f"; {learned.describe()}" if learned else ""), "difficulty"
            )
        if learned is not None:
            return RouteDecision(ESCALATION, learned.describe(), "learned")
        weak = [s for s in found if s.weight >= signals.WEAK]
        if r.local_below_tokens > 0 and approx_tokens <= r.local_below_tokens and not weak:
            return RouteDecision(
                PRIMARY,
                f"short prompt (~{approx_tokens} tokens <= {r.local_below_tokens})",
                "short_prompt",
            )
        score = self.score(prompt)
        for s in weak:  # a short prompt with one lands here: the score and verdict decide
            score.add(f"difficulty {s.kind} '{s.evidence}'", s.weight)
        if score.total >= r.escalate_threshold:
            return RouteDecision(ESCALATION, f"score {score.total} ({score.describe()})", "score")
        if score.total <= r.local_threshold:
            return RouteDecision(PRIMARY, f"score {score.total} ({score.describe()})", "score")
        return score

    def score(self, prompt: str) -> Score:
        r = self.rules
        lower = prompt.lower()
        s = Score()
        # Substring matches, first hit only (so "ls" hits "also", "add" hits "address").
        verb = next((v for v in r.local_verbs if v and v.lower() in lower), None)
        if verb is not None:
            s.add(f"local verb '{verb}'", r.local_verb_weight)
        verb = next((v for v in r.escalate_verbs if v and v.lower() in lower), None)
        if verb is not None:
            s.add(f"escalate verb '{verb}'", r.escalate_verb_weight)
        path = self._existing_path(prompt)
        if path:
            s.add(f"path '{path}'", r.path_ref_weight)
        if "```" in prompt:
            s.add("code block", r.code_block_weight)
        prefix = _open_question_prefix(lower.strip(), r.open_question_prefixes)
        if prefix:
            s.add(f"open question '{prefix}'", r.open_question_weight)
        return s

    def _existing_path(self, prompt: str) -> str:
        for word in prompt.split():
            if not _looks_like_path(word):
                continue
            # "~" is deliberately not expanded.
            candidates = [word] if os.path.isabs(word) else [word, os.path.join(self.cwd, word)]
            if any(os.path.exists(c) for c in candidates):
                return word
        return ""

    async def _fallback(self, prompt: str, score: Score) -> RouteDecision:
        why = f"inconclusive score {score.total} ({score.describe()})"
        if self.classifier_fallback in ESCALATE_FALLBACKS:
            return RouteDecision(
                ESCALATION, f"{why}; classifier_fallback sends it to escalation", "classifier"
            )
        if self.classifier is not None:
            try:
                answer = await self.classifier(CLASSIFIER_PROMPT.format(prompt=prompt))
            except Exception as e:  # noqa: BLE001 - a classifier failure must not fail the turn
                return RouteDecision(
                    PRIMARY, f"{why}; classifier error ({e}), defaulting to primary", "default"
                )
            return self._verdict(why, answer)
        return RouteDecision(PRIMARY, f"{why}; default route", "default")

    def _verdict(self, why: str, answer: str | Verdict) -> RouteDecision:
        """The primary's verdict: unparsable or less sure than ``classifier_min_probability``
        escalates — a model that cannot say it can do it has not shown it can."""
        v = (
            answer
            if isinstance(answer, Verdict)
            else Verdict(parse_choice(answer, CHOICES), answer)
        )
        if v.notice:
            why = f"{why}; {v.notice}"
        if not v.answer:
            said = clip(v.text, 40) or "nothing"
            return RouteDecision(
                ESCALATION,
                f"{why}; the primary's verdict is unparsable ('{said}'): unsure",
                "classifier",
            )
        p, floor = v.probability, self.rules.classifier_min_probability
        if p is not None and p < floor:
            return RouteDecision(
                ESCALATION,
                f"{why}; the primary said {v.answer} with p={p:.2f} < {floor:.2f}: unsure",
                "classifier",
            )
        sure = f"p={p:.2f}" if p is not None else "no probability offered"
        target: Target = ESCALATION if v.answer == "escalate" else PRIMARY
        return RouteDecision(target, f"{why}; the primary said {v.answer} ({sure})", "classifier")

    # ----- learning from the user ----------------------------------------------------------

    def learn_from_escalate(self, session: Session, prompt: str = "") -> str:
        """``/escalate`` right after a primary answer: the primary failed that prompt.
        With a ``prompt`` of its own, only when it is that question again (as similar as a
        learned example must be to move a route): ``/escalate`` with a new question is a
        choice for that question, not a verdict on the last answer.  Returns the notice to
        show ("" when there was nothing to learn)."""
        if self.learned is None or not _same_question(
            prompt, last_primary_prompt(session.history), self.rules.learn_similarity
        ):
            return ""
        return self.learned.teach(session, "/escalate after a primary answer")

    def learn_from_primary(self, session: Session, prompt: str = "") -> str:
        """``/primary`` right after an escalation the router judged (router_learning.py);
        with a ``prompt`` of its own, as ``learn_from_escalate``."""
        if self.learned is None or not _same_question(
            prompt, last_escalated_prompt(session.history), self.rules.learn_similarity
        ):
            return ""
        return self.learned.teach_primary(session)

    def learn_from_reask(self, prompt: str, session: Session) -> str:
        """The prompt the primary just answered, asked again (near-duplicate)."""
        last = last_primary_prompt(session.history)
        if self.learned is None or last is None or similarity(prompt, last) < REASKED_SIMILARITY:
            return ""
        return self.learned.teach(session, "asked again after a primary answer")

    # ----- sticky state ---------------------------------------------------------------

    def after_turn(
        self,
        flags: RouteFlags,
        final_target: Target,
        ok: bool,
        forced: str | bool | None,
        sticky_escalation: bool,
    ) -> None:
        """Update stickiness once a turn is over; single-turn forces always end here.

        ``final_target`` is where the router (plus availability fallback) sent the turn —
        NOT where the answer finally came from: a primary that escalated itself was
        routed to primary, so it leaves auto-sticky alone.
        ``forced`` is "escalate" / "primary" / None (True means "escalate").
        """
        forced_primary = forced == "primary"
        # ``/escalate PROMPT`` sends that one prompt there: the next goes where the rules say.
        one_off = forced in ("escalate", True)
        if (
            ok
            and final_target == ESCALATION
            and sticky_escalation
            and not one_off
            and not flags.pinned_escalate
            and not flags.pinned_primary
        ):
            flags.auto_sticky = True
        if forced_primary:
            flags.auto_sticky = False
        flags.force_escalate = False
        flags.force_primary = False

    def primary_command(self, flags: RouteFlags, session: Session, *, pin: bool = True) -> None:
        """``/primary``: drop every escalation flag, reset the repetition baseline and leave
        ESCALATION_WAITING.  Bare ``/primary`` (``pin=True``) pins primary; ``/primary <msg>``
        (``pin=False``) is a one-turn override the caller forces with ``force_primary``."""
        flags.force_escalate = flags.pinned_escalate = flags.auto_sticky = False
        if pin:
            flags.pinned_primary = True
        session.repetition_baseline = session.user_turn_count()
        if session.state == State.ESCALATION_WAITING:
            session.state = State.ROUTING

    def auto_command(self, flags: RouteFlags) -> None:
        """``/auto``: no pin and no stickiness; the rules pick the agent for each prompt."""
        flags.pinned_escalate = flags.pinned_primary = flags.auto_sticky = False
        flags.force_escalate = flags.force_primary = False

    def escalate_command(self, flags: RouteFlags, *, pin: bool = True) -> None:
        """Bare ``/escalate`` pins escalation (and unpins primary); with a message the caller
        forces one turn instead."""
        if pin:
            flags.pinned_escalate = True
            flags.pinned_primary = False
        else:
            flags.force_escalate = True


def _same_question(prompt: str, before: str | None, threshold: float) -> bool:
    """A command's own prompt (none: the answer just given) is the question answered."""
    if not prompt.strip():
        return True
    return before is not None and similarity(prompt, before) >= threshold


def _looks_like_path(word: str) -> bool:
    return word.startswith(("/", "./", "../", "~/")) or "/" in word or "\\" in word


def _open_question_prefix(text: str, prefixes: list[str]) -> str:
    for p in prefixes:
        p = p.lower()
        if p and text.startswith(p):
            rest = text[len(p) :]
            if not rest or rest[0] in " \t,?":
                return p
    return ""
