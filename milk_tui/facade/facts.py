"""Remembered facts as the TUI and the CLI use them: remember, edit, pin, forget, undo, and a
query (``FactQuery``) answered by count and by page.

Every change goes through ``MemoryService``, which publishes a percept event on the bus, so
a view learns of its own edits the same way it learns of an agent's.  Reads have ``a…``
variants that run in a worker thread: the database connection is shared with that thread
under the ``Database`` lock, so a slow full-text search never holds the event loop.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

from milk_tui.memory.service import MemoryService
from milk_tui.memory.store import PerceptFilter
from milk_tui.model.percept import DEFAULT_SCOPE as DEFAULT_SCOPE  # named here too
from milk_tui.model.percept import Percept

SCOPES = ("here", "session", "global", "all")
"""here = facts visible in this session (global ∪ session); all = every session's facts."""
PRODUCERS = ("user", "primary", "escalation", "system")
CONSUMERS = ("all", "primary", "escalation")
ORDERS = ("recent", "weight", "id")
"""Orders the store can serve from an index; "recent" puts what agents just wrote on top."""


ListScope = Literal["session", "global", "all"] | None
"""The CLI's ``memory list --scope``: None = visible in the folder's session."""


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


class Facts:
    """The fact commands; every method may raise ``StorageError`` (and edits ``KeyError``
    for an unknown id or ``ValueError`` for an invalid value)."""

    def __init__(self, memory: MemoryService) -> None:
        self._memory = memory

    # ----- changes (one row each: they stay on the caller's thread) --------------------

    def remember(self, content: str, *, producer: str = "user", consumer: str = "all",
                 scope: str = DEFAULT_SCOPE, session_id: str = "", core: bool = False,
                 weight: float | None = None) -> Percept | None:  # fmt: skip
        """Record a fact the user wrote (None when ``content`` is blank); a near-duplicate is
        reinforced.  The scope is the user's choice: end-of-session promotion keeps it."""
        return self._memory.record(content, producer=producer, consumer=consumer, scope=scope,
                                   session_id=session_id, core=core, weight=weight,
                                   scope_chosen=True)  # fmt: skip

    def edit(self, pid: int, *, content: str | None = None, consumer: str | None = None,
             core: bool | None = None, weight: float | None = None,
             scope: str | None = None) -> Percept:  # fmt: skip
        return self._memory.edit(pid, content=content, consumer=consumer, core=core,
                                 weight=weight, scope=scope)  # fmt: skip

    def pin(self, pid: int, pinned: bool = True) -> Percept:
        return self._memory.pin(pid, pinned)

    def forget(self, pid: int) -> bool:
        """Delete a fact; False when there is no such fact.  Undoable."""
        return self._memory.delete(pid)

    def undo(self, pid: int | None = None) -> Percept | None:
        """Revert the latest edit, pin or delete (of ``pid``, or of any fact); None if none."""
        return self._memory.undo_last_edit(pid)

    # ----- reads --------------------------------------------------------------------------

    def get(self, pid: int) -> Percept | None:
        return self._memory.get(pid)

    def find(self, text: str, limit: int = 10) -> list[Percept]:
        """Facts matching ``text`` (full-text, best first), any session."""
        return self._memory.search(text, limit=limit)

    def listing(self, scope: ListScope, session_id: str, search: str = "",
                limit: int = 200) -> list[Percept]:  # fmt: skip
        """The CLI's list: by weight, or by relevance when ``search`` is given."""
        if scope == "session" and not session_id:
            return []
        flt = {
            None: PerceptFilter(session_id=session_id),
            "session": PerceptFilter(scope="session", session_id=session_id),
            "global": PerceptFilter(scope="global"),
            "all": PerceptFilter(),
        }[scope]
        if search.strip():
            return self._memory.search(search, flt, limit=limit)
        return self._memory.list(flt, limit=limit)

    def count(self, query: FactQuery, session_id: str | None) -> int:
        flt = query.to_filter(session_id)
        if query.text:
            return self._memory.search_count(query.text, flt)
        return self._memory.count(flt)

    def page(self, query: FactQuery, session_id: str | None, offset: int,
             limit: int) -> list[Percept]:  # fmt: skip
        flt = query.to_filter(session_id)
        if query.text:
            return self._memory.search(query.text, flt, limit=limit, offset=offset)
        return self._memory.list(flt, limit=limit, offset=offset, order=query.order)

    def page_next_to(self, query: FactQuery, session_id: str | None, anchor: Percept | None,
                     limit: int, before: bool = False) -> list[Percept]:  # fmt: skip
        """The ``limit`` facts right after ``anchor`` in the query's order (right before it
        with ``before``; the last ones with no anchor): O(page) at any depth.  A search's
        pages are ranked, not keyed: it pages by position (``page``)."""
        flt = query.to_filter(session_id)
        return self._memory.list_from(flt, query.order, anchor, limit, before)

    def page_at(self, query: FactQuery, session_id: str | None, depth: int,
                limit: int) -> list[Percept] | None:  # fmt: skip
        """The page at ``depth`` read from the order's index and the scope's (~12 ms at a
        million facts, where an OFFSET walk takes hundreds); None when the query can only
        be paged by position (``page``): a search, or a producer, consumer or pinned
        filter."""
        if query.text:
            return None
        return self._memory.page_at(query.to_filter(session_id), query.order, depth, limit)

    async def acount(self, query: FactQuery, session_id: str | None) -> int:
        return await asyncio.to_thread(self.count, query, session_id)

    async def apage(self, query: FactQuery, session_id: str | None, offset: int,
                    limit: int) -> list[Percept]:  # fmt: skip
        return await asyncio.to_thread(self.page, query, session_id, offset, limit)
