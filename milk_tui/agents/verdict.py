"""The primary's verdict on a prompt: one word out of a fixed few, and how sure it was.

A 135M-parameter model cannot be trusted to follow "answer with one word", so where the
server allows it the answer is constrained to the choices (a llama.cpp GBNF ``grammar``,
https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md) and its probability
read from the server's ``logprobs``.  The probability is the model's preference between the
choices: the first token's probability of the answer given, against the first token of the
other answer, normalised over the two (the raw distribution also holds "The", "Sure", …).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_FIRST_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Verdict:
    answer: str
    """One of the choices, or "" when the text named none (unparsable)."""
    text: str
    """What the model wrote (shown clipped in the route reason when unparsable)."""
    probability: float | None = None
    """P(answer) normalised over the choices; None when the server gave no log-probs."""
    constrained: bool = False
    """The server was asked for (and accepted) a grammar-constrained answer."""
    notice: str = ""
    """One line to show the user once (the server refused the grammar, …)."""


def parse_choice(text: str, choices: tuple[str, ...]) -> str:
    """The choice the answer's first word names ("Escalate." → "escalate"); "" for none.
    A first word that is a prefix of exactly one choice counts ("esc")."""
    m = _FIRST_WORD.match(text.strip().lower().lstrip("\"'*`([ "))
    if m is None:
        return ""
    word = m.group(0)
    hits = [c for c in choices if c.startswith(word) or word.startswith(c)]
    return hits[0] if len(hits) == 1 else ""


def token_names(token: str, choice: str) -> bool:
    """True when a first token is the start of ``choice`` ("esc", " primary", "Pr")."""
    t = token.strip().lower()
    return bool(t) and choice.startswith(t)


def normalised(chosen_logprob: float, other_logprob: float) -> float:
    """P(chosen) over the two answers' first-token log-probs."""
    a, b = math.exp(chosen_logprob), math.exp(other_logprob)
    return a / (a + b)


def choice_grammar(choices: tuple[str, ...]) -> str:
    """A GBNF grammar whose only sentences are the choices."""
    return "root ::= " + " | ".join(f'"{c}"' for c in choices)
