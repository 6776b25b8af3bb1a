"""The one entry point to shared memory for the dispatcher, the TUI, tools and the CLI.

Every mutation is one transaction followed by its bus event, so the memory browser and
the stream-json output see exactly what was committed.  Facts an agent writes while the
database is locked or failing are kept in memory and retried on the next write instead
of being lost; the failure is reported once as a ``notice`` naming the database.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
import time
from dataclasses import asdict
from typing import Any, Protocol, Unpack

from milk_tui.memory import store_keyset
from milk_tui.memory.consolidate import ConsolidationReport, consolidate_in
from milk_tui.memory.dedup import jaccard, tokenize, tokens
from milk_tui.memory.select import SelectionCaps, format_block, select_contents
from milk_tui.memory.store import ListPage, PerceptFilter, PerceptStore, SearchPage
from milk_tui.model.events import BusEvent, Notice, PerceptDeleted, PerceptRecorded, PerceptUpdated
from milk_tui.model.percept import Consumer, Percept, Producer, Scope, initial_weight
from milk_tui.model.tags import consumer_from_hint
from milk_tui.storage.db import StorageError


class Publisher(Protocol):
    """Where committed changes are announced (the engine's event bus)."""

    def publish(self, event: BusEvent) -> None: ...


BULK_EVENT_LIMIT = 500
"""Above this many changed facts a consolidation publishes one reload event (percept_id 0)
instead of one event per fact: a browser re-queries once rather than re-rendering 50k times."""
MAX_FACTS_PER_REPLY = 200
"""Facts kept from one reply; the rest are dropped with a notice.  A reply that writes more
is runaway output, and every fact costs a duplicate check inside the turn's transaction."""
REINFORCE_STEP = 0.10
"""A re-recorded near-duplicate gains one session's worth of decay back
(docs/adr/0005-percepts-in-sqlite-fts5.md)."""


class MemoryService:
    def __init__(self, store: PerceptStore, bus: Publisher) -> None:
        self.store = store
        self.bus = bus
        self.pending: list[dict[str, Any]] = []
        """Agent facts not yet written because the database failed; retried on next write."""

    # ----- recording -------------------------------------------------------------------

    def record_from_agent(
        self,
        body: str,
        producer: str,
        session_id: str,
        turn_index: int,
        primary_name: str,
        escalation_name: str,
        *,
        consumer: str | None = None,
    ) -> Percept | None:
        """A fact an agent wrote (tag or ``record_memory`` tool), in its own transaction;
        ``consumer`` None reads the ``@name:`` hint from the body.  Never raises
        StorageError: the fact is kept pending."""
        args = self.agent_fact(
            body, producer, session_id, turn_index, primary_name, escalation_name, consumer=consumer
        )
        return self.record_or_keep(args)

    def record_or_keep(self, args: dict[str, Any]) -> Percept | None:
        """``record(**args)`` in its own transaction, or kept pending (with a notice) when
        the database fails."""
        session_id = args.get("session_id", "")
        try:
            self.flush_pending()
            return self.record(**args)
        except StorageError as e:
            self.pending.append(args)
            self.bus.publish(Notice(
                level="error", session_id=session_id,
                message=f"memory: fact kept in memory, not yet saved ({len(self.pending)} pending): {e}",
            ))  # fmt: skip
            return None

    @staticmethod
    def agent_fact(body: str, producer: str, session_id: str, turn_index: int, primary_name: str,
                   escalation_name: str, *, consumer: str | None = None) -> dict[str, Any]:  # fmt: skip
        """``record``'s arguments for a fact an agent wrote; ``consumer`` None reads the
        ``@name:`` hint from the body."""
        if consumer is None:
            consumer, content = consumer_from_hint(body, primary_name, escalation_name)
        else:
            content = body
        return dict(content=content, producer=producer, consumer=consumer, scope="session",
                    session_id=session_id, turn_index=turn_index)  # fmt: skip

    def record_all_in(
        self, conn: sqlite3.Connection, facts: builtins.list[dict[str, Any]]
    ) -> builtins.list[BusEvent]:
        """Write ``facts`` (``record``'s arguments) inside the caller's transaction — with
        the facts kept pending from earlier failures; the events to ``publish`` once the
        transaction committed (``committed_pending`` then forgets those pending facts)."""
        events: builtins.list[BusEvent] = []
        for args in [*self.pending, *facts]:
            done = self._record_in(conn, args)
            if done is not None:
                events.append(done[1])
        return events

    def committed(self, events: builtins.list[BusEvent], pending_written: int) -> None:
        """After ``record_all_in``'s transaction committed: announce it, drop what it flushed."""
        del self.pending[:pending_written]
        for event in events:
            self.bus.publish(event)

    def flush_pending(self) -> int:
        """Write facts that failed earlier; raises StorageError (keeping them) if it fails again."""
        done = 0
        while self.pending:
            self.record(**self.pending[0])
            self.pending.pop(0)
            done += 1
        return done

    def record(
        self,
        content: str,
        producer: str = "user",
        consumer: str = "all",
        scope: str = "session",
        session_id: str = "",
        turn_index: int = 0,
        core: bool = False,
        weight: float | None = None,
        *,
        scope_chosen: bool = False,
    ) -> Percept | None:
        """``scope_chosen``: the user picked ``scope``; end-of-session promotion keeps it."""
        args = dict(content=content, producer=producer, consumer=consumer, scope=scope,
                    session_id=session_id, turn_index=turn_index, core=core, weight=weight,
                    scope_chosen=scope_chosen)  # fmt: skip
        with self.store.db.transaction() as conn:
            done = self._record_in(conn, args)
        if done is None:
            return None
        self.bus.publish(done[1])
        return done[0]

    def _record_in(
        self, conn: sqlite3.Connection, args: dict[str, Any]
    ) -> tuple[Percept, PerceptRecorded] | None:
        """``record`` inside the caller's transaction; ``args`` are ``record``'s arguments
        (the defaults for those left out)."""
        content = str(args["content"]).strip()
        if not content:
            return None
        # "" is how imported facts and the tool schemas spell "both agents"
        producer = Producer(args.get("producer", "user")).value
        consumer = Consumer(args.get("consumer") or "all").value
        scope, session_id = args.get("scope", "session"), args.get("session_id", "")
        turn_index, core = args.get("turn_index", 0), bool(args.get("core", False))
        weight, scope_chosen = args.get("weight"), bool(args.get("scope_chosen", False))
        if core or not session_id:
            scope = Scope.GLOBAL.value
        scope = Scope(scope).value
        w = initial_weight(producer, core) if weight is None else _clamp(weight)
        now = time.time()
        dup = self._find_duplicate(conn, content, session_id)
        if dup is not None:
            new_w = min(1.0, max(dup.weight + REINFORCE_STEP, w))
            fields: dict[str, Any] = {"weight": new_w, "updated_at": now}
            if core and not dup.core:
                fields.update(core=True, scope=Scope.GLOBAL.value, weight=1.0)
            self.store.update(conn, dup.id, fields)
            p = self.store.get(dup.id, conn)
            reinforced = True
        else:
            p = Percept(id=0, content=content, producer=producer, consumer=consumer,
                        scope=scope, core=core, weight=w, created_at=now, updated_at=now,
                        session_id=session_id,
                        turn_index=turn_index)  # fmt: skip
            p.id = self.store.insert(conn, p)
            reinforced = False
        if scope_chosen and p is not None and p.scope == scope:
            self.store.update(conn, p.id, {"scope_chosen": True})
        assert p is not None
        return p, PerceptRecorded(
            session_id=session_id, percept_id=p.id, content=p.content, producer=p.producer,
            consumer=p.consumer, reinforced=reinforced,
        )  # fmt: skip

    def _find_duplicate(self, conn: Any, content: str, session_id: str) -> Percept | None:
        """Best Jaccard ≥ 0.60 among FTS candidates (global first, then session; ties keep
        the earlier).  A content without tokens is never a duplicate."""
        words = tokens(content)
        if not words:
            return None
        mine = frozenset(words)
        best_id, best = 0, 0.0
        # ties keep the earlier fact: global before session, then lower id
        for pid, terms in self.store.duplicate_candidates(conn, words, session_id):
            j = jaccard(mine, frozenset(terms.split()))
            if j > best:
                best_id, best = pid, j
        if best_id and best >= 0.60:
            return self.store.get(best_id, conn)
        return None

    def similarity(self, a: str, b: str) -> float:
        return jaccard(tokenize(a), tokenize(b))

    # ----- selection ----------------------------------------------------------------------

    def select_for_prompt(
        self,
        prompt: str,
        slot: str,
        session_id: str,
        **caps: Unpack[SelectionCaps],
    ) -> list[str]:
        """``select_contents`` with a database failure reported as ``StorageError``."""
        try:
            return select_contents(self.store, prompt, slot, session_id, **caps)
        except sqlite3.Error as e:  # a read-side failure must fail soft, like writes do
            raise self.store.db.failure(e) from None

    @staticmethod
    def format_block(contents: list[str]) -> str:
        return format_block(contents)

    # ----- browsing (virtualised table friendly: LIMIT/OFFSET + FTS) ------------------------

    def list(self, filters: PerceptFilter | None = None, **page: Unpack[ListPage]) -> list[Percept]:
        return self.store.list(filters, **page)

    def list_from(self, filters: PerceptFilter, order: str, anchor: Percept | None,
                  limit: int, before: bool = False) -> builtins.list[Percept]:  # fmt: skip
        """The page next to ``anchor`` (``store_keyset.list_from``)."""
        return store_keyset.list_from(self.store.db, filters, order, anchor, limit, before)

    def page_at(self, filters: PerceptFilter, order: str, depth: int,
                limit: int) -> builtins.list[Percept] | None:  # fmt: skip
        """The page at ``depth`` without walking the rows up to it; None when only an
        OFFSET walk serves ``filters`` (``store_keyset.page_at``)."""
        return store_keyset.page_at(self.store.db, filters, order, depth, limit)

    def count(self, filters: PerceptFilter | None = None) -> int:
        return self.store.count(filters)

    def search(
        self, query: str, filters: PerceptFilter | None = None, **page: Unpack[SearchPage]
    ) -> builtins.list[Percept]:
        return self.store.search(query, filters, **page, count=False)[0]

    def search_count(self, query: str, filters: PerceptFilter | None = None) -> int:
        return self.store.search(query, filters, 0, 0)[1]

    def get(self, pid: int) -> Percept | None:
        return self.store.get(pid)

    def history(self, pid: int) -> builtins.list[dict[str, Any]]:
        return self.store.history(pid)

    # ----- user edits (undoable) -----------------------------------------------------------

    def edit(
        self,
        pid: int,
        content: str | None = None,
        consumer: str | None = None,
        core: bool | None = None,
        weight: float | None = None,
        scope: str | None = None,
        editor: str = "user",
        action: str = "edit",
    ) -> Percept:
        with self.store.db.transaction() as conn:
            p = self.store.get(pid, conn)
            if p is None:
                raise KeyError(f"no remembered fact #{pid}")
            want: dict[str, Any] = {}
            if content is not None and content.strip() and content.strip() != p.content:
                want["content"] = content.strip()
            if consumer is not None and Consumer(consumer).value != p.consumer:
                want["consumer"] = Consumer(consumer).value
            if scope is not None and Scope(scope).value != p.scope:
                want["scope"] = Scope(scope).value
            if weight is not None and _clamp(weight) != p.weight:
                want["weight"] = _clamp(weight)
            if core is not None and core != p.core:
                want["core"] = core
                if core:  # pinned facts are global and at full confidence
                    want["scope"], want["weight"] = Scope.GLOBAL.value, 1.0
            if not want:
                return p
            want["updated_at"] = time.time()
            before = {k: getattr(p, k) for k in want}
            self.store.update(conn, pid, want)
            self.store.log_edit(conn, pid, action, editor, before, want)
            if "scope" in want and editor == "user":
                self.store.update(conn, pid, {"scope_chosen": True})
            after = self.store.get(pid, conn)
        assert after is not None
        self.bus.publish(PerceptUpdated(percept_id=pid, content=after.content, fields=dict(want)))
        return after

    def pin(self, pid: int, pinned: bool = True, editor: str = "user") -> Percept:
        return self.edit(pid, core=pinned, editor=editor, action="pin" if pinned else "unpin")

    def delete(self, pid: int, editor: str = "user") -> bool:
        with self.store.db.transaction() as conn:
            p = self.store.get(pid, conn)
            if p is None:
                return False
            self.store.log_edit(conn, pid, "delete", editor, asdict(p), {})
            self.store.remove(conn, [pid])
        self.bus.publish(PerceptDeleted(percept_id=pid, session_id=p.session_id))
        return True

    def undo_last_edit(self, pid: int | None = None) -> Percept | None:
        """Revert the most recent edit/pin/delete (of ``pid``, or of any fact)."""
        with self.store.db.transaction() as conn:
            row = self.store.last_edit(conn, pid)
            if row is None:
                return None
            before = json.loads(row["before"])
            target = row["percept_id"]
            conn.execute("DELETE FROM percept_edits WHERE id = ?", (row["id"],))
            if row["action"] == "delete":
                self.store.restore(conn, Percept(**before))
                restored, fields = True, before
            else:
                if self.store.get(target, conn) is None:
                    return None
                self.store.update(conn, target, before)
                restored, fields = False, before
            p = self.store.get(target, conn)
        assert p is not None
        if restored:
            self.bus.publish(PerceptRecorded(percept_id=p.id, content=p.content,
                                             producer=p.producer, consumer=p.consumer))  # fmt: skip
        else:
            self.bus.publish(
                PerceptUpdated(percept_id=p.id, content=p.content, fields=dict(fields))
            )
        return p

    # ----- consolidation -------------------------------------------------------------------

    def consolidate(self, session_id: str, store_max: int = 0) -> ConsolidationReport:
        try:
            self.flush_pending()
        except StorageError:
            pass  # keep them pending; consolidation below reports the same failure if any
        with self.store.db.transaction() as conn:
            rep = consolidate_in(conn, self.store, session_id, store_max)
        changed = len(rep.decayed) + len(rep.pruned) + len(rep.capped)
        if changed > BULK_EVENT_LIMIT:
            # One "reload" event instead of a flood: percept_id 0 means "re-query everything".
            self.bus.publish(PerceptUpdated(percept_id=0, session_id=session_id, fields={
                "reload": True, "decayed": len(rep.decayed), "pruned": len(rep.pruned),
                "promoted": len(rep.promoted), "capped": len(rep.capped)}))  # fmt: skip
            return rep
        promoted = set(rep.promoted)
        for pid, w in rep.decayed:
            fields: dict[str, Any] = {"weight": w}
            if pid in promoted:
                fields["scope"] = Scope.GLOBAL.value
            self.bus.publish(PerceptUpdated(percept_id=pid, session_id=session_id, fields=fields))
        for pid in rep.pruned + rep.capped:
            self.bus.publish(PerceptDeleted(percept_id=pid, session_id=session_id))
        return rep


def _clamp(w: float) -> float:
    return min(1.0, max(0.0, float(w)))
