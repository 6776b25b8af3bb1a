"""A page next to a page already shown, or at a depth: keyset paging for the fact browser.

``LIMIT … OFFSET n`` walks ``n`` index entries before the page (280 ms at a depth of
500,000 facts).  A page that follows (or precedes) one already on screen starts from that
page's last (or first) row instead: the rest of its sort-key tie group (an index equality
plus a rowid range), then the index range past it — O(page) at any depth.  The last page
is the first page of the reversed order.

A page at a depth with no page next to it (the scrollbar dragged there) is found by
``page_at`` (docs/adr/0048-a-jump-walks-the-order-index-alone.md): the OFFSET walk over
the order's index alone, which reads no table row (~12 ms at 900,000), gives the key at that depth among
every fact; the facts the filter leaves out up to that key, when only the scope leaves
them out, are counted from the scope index, and that many more visible facts are skipped.
"""

from __future__ import annotations

from typing import Any

from milk_tui.memory.store import _SELECT, ORDER_INDEX, PerceptFilter, row_to_percept
from milk_tui.model.percept import Percept
from milk_tui.storage.db import Database

KEYS = {"recent": "updated_at", "weight": "weight", "id": ""}
"""Each order's sort column before the id ("" = the id alone, ascending)."""
MAX_HIDDEN = 20_000
"""``page_at`` skips, as rows, the facts its filter leaves out before the depth: past this
many left out in all, the OFFSET walk over the filtered facts is as cheap (``page_at``
answers None)."""

Key = tuple[Any, int]
"""A row's place in an order: (its sort column's value, or None for the id order; its id)."""


def list_from(db: Database, flt: PerceptFilter, order: str, anchor: Percept | None,
              limit: int, before: bool = False) -> list[Percept]:  # fmt: skip
    """``limit`` facts in ``order`` right after ``anchor`` (right before it with ``before``,
    still returned in ``order``); no anchor and ``before``: the last ``limit`` facts."""
    col = KEYS[order]
    key = None if anchor is None else ((getattr(anchor, col) if col else None), anchor.id)
    rows = _from(db, flt, order, key, limit, before, _SELECT)
    out = [row_to_percept(r) for r in rows]
    return out[::-1] if before else out


def _from(db: Database, flt: PerceptFilter, order: str, key: Key | None, limit: int,
          before: bool, select: str) -> list[Any]:  # fmt: skip
    where, params = flt.where()
    hint = "" if flt.scope == "session" and flt.session_id is not None else ORDER_INDEX[order]
    col = KEYS[order]
    # In the order's direction "after" means smaller keys (desc orders) or larger ids (id).
    down = (col != "") != before
    cmp, way = ("<", "DESC") if down else (">", "ASC")
    rows: list[Any] = []
    if col and key is not None:
        rows = db.query(
            f"{select} {hint} WHERE {where} AND p.{col} = ? AND p.id {cmp} ? "
            f"ORDER BY p.id {way} LIMIT ?",
            (*params, key[0], key[1], limit),
        )
        if len(rows) < limit:
            rows += db.query(
                f"{select} {hint} WHERE {where} AND p.{col} {cmp} ? "
                f"ORDER BY p.{col} {way}, p.id {way} LIMIT ?",
                (*params, key[0], limit - len(rows)),
            )
    else:
        past = f"AND p.id {cmp} ?" if key is not None else ""
        by = f"p.{col} {way}, p.id {way}" if col else f"p.id {way}"
        rows = db.query(
            f"{select} {hint} WHERE {where} {past} ORDER BY {by} LIMIT ?",
            (*params, *([key[1]] if key is not None else []), limit),
        )
    return rows


def _left_out(flt: PerceptFilter) -> tuple[str, list[Any]] | None:
    """The facts ``flt`` leaves out, as a condition the scope index answers, when only its
    scope leaves facts out; None for any other filter (and for one session's own facts:
    few, read through the scope index by the OFFSET walk itself)."""
    if flt.producer or flt.consumer or flt.core is not None or flt.min_weight is not None:
        return None
    if flt.scope == "global":
        return "p.scope = 'session'", []
    if flt.scope is None and flt.session_id is not None:  # visible in a session
        return "p.scope = 'session' AND p.session_id != ?", [flt.session_id]
    if flt.scope is None:
        return "0", []
    return None


def _left_out_total(db: Database, cond: str, params: list[Any]) -> int:
    """How many facts the scope condition leaves out, from the kept counts."""
    kept = cond.replace("p.", "")
    sql = f"SELECT coalesce(sum(n), 0) FROM percept_counts WHERE {kept}"
    return int(db.query(sql, tuple(params))[0][0])


def page_at(db: Database, flt: PerceptFilter, order: str, depth: int,
            limit: int) -> list[Percept] | None:  # fmt: skip
    """The ``limit`` facts from position ``depth`` on in ``order`` (what ``LIMIT limit
    OFFSET depth`` reads), without walking the table's rows up to it; None when ``flt``
    is not one this can serve (the caller walks by OFFSET then)."""
    left_out = _left_out(flt)
    if left_out is None:
        return None
    cond, cond_params = left_out
    if cond != "0" and _left_out_total(db, cond, cond_params) > MAX_HIDDEN:
        return None
    if depth <= 0:
        return list_from(db, flt, order, None, limit)
    col = KEYS[order]
    with db.snapshot():  # the key, the count and the rows from one committed state
        # The fact at depth - 1 among every fact: the order's index alone (covering).
        if col:
            found = db.query(
                f"SELECT p.{col}, p.id FROM percepts p {ORDER_INDEX[order]} "
                f"ORDER BY p.{col} DESC, p.id DESC LIMIT 1 OFFSET ?",
                (depth - 1,),
            )
        else:
            found = db.query(
                "SELECT NULL, p.id FROM percepts p ORDER BY p.id LIMIT 1 OFFSET ?", (depth - 1,)
            )
        if not found:
            return []
        key: Key = (found[0][0], found[0][1])
        # Of the facts up to and including it, those the filter leaves out: the visible
        # facts after it start that many positions before ``depth``.
        upto = (f"(p.{col} > ? OR (p.{col} = ? AND p.id >= ?))", [key[0], key[0], key[1]])
        if not col:
            upto = ("p.id <= ?", [key[1]])
        skip = 0
        if cond != "0":
            # Through the scope index: the planner would otherwise range the order's index
            # up to the key (as long as the walk, with a table read per entry).
            skip = int(db.query(
                f"SELECT COUNT(*) FROM percepts p INDEXED BY percepts_scope WHERE {cond} "
                f"AND {upto[0]}", (*cond_params, *upto[1]))[0][0])  # fmt: skip
        if skip:
            keys = f"SELECT {'p.' + col if col else 'NULL'}, p.id FROM percepts p"
            passed = _from(db, flt, order, key, skip, False, keys)
            if len(passed) < skip:
                return []
            key = (passed[-1][0], passed[-1][1])
        rows = _from(db, flt, order, key, limit, False, _SELECT)
    return [row_to_percept(r) for r in rows]
