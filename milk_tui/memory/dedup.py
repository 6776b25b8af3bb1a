"""Tokenizer and near-duplicate test (Jaccard over word sets) for remembered facts.

The same tokenizer feeds the FTS5 index (we index our own token string, not the raw
content), so FTS candidates, the relevance gate and Jaccard all agree on what a word is.
"""

from __future__ import annotations

import math
import re

STOP_WORDS = frozenset(
    "a an and are as at be been but by do for from has have he her his i if in is it its me "
    "my no not of on or our out so that the their them then there they this to up us was we "
    "when which who will with you your".split()
)
"""Words too common to tell two facts apart; they never count towards similarity."""

DUPLICATE_THRESHOLD = 0.60
"""Jaccard similarity at or above which a new fact is the same as an old one."""

_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """Distinct tokens in first-seen order (ASCII a–z/0–9 words, lowercased, no stop words)."""
    seen: dict[str, None] = {}
    for w in _WORD.findall(text.lower()):
        if w not in STOP_WORDS:
            seen[w] = None
    return list(seen)


def tokenize(text: str) -> frozenset[str]:
    return frozenset(tokens(text))


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    if not a and not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def min_shared(n: int) -> int:
    """Fewest tokens a set must share with an n-token set to reach the threshold.

    J ≥ t implies |A∩B| ≥ t·|A|, so a candidate must hold at least this many of A's tokens;
    by pigeonhole it holds one of A's ``n − min_shared + 1`` rarest tokens, which is all the
    FTS query needs to ask for.
    """
    return max(1, math.ceil(DUPLICATE_THRESHOLD * n - 1e-9))


def fts_query(words: list[str]) -> str:
    """An FTS5 OR query over already-tokenized words (quoted, so no operator injection)."""
    return " OR ".join(f'"{w}"' for w in words)
