"""Ranking a full-text fact search: bm25 × weight over a bounded set of candidates.

FTS5's ``bm25()`` first counts, for each query phrase, every row holding it (a pass over
the phrase's whole doclist, ~7 ms for a word in 20 % of a million facts), and ranking every
match means a join and a sort as long as the match list.  Neither is flat in the store.
So a search here:

1. spells each prefix word out as the words the store holds (``percept_terms``, our own
   vocabulary with fact counts), so FTS5 walks plain doclists lazily instead of merging
   a prefix's doclists in full (a prefix of more than ``MAX_EXPANSION`` words stays a
   prefix query);
2. reads the ``CANDIDATES`` most recent matches that pass the filter (the doclist read
   backwards, stopping there);
3. scores them in Python with FTS5's bm25 formula (k1 = 1.2, b = 0.75; ``terms`` holds
   each word once, so a word's term frequency is how many of the fact's words it
   prefixes) from the kept fact counts and FTS5's own row and token totals, times
   ``0.05 + weight``.

Trade-off (docs/adr/0046-bounded-fact-search.md): when a search matches more than
``CANDIDATES`` facts, only the newest ``CANDIDATES`` are ranked; the older matches follow
them newest first.  With fewer matches the ranking is over every match, as before.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

CANDIDATES = 1000
"""Matches ranked by relevance per search (the newest ones)."""
MAX_EXPANSION = 16
"""Words a prefix may stand for and still be spelled out in the FTS query."""
K1, B = 1.2, 0.75
"""FTS5's bm25 constants (https://www.sqlite.org/fts5.html#the_bm25_function)."""

Query = Callable[[str, tuple], list[sqlite3.Row]]
"""``Database.query``."""


@dataclass
class Plan:
    """An FTS5 MATCH string and what scoring needs for each query word."""

    match: str
    prefixes: list[tuple[str, frozenset[str] | None, int]]
    """(word, the words it stands for — None for a prefix left as one —, facts holding it:
    the sum over those words)."""


def _varints(blob: bytes) -> list[int]:
    """SQLite varints (https://www.sqlite.org/fileformat2.html#varint)."""
    out, i = [], 0
    while i < len(blob):
        v = 0
        for k in range(9):
            byte = blob[i]
            i += 1
            if k == 8:
                v = (v << 8) | byte
                break
            v = (v << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(v)
    return out


def totals(query: Query) -> tuple[int, float]:
    """(rows, mean tokens per row) of the index, as bm25 reads them: FTS5 keeps both in
    its "averages" record (%_data row 1: the row count, then each column's token total)."""
    rows = query("SELECT block FROM percepts_fts_data WHERE id = 1", ())
    nums = _varints(bytes(rows[0][0])) if rows else []
    if len(nums) < 2 or nums[0] <= 0:
        return 0, 1.0
    return nums[0], max(nums[1] / nums[0], 1.0)


def plan(query: Query, words: list[str], any_word: bool) -> Plan | None:
    """None when some word (of an AND search) is in no fact: nothing can match."""
    prefixes: list[tuple[str, frozenset[str] | None, int]] = []
    parts: list[str] = []
    for w in words:
        if any_word:
            rows = query("SELECT df FROM percept_terms WHERE term = ? AND df > 0", (w,))
            if rows:
                prefixes.append((w, frozenset((w,)), int(rows[0][0])))
                parts.append(f'"{w}"')
            continue
        # Terms are a-z/0-9 words: every word starting with w sorts below w + "~".
        found = query(
            "SELECT term, df FROM percept_terms WHERE term >= ? AND term < ? AND df > 0 LIMIT ?",
            (w, w + "~", MAX_EXPANSION + 1),
        )
        if not found:
            return None
        if len(found) > MAX_EXPANSION:
            n = query(
                "SELECT sum(df) FROM percept_terms WHERE term >= ? AND term < ?", (w, w + "~")
            )
            prefixes.append((w, None, int(n[0][0] or 0)))
            parts.append(f'"{w}"*')
        else:
            prefixes.append((w, frozenset(r[0] for r in found), sum(int(r[1]) for r in found)))
            parts.append("(" + " OR ".join(f'"{r[0]}"' for r in found) + ")")
    if not parts:
        return None
    return Plan(" OR ".join(parts) if any_word else " AND ".join(parts), prefixes)


def rank(rows: Sequence[tuple[int, float, str]], p: Plan, n_rows: int,
         avgdl: float) -> list[int]:  # fmt: skip
    """Ids of (id, weight, terms) rows, best bm25 × (0.05 + weight) first; ties newest first."""
    idf = []
    for _, _spelled, df in p.prefixes:
        df = min(df, n_rows)
        v = math.log((n_rows - df + 0.5) / (df + 0.5)) if n_rows else 0.0
        idf.append(max(v, 1e-6) * (K1 + 1))
    scored = []
    for pid, weight, terms in rows:
        doc = terms.split()
        have = set(doc)
        norm = K1 * (1 - B + B * len(doc) / avgdl)
        total = 0.0
        for (word, spelled, _), f in zip(p.prefixes, idf, strict=True):
            # ``terms`` holds each word once: a term frequency counts distinct words.
            tf = (
                len(have & spelled) if spelled is not None else sum(t.startswith(word) for t in doc)
            )
            if tf:
                total += f * tf / (tf + norm)
        scored.append((-total * (0.05 + weight), -pid))  # FTS5's sign: lower is better
    scored.sort()
    return [-neg for _, neg in scored]


def matching_ids(query: Query, words: list[str], any_word: bool,
                 where: tuple[str, list[Any]], limit: int, offset: int,
                 count: bool) -> tuple[list[int], int]:  # fmt: skip
    """(ids of the page in order, total matches or -1 without ``count``).  ``where`` is a
    ``PerceptFilter.where()`` over alias ``p``."""
    p = plan(query, words, any_word)
    if p is None:
        return [], 0 if count else -1
    sql, params = where
    # CROSS JOIN keeps the FTS doclist the outer loop, so "newest first" stops early.
    join = f"FROM percepts_fts f CROSS JOIN percepts p ON p.id = f.rowid WHERE percepts_fts MATCH ? AND {sql}"
    total = int(query(f"SELECT COUNT(*) {join}", (p.match, *params))[0][0]) if count else -1
    if limit == 0:
        return [], total
    ids: list[int] = []
    more = True
    if offset < CANDIDATES:
        cand = f"SELECT p.id, p.weight, p.terms {join} ORDER BY f.rowid DESC LIMIT ?"
        rows = query(cand, (p.match, *params, CANDIDATES))
        n_rows, avgdl = totals(query)
        ids = rank([(r[0], r[1], r[2]) for r in rows], p, n_rows, avgdl)[offset : offset + limit]
        more = len(rows) == CANDIDATES
    if more and offset + limit > CANDIDATES:  # past the ranked ones: older matches, newest first
        start = max(offset, CANDIDATES)
        older = f"SELECT p.id {join} ORDER BY f.rowid DESC LIMIT ? OFFSET ?"
        ids += [r[0] for r in query(older, (p.match, *params, offset + limit - start, start))]
    return ids, total
