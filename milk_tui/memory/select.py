"""Choosing the facts an agent sees with a prompt (docs/adr/0005-percepts-in-sqlite-fts5.md).

Role filter and visibility are SQL predicates; relevance is FTS5 bm25 × weight over the
prompt's tokens, so the cost follows the number of matching facts, not the store size.
The caps walk in rank order and stop at the first fact that would break one of them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterator
from typing import TypedDict

from milk_tui.config.defaults import DEFAULT_PERCEPT_INJECT_MAX, DEFAULT_PERCEPT_INJECT_MAX_BYTES
from milk_tui.memory.dedup import fts_query, tokens
from milk_tui.memory.store import PerceptStore

DEFAULT_MAX_COUNT = DEFAULT_PERCEPT_INJECT_MAX
DEFAULT_MAX_BYTES = DEFAULT_PERCEPT_INJECT_MAX_BYTES
_PAGE = 64

_VISIBLE = "(p.scope = 'global' OR (p.scope = 'session' AND p.session_id = ?))"
ROLE_FILTER = {
    # The escalation agent gets neither its own facts (no echo) nor primary-only ones.
    "escalation": "p.producer != 'escalation' AND p.consumer != 'primary'",
    # The primary gets everything except escalation-only facts (its own ones included).
    "primary": "p.consumer != 'escalation'",
}


RARE_MATCH_BUDGET = 400
"""Matches bm25 may score per selection.  Prompt words are taken rarest first while their
fact counts fit this budget; the remaining (common) words barely move bm25 — their idf is
near zero — yet scoring all their matches would cost O(matches).  So facts sharing a rare
word are ranked by bm25 × weight, then facts sharing only common words follow by weight."""


def _rare_ranked(
    store: PerceptStore, words: list[str], where: str, session_id: str, page: int
) -> Iterator[tuple[int, str]]:
    sql = (
        "SELECT p.id, p.content FROM percepts_fts f JOIN percepts p ON p.id = f.rowid "
        f"WHERE percepts_fts MATCH ? AND {where} "
        "ORDER BY bm25(percepts_fts) * p.weight, p.weight DESC, p.id DESC LIMIT ? OFFSET ?"
    )
    offset = 0
    while True:
        rows = store.db.query(sql, (fts_query(words), session_id, page, offset))
        yield from ((r[0], r[1]) for r in rows)
        if len(rows) < page:
            return
        offset += page


def _by_weight(
    store: PerceptStore, words: set[str] | None, where: str, session_id: str
) -> Iterator[tuple[int, str]]:
    """Visible facts by weight; with ``words``, only those sharing one of them (the gate)."""
    with store.db.lock:
        if words is None:
            cur = store.db.conn.execute(
                f"SELECT p.id, p.content FROM percepts p INDEXED BY percepts_weight WHERE {where} "
                "ORDER BY p.weight DESC, p.id DESC",
                (session_id,),
            )
            yield from cur
            return
        cur = store.db.conn.execute(
            "SELECT p.id, p.content, p.terms FROM percepts p INDEXED BY percepts_weight "
            f"WHERE {where} ORDER BY p.weight DESC, p.id DESC",
            (session_id,),
        )
        for pid, content, terms in cur:
            if not words.isdisjoint(terms.split()):
                yield pid, content


def _ranked(
    store: PerceptStore, words: list[str], slot: str, session_id: str, page: int, gate: bool
) -> Generator[tuple[int, str], None, None]:
    where = f"{_VISIBLE} AND {ROLE_FILTER[slot]}"
    if not words:
        yield from _by_weight(store, None, where, session_id)
        return
    df = store.doc_freq(words)
    present = sorted((w for w in words if df.get(w, 0)), key=lambda w: df[w])
    rare: list[str] = []
    spent = 0
    for w in present:
        if rare and spent + df[w] > RARE_MATCH_BUDGET:
            break
        rare.append(w)
        spent += df[w]
    common = set(present[len(rare) :])
    if rare:
        yield from _rare_ranked(store, rare, where, session_id, page)
    if common:
        yield from _by_weight(store, common, where, session_id)
    if not gate:
        yield from _by_weight(store, None, where, session_id)


class SelectionCaps(TypedDict, total=False):
    """The optional caps of ``select_contents``, for callers that pass them through."""

    max_count: int
    max_bytes: int
    relevance_gate: bool


def select_contents(
    store: PerceptStore,
    prompt: str,
    slot: str,
    session_id: str,
    *,
    max_count: int = DEFAULT_MAX_COUNT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    relevance_gate: bool = True,
) -> list[str]:
    """Content strings in rank order; a cap ≤ 0 means unlimited."""
    words = tokens(prompt)
    page = min(max_count, _PAGE) if max_count > 0 else _PAGE
    ranked = _ranked(store, words, slot, session_id, page, relevance_gate)
    with contextlib.closing(ranked):  # releases the db lock / cursor when we stop early
        out, total = _walk(ranked, max_count, max_bytes)
    return out


def _walk(
    ranked: Iterator[tuple[int, str]], max_count: int, max_bytes: int
) -> tuple[list[str], int]:
    out: list[str] = []
    seen: set[int] = set()
    total = 0
    for pid, content in ranked:
        if pid in seen:
            continue
        seen.add(pid)
        size = len(content.encode())
        if (max_count > 0 and len(out) + 1 > max_count) or (
            max_bytes > 0 and total + size > max_bytes
        ):
            break
        out.append(content)
        total += size
    return out, total


def format_block(contents: list[str]) -> str:
    """The ``[Remembered facts]`` block both agents get; its header is part of the prompt contract."""
    if not contents:
        return ""
    return "[Remembered facts]\n" + "".join(f"- {c}\n" for c in contents)
