"""A page next to a page already shown: keyset paging for the fact browser.

``LIMIT … OFFSET n`` walks ``n`` index entries before the page (280 ms at a depth of
500,000 facts).  A page that follows (or precedes) one already on screen starts from that
page's last (or first) row instead: the rest of its sort-key tie group (an index equality
plus a rowid range), then the index range past it — O(page) at any depth.  The last page
is the first page of the reversed order.
"""

from __future__ import annotations

from milk_tui.memory.store import _SELECT, ORDER_INDEX, PerceptFilter, row_to_percept
from milk_tui.model.percept import Percept
from milk_tui.storage.db import Database

KEYS = {"recent": "updated_at", "weight": "weight", "id": ""}
"""Each order's sort column before the id ("" = the id alone, ascending)."""


def list_from(db: Database, flt: PerceptFilter, order: str, anchor: Percept | None,
              limit: int, before: bool = False) -> list[Percept]:  # fmt: skip
    """``limit`` facts in ``order`` right after ``anchor`` (right before it with ``before``,
    still returned in ``order``); no anchor and ``before``: the last ``limit`` facts."""
    where, params = flt.where()
    hint = "" if flt.scope == "session" and flt.session_id is not None else ORDER_INDEX[order]
    col = KEYS[order]
    # In the order's direction "after" means smaller keys (desc orders) or larger ids (id).
    down = (col != "") != before
    cmp, way = ("<", "DESC") if down else (">", "ASC")
    rows: list = []
    if col and anchor is not None:
        key = getattr(anchor, col)
        rows = db.query(
            f"{_SELECT} {hint} WHERE {where} AND p.{col} = ? AND p.id {cmp} ? "
            f"ORDER BY p.id {way} LIMIT ?",
            (*params, key, anchor.id, limit),
        )
        if len(rows) < limit:
            rows += db.query(
                f"{_SELECT} {hint} WHERE {where} AND p.{col} {cmp} ? "
                f"ORDER BY p.{col} {way}, p.id {way} LIMIT ?",
                (*params, key, limit - len(rows)),
            )
    else:
        past = f"AND p.id {cmp} ?" if anchor is not None else ""
        by = f"p.{col} {way}, p.id {way}" if col else f"p.id {way}"
        rows = db.query(
            f"{_SELECT} {hint} WHERE {where} {past} ORDER BY {by} LIMIT ?",
            (*params, *([anchor.id] if anchor is not None else []), limit),
        )
    out = [row_to_percept(r) for r in rows]
    return out[::-1] if before else out
