"""Choosing the facts an agent sees with a prompt (reference core §4.6, DESIGN §5.7).

Role filter and visibility are SQL predicates; relevance is FTS5 bm25 × weight over the
prompt's tokens, so the cost follows the number of matching facts, not the store size.
The caps walk in rank order and stop at the first fact that would break one of them.
"""

from __future__ import annotations

from collections.abc import Iterator

from .dedup import fts_query, tokens
from .store import PerceptStore

DEFAULT_MAX_COUNT = 25
"""Reference §3.10 percept_inject_max."""
DEFAULT_MAX_BYTES = 2048
"""Reference §3.10 percept_inject_max_bytes."""
_PAGE = 64

_VISIBLE = "(p.scope = 'global' OR (p.scope = 'session' AND p.session_id = ?))"
ROLE_FILTER = {
    # The escalation agent gets neither its own facts (no echo) nor primary-only ones.
    "escalation": "p.producer != 'escalation' AND p.consumer != 'primary'",
    # The primary gets everything except escalation-only facts (its own ones included).
    "primary": "p.consumer != 'escalation'",
}


def _ranked(store: PerceptStore, words: list[str], slot: str, session_id: str,
            page: int) -> Iterator[tuple[int, str]]:
    cols = "p.id, p.content"
    where = f"{_VISIBLE} AND {ROLE_FILTER[slot]}"
    if words:
        sql = (f"SELECT {cols} FROM percepts_fts f JOIN percepts p ON p.id = f.rowid "
               f"WHERE percepts_fts MATCH ? AND {where} "
               "ORDER BY bm25(percepts_fts) * p.weight, p.weight DESC, p.id DESC "
               "LIMIT ? OFFSET ?")  # fmt: skip
        params: tuple = (fts_query(words), session_id)
    else:
        sql = (f"SELECT {cols} FROM percepts p WHERE {where} "
               "ORDER BY p.weight DESC, p.id DESC LIMIT ? OFFSET ?")
        params = (session_id,)
    offset = 0
    while True:
        rows = store.db.query(sql, (*params, page, offset))
        yield from ((r[0], r[1]) for r in rows)
        if len(rows) < page:
            return
        offset += page


def select_contents(store: PerceptStore, prompt: str, slot: str, session_id: str, *,
                    max_count: int = DEFAULT_MAX_COUNT, max_bytes: int = DEFAULT_MAX_BYTES,
                    relevance_gate: bool = True) -> list[str]:
    """Content strings in rank order; a cap ≤ 0 means unlimited."""
    words = tokens(prompt)
    page = min(max_count, _PAGE) if max_count > 0 else _PAGE
    streams = [_ranked(store, words, slot, session_id, page)]
    if words and not relevance_gate:
        streams.append(_ranked(store, [], slot, session_id, page))  # then the non-matching rest
    out: list[str] = []
    seen: set[int] = set()
    total = 0
    for stream in streams:
        for pid, content in stream:
            if pid in seen:
                continue
            seen.add(pid)
            size = len(content.encode())
            if (max_count > 0 and len(out) + 1 > max_count) or (max_bytes > 0 and total + size > max_bytes):
                return out
            out.append(content)
            total += size
    return out


def format_block(contents: list[str]) -> str:
    """Reference §3.4 FormatPercepts."""
    if not contents:
        return ""
    return "[Remembered facts]\n" + "".join(f"- {c}\n" for c in contents)

