"""The fact browser's data side: a query and a sparse page cache over the facade's facts.

The browser never holds more than a few pages of facts, whatever the store size: the
table asks for row ``i`` while painting and we fetch the page around it: from the cached page
next to it (keyset, ``Facts.page_next_to``: what scrolling needs), from the end for the
last page, from the order's index for a jump (``Facts.page_at``), or by LIMIT/OFFSET for a
search's ranked pages and a filter that index cannot skip.  A new query builds a new
``FactWindow`` instead of mutating this one, so a search computed in a worker thread can be
swapped in atomically.
No Textual here; the window is unit-testable and benchmarkable on its own.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from milk_tui.facade.errors import StorageError
from milk_tui.facade.facts import CONSUMERS, PRODUCERS, SCOPES, FactQuery
from milk_tui.model.percept import Percept

PAGE_SIZE = 100
"""Rows per fetch: a tall terminal shows ~60 rows, so one or two queries fill a screen."""
MAX_CACHED_PAGES = 8
"""Pages kept while scrolling; older ones are dropped so memory stays flat at 100k facts."""

_QUALIFIERS = {
    "scope": "scope", "in": "scope",
    "by": "producer", "producer": "producer", "from": "producer",
    "for": "consumer", "consumer": "consumer", "to": "consumer",
}  # fmt: skip


class FactSource(Protocol):
    """The slice of the facade's ``Facts`` the window reads (kept narrow for fakes in tests)."""

    def count(self, query: FactQuery, session_id: str | None) -> int: ...
    def page(self, query: FactQuery, session_id: str | None, offset: int,
             limit: int) -> list[Percept]: ...  # fmt: skip
    def page_next_to(self, query: FactQuery, session_id: str | None, anchor: Percept | None,
                     limit: int, before: bool = False) -> list[Percept]: ...  # fmt: skip
    def page_at(self, query: FactQuery, session_id: str | None, depth: int,
                limit: int) -> list[Percept] | None: ...  # fmt: skip


def parse_search(raw: str, base: FactQuery) -> tuple[FactQuery, list[str]]:
    """Split ``scope:global by:user for:primary is:pinned words…`` into a query.

    Qualifiers override the filter widgets for this search only; unknown values are
    reported (second item) instead of silently matching nothing.
    """
    errors: list[str] = []
    words: list[str] = []
    q: dict[str, Any] = {}
    try:
        parts = shlex.split(raw)
    except ValueError:
        parts = raw.split()
    for part in parts:
        key, sep, val = part.partition(":")
        key_l, val_l = key.lower(), val.lower()
        if sep and key_l in _QUALIFIERS and val_l:
            name = _QUALIFIERS[key_l]
            allowed = {"scope": SCOPES, "producer": PRODUCERS, "consumer": CONSUMERS}[name]
            if val_l in allowed:
                q[name] = val_l
            else:
                errors.append(f"{key_l}: expects one of {', '.join(allowed)}")
        elif sep and key_l == "is" and val_l in ("pinned", "core", "unpinned"):
            q["pinned"] = val_l != "unpinned"
        else:
            words.append(part)
    return replace(base, text=" ".join(words), **q), errors


@dataclass
class FactWindow:
    """Row access by position for one query, fetching pages on demand."""

    facts: FactSource
    query: FactQuery
    session_id: str | None
    total: int = 0
    pages: dict[int, list[Percept]] = field(default_factory=dict)
    queries: int = 0
    """Fetches so far (count and pages): the benchmark and tests read it."""
    offset_fetches: int = 0
    """Pages fetched by position rather than from a neighbour: tests read it."""
    walks: int = 0
    """Of those past the first, pages read by an OFFSET walk (not ``page_at``'s read of the
    order's index): tests read it."""
    error: str = ""
    """The last storage failure met while painting ("" when none)."""
    defer: Callable[[int], None] | None = None
    """Where a page that only a walk by position reaches is sent to be fetched off the
    painting thread (the table's worker; ``put`` brings it back).  None: fetched inline."""
    pending: set[int] = field(default_factory=set)
    """Pages sent to ``defer`` and not back yet: painted as placeholders."""

    # ----- loading ---------------------------------------------------------------------

    def load(self, first_rows: int = PAGE_SIZE) -> FactWindow:
        """Count and fetch the first page; safe to call from a worker thread."""
        self.recount()
        if first_rows:
            self._fetch(0)
        return self

    def recount(self) -> int:
        self.queries += 1
        self.total = self.facts.count(self.query, self.session_id)
        return self.total

    def invalidate(self) -> None:
        """Forget cached rows (after a change); the next paint refetches only what it shows."""
        self.pages.clear()
        self.pending.clear()  # a page in flight was read before the change: read it again

    def _fetch(self, page: int) -> list[Percept] | None:
        """The page, fetched now; None when it was sent to ``defer`` instead."""
        rows = self._keyset(page)
        if rows is None:  # a jump (the scrollbar dragged, a search's ranked pages): by position
            if self.defer is not None and page:
                if page not in self.pending:
                    self.pending.add(page)
                    self.defer(page)
                return None
            rows = self.by_position(page)
        else:
            self.queries += 1
        self.put(page, rows)
        return rows

    def by_position(self, page: int) -> list[Percept]:
        """The page at its position: from the order's index alone where the query allows
        (``page_at``: ~12 ms at a million facts), else by LIMIT/OFFSET, which at depth in a
        large store walks every row up to it (hundreds of ms).  The table runs it in a
        worker thread; safe there."""
        self.queries += 1
        self.offset_fetches += 1
        depth = page * PAGE_SIZE
        if page:
            rows = self.facts.page_at(self.query, self.session_id, depth, PAGE_SIZE)
            if rows is not None:
                return rows
        self.walks += page > 0
        return self.facts.page(self.query, self.session_id, depth, PAGE_SIZE)

    def next_to(self, rows: list[Percept], *, before: bool = False) -> list[Percept] | None:
        """The page after ``rows`` (a full page just read) from its last key, or the page
        before it from its first; None when that is not how this query pages (a search's
        ranked pages).  Safe in a worker."""
        if self.query.text or not rows or (len(rows) < PAGE_SIZE and not before):
            return None
        self.queries += 1
        key = rows[0] if before else rows[-1]
        return self.facts.page_next_to(self.query, self.session_id, key, PAGE_SIZE, before=before)

    def put(self, page: int, rows: list[Percept]) -> None:
        """Keep a fetched page (a deferred one arrives here on the painting thread)."""
        self.pending.discard(page)
        if len(self.pages) >= MAX_CACHED_PAGES:
            far = max(self.pages, key=lambda p: abs(p - page))
            del self.pages[far]
        self.pages[page] = rows

    def _keyset(self, page: int) -> list[Percept] | None:
        """The page from a neighbour already cached, or the last page from the end; None
        when neither applies (then an OFFSET walk is the only way there)."""
        if self.query.text:
            return None
        q, sid = self.query, self.session_id
        prev, nxt = self.pages.get(page - 1), self.pages.get(page + 1)
        if prev is not None and len(prev) == PAGE_SIZE:
            return self.facts.page_next_to(q, sid, prev[-1], PAGE_SIZE)
        if nxt:
            return self.facts.page_next_to(q, sid, nxt[0], PAGE_SIZE, before=True)
        last = max(self.total - 1, 0) // PAGE_SIZE
        if page == last and page > 0:
            return self.facts.page_next_to(q, sid, None, self.total - page * PAGE_SIZE, before=True)
        return None

    # ----- access ----------------------------------------------------------------------

    def row(self, index: int) -> Percept | None:
        """The fact at ``index``; None past the end or when the page could not be read
        (painting must never raise — the error is kept in ``error`` for the status line)."""
        if not 0 <= index < self.total:
            return None
        page, pos = divmod(index, PAGE_SIZE)
        rows = self.pages.get(page)
        if rows is None:
            try:
                rows = self._fetch(page)
            except StorageError as e:
                self.error = str(e)
                return None
            if rows is None:
                return None  # on its way (``pending``)
        return rows[pos] if pos < len(rows) else None

    def is_pending(self, index: int) -> bool:
        return index // PAGE_SIZE in self.pending

    def cached_index(self, pid: int) -> int | None:
        """Position of fact ``pid`` if it is in a cached page (no query)."""
        for page, rows in self.pages.items():
            for pos, p in enumerate(rows):
                if p.id == pid:
                    return page * PAGE_SIZE + pos
        return None

    def patch(self, percept: Percept) -> bool:
        """Replace a cached row in place (same position); False when it is not cached."""
        for rows in self.pages.values():
            for pos, p in enumerate(rows):
                if p.id == percept.id:
                    rows[pos] = percept
                    return True
        return False
