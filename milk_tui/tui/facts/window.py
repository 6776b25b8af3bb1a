"""The fact browser's data side: a query and a sparse page cache over the memory service.

The browser never holds more than a few pages of facts, whatever the store size: the
table asks for row ``i`` while painting and we fetch the page around it with one
LIMIT/OFFSET (or FTS) query.  A new query builds a new ``FactWindow`` instead of mutating
this one, so a search computed in a worker thread can be swapped in atomically.
No Textual here; the window is unit-testable and benchmarkable on its own.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from milk_tui.memory.store import PerceptFilter
from milk_tui.model.percept import Percept
from milk_tui.storage.db import StorageError

PAGE_SIZE = 100
"""Rows per fetch: a tall terminal shows ~60 rows, so one or two queries fill a screen."""
MAX_CACHED_PAGES = 8
"""Pages kept while scrolling; older ones are dropped so memory stays flat at 100k facts."""

SCOPES = ("here", "session", "global", "all")
"""here = facts visible in this session (global ∪ session); all = every session's facts."""
PRODUCERS = ("user", "primary", "escalation", "system")
CONSUMERS = ("all", "primary", "escalation")
ORDERS = ("recent", "weight", "id")
"""Orders the store can serve from an index; "recent" puts what agents just wrote on top."""

_QUALIFIERS = {
    "scope": "scope", "in": "scope",
    "by": "producer", "producer": "producer", "from": "producer",
    "for": "consumer", "consumer": "consumer", "to": "consumer",
}  # fmt: skip


class BrowseFilter(PerceptFilter):
    """``PerceptFilter`` tuned for browsing: "visible here" without the OR on the scope index.

    The store's clause ``scope = 'global' OR (scope = 'session' AND session_id = ?)`` makes
    SQLite collect every matching row through the scope index and sort them all before
    LIMIT — ~350 ms per page at 100,000 facts.  Unary ``+`` keeps the clause's meaning but
    takes those columns off the index, so SQLite walks the ORDER BY index instead and stops
    after one page (< 1 ms).  Most facts are visible in the current session, so the walk
    rarely skips many rows.
    """

    def where(self) -> tuple[str, list[Any]]:
        sql, params = super().where()
        here = "(p.scope = 'global' OR (p.scope = 'session' AND p.session_id = ?))"
        fast = "(+p.scope = 'global' OR (+p.scope = 'session' AND +p.session_id = ?))"
        return sql.replace(here, fast), params


class MemoryLike(Protocol):
    """The slice of ``MemoryService`` the browser reads (kept narrow for fakes in tests)."""

    def list(self, filters: PerceptFilter | None = ..., limit: int = ..., offset: int = ...,
             order: str = ...) -> list[Percept]: ...  # fmt: skip
    def count(self, filters: PerceptFilter | None = ...) -> int: ...
    def search(self, query: str, filters: PerceptFilter | None = ..., limit: int = ...,
               offset: int = ...) -> list[Percept]: ...  # fmt: skip
    def search_count(self, query: str, filters: PerceptFilter | None = ...) -> int: ...


@dataclass(frozen=True)
class FactQuery:
    """What the user asked to see: free text (FTS) plus the three filters and an order."""

    text: str = ""
    scope: str = "here"
    producer: str | None = None
    consumer: str | None = None
    pinned: bool | None = None
    order: str = "recent"

    def to_filter(self, session_id: str | None) -> PerceptFilter:
        scope = self.scope
        if session_id is None and scope in ("here", "session"):
            scope = "all" if scope == "here" else "session"
        flt = BrowseFilter(producer=self.producer, consumer=self.consumer, core=self.pinned)
        if scope == "here":
            flt.session_id = session_id
        elif scope == "session":
            flt.scope, flt.session_id = "session", session_id
        elif scope == "global":
            flt.scope = "global"
        return flt

    def describe(self) -> str:
        parts = [{"here": "visible here", "session": "this session", "global": "global",
                  "all": "all sessions"}[self.scope]]  # fmt: skip
        if self.producer:
            parts.append(f"by {self.producer}")
        if self.consumer:
            parts.append(f"for {self.consumer}")
        if self.pinned is not None:
            parts.append("pinned" if self.pinned else "not pinned")
        if self.text:
            parts.append(f"“{self.text}”")
        return " · ".join(parts)


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

    memory: MemoryLike
    query: FactQuery
    session_id: str | None
    total: int = 0
    pages: dict[int, list[Percept]] = field(default_factory=dict)
    queries: int = 0
    """Fetches so far (count and pages): the benchmark and tests read it."""
    error: str = ""
    """The last storage failure met while painting ("" when none)."""

    def __post_init__(self) -> None:
        self._filter = self.query.to_filter(self.session_id)

    # ----- loading ---------------------------------------------------------------------

    def load(self, first_rows: int = PAGE_SIZE) -> FactWindow:
        """Count and fetch the first page; safe to call from a worker thread."""
        self.recount()
        if first_rows:
            self._fetch(0)
        return self

    def recount(self) -> int:
        self.queries += 1
        q = self.query
        self.total = (self.memory.search_count(q.text, self._filter) if q.text
                      else self.memory.count(self._filter))  # fmt: skip
        return self.total

    def invalidate(self) -> None:
        """Forget cached rows (after a change); the next paint refetches only what it shows."""
        self.pages.clear()

    def _fetch(self, page: int) -> list[Percept]:
        self.queries += 1
        q, off = self.query, page * PAGE_SIZE
        rows = (self.memory.search(q.text, self._filter, limit=PAGE_SIZE, offset=off) if q.text
                else self.memory.list(self._filter, limit=PAGE_SIZE, offset=off, order=q.order))  # fmt: skip
        if len(self.pages) >= MAX_CACHED_PAGES:
            far = max(self.pages, key=lambda p: abs(p - page))
            del self.pages[far]
        self.pages[page] = rows
        return rows

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
        return rows[pos] if pos < len(rows) else None

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
