"""Difficulty signals: what in a prompt says the primary is out of its depth, at any length.

A three-word "Why does worker.py deadlock?" needs as much reasoning as a paragraph, so the
signals are read before the short-prompt rule and that rule never overrides one of weight
``STRONG``.  Each signal names its kind and the words that raised it, so the route reason
can say exactly why (docs/adr/0039-routing-signals-verdict-and-learning.md).

Words are matched on word boundaries (``re``), not as substrings: "ls" in "also" or "race"
in "trace" raise nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from milk_tui.model.terminal_text import inert

STRONG = 3
"""A signal of this weight alone reaches the default ``difficulty_threshold``."""
WEAK = 2
"""Below the threshold alone, but enough to keep a short prompt off the short-prompt rule."""
CONTEXT = 1
"""A file named in the prompt: context for another signal, never a reason on its own."""

LARGE_PROMPT_TOKENS = 500
"""~2,000 characters: a pasted log or file the primary's small context handles badly."""


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])", re.IGNORECASE)


_KINDS: list[tuple[str, int, re.Pattern[str]]] = [
    (
        "design",
        STRONG,
        _words(
            r"design\w*",
            r"architect\w*",
            r"schema\w*",
            r"plugins?",
            r"trade-?offs?",
            r"scal(?:e|ability|able)",
            r"progett\w+",
            r"architettura",
        ),
    ),
    (
        "decision",
        STRONG,
        _words(
            r"should (?:we|i|this|it|our|the)",
            r"how should",
            r"compare",
            r"versus",
            r"pros and cons",
            r"which is better",
            r"best way",
            r"conviene",
        ),
    ),
    (
        "refactor",
        STRONG,
        _words(
            r"refactor\w*",
            r"restructur\w*",
            r"reorgani[sz]\w*",
            r"deduplicat\w*",
            r"duplicated",
            r"split \w+ into",
            r"extract \w+ into",
            r"migrat\w+",
            r"rifattorizz\w*",
        ),
    ),
    (
        "debug",
        STRONG,
        _words(
            r"debug\w*",
            r"deadlocks?",
            r"deadlocking",
            r"race conditions?",
            r"races?",
            r"hangs?",
            r"hanging",
            r"memory leaks?",
            r"leaks?",
            r"leaking",
            r"flaky",
            r"intermittent\w*",
            r"segfaults?",
            r"corrupt\w*",
        ),
    ),
    (
        "why",
        STRONG,
        _words(
            r"why",
            r"how come",
            r"perch[ée]",
            r"explain (?:your|the) reasoning",
            r"root cause",
        ),
    ),
    (
        "bug report",
        WEAK,
        _words(
            r"bugs?",
            r"wrong",
            r"broken",
            r"crash\w*",
            r"fails?",
            r"failing",
            r"failed",
            r"sometimes",
            r"randomly",
            r"instead of",
            r"doesn't work",
            r"does not work",
        ),
    ),
    (
        "multi-step",
        WEAK,
        # "and then?" alone is a follow-up question, not a second step: a step names its verb
        _words(r"and then \w+", r"after that,? \w+", r"step by step", r"first\b.{1,80}\bthen \w+"),
    ),
]

_TEST_FAILING = re.compile(
    r"(?<![\w-])(?:tests?|test_\w+|\w+_test|pytest|suite)\b.{0,60}?"
    r"(?<![\w-])(?:fail\w*|flaky|red|broken|error\w*)(?![\w-])"
    r"|(?<![\w-])fail\w*\b.{0,30}?(?<![\w-])tests?(?![\w-])",
    re.IGNORECASE | re.DOTALL,
)
_FILE = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]*\.(?:py|pyi|js|jsx|ts|tsx|go|rs|c|h|cc|cpp|hpp|java|kt|"
    r"rb|php|cs|swift|sh|md|txt|json|ya?ml|toml|ini|cfg|sql|html|css|gitignore|lock)"
    r"|(?:[\w.-]+/)+[\w.-]+)(?![\w/])"
)
_NUMBERED_STEPS = re.compile(r"(?m)^\s*(?:\d+[.)]|[-*])\s+\S")
_CONTINUATION = re.compile(
    r"^\s*(?:ok(?:ay)?|yes|go on|go ahead|continue|do it|carry on|proceed|next|"
    r"keep going|sì|vai|continua|procedi)\s*[.!]?\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Signal:
    kind: str
    """design, decision, refactor, debug, why, failing tests, bug report, multi-step,
    many files, large context, need, file."""
    evidence: str
    """The words of the prompt (or the need) that raised it, as written."""
    weight: int

    def describe(self) -> str:
        return f"{self.kind} '{self.evidence}' {self.weight:+d}"


def difficulty_signals(prompt: str, need: str = "") -> list[Signal]:
    """Every difficulty signal of ``prompt``; ``need`` is the session's current need, which
    counts only for a bare continuation ("go on", "do it") that carries no content itself."""
    found: list[Signal] = []
    failing = _TEST_FAILING.search(prompt)
    if failing:
        found.append(Signal("failing tests", _clip(failing.group(0)), STRONG))
    for kind, weight, pattern in _KINDS:
        m = pattern.search(prompt)
        if m is None or (kind == "bug report" and failing):
            continue  # a failing test already says "fails"; one signal, not two
        found.append(Signal(kind, _clip(m.group(0)), weight))
    if len(_NUMBERED_STEPS.findall(prompt)) >= 3 and not any(s.kind == "multi-step" for s in found):
        found.append(Signal("multi-step", "a numbered list", WEAK))
    files = list(dict.fromkeys(m.group(1) for m in _FILE.finditer(prompt)))
    if len(files) >= 3:
        found.append(Signal("many files", ", ".join(files[:3]), STRONG))
    elif len(files) == 2:
        found.append(Signal("many files", ", ".join(files), WEAK))
    elif files:
        found.append(Signal("file", files[0], CONTEXT))
    approx_tokens = len(prompt) // 4
    if approx_tokens > LARGE_PROMPT_TOKENS:
        found.append(Signal("large context", f"~{approx_tokens} tokens", STRONG))
    if need.strip() and _CONTINUATION.match(prompt):
        inherited = [s for s in difficulty_signals(need) if s.weight >= STRONG]
        if inherited:
            found.append(Signal("need", f"{_clip(need)}: {inherited[0].kind}", STRONG))
    return found


def total(signals: list[Signal]) -> int:
    return sum(s.weight for s in signals)


def describe(signals: list[Signal]) -> str:
    return ", ".join(s.describe() for s in signals)


def _clip(text: str, limit: int = 40) -> str:
    one_line = inert(" ".join(text.split()))
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"
