"""Token usage for ``/usage`` and ``milk-tui usage``: per (model, role) totals and a series
over time, for this session, this folder or all time (storage/usage_log.py).

Reading every folder's usage groups the whole log (0.1-0.25 s at 100,000 rows,
bench/usage_log.py), so the UI uses ``ascopes``, which runs in a worker thread under the
``Database`` lock.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from milk_tui.model.usage import (
    SCOPE_TITLES,
    SCOPES,
    UsagePoint,
    UsageRow,
    UsageScope,
    cache_hit_pct,
    total_row,
)
from milk_tui.storage.db import Database
from milk_tui.storage.usage_log import UsageLog

__all__ = [
    "SCOPES",
    "SCOPE_TITLES",
    "ScopeUsage",
    "UsagePoint",
    "UsageReport",
    "UsageRow",
    "UsageScope",
    "cache_hit_pct",
    "total_row",
]


@dataclass(frozen=True, slots=True)
class ScopeUsage:
    scope: UsageScope
    rows: list[UsageRow]
    series: list[UsagePoint]

    @property
    def total(self) -> UsageRow:
        return total_row(self.rows)


class UsageReport:
    """Usage as seen from one folder and (optionally) one session.  Methods may raise
    ``StorageError``."""

    def __init__(self, db: Database, cwd: str, session_id: str = "") -> None:
        self._log = UsageLog(db)
        self.cwd = cwd
        self.session_id = session_id

    def _key(self, scope: UsageScope) -> str:
        return {"session": self.session_id, "folder": self.cwd, "all": ""}[scope]

    def rows(self, scope: UsageScope) -> list[UsageRow]:
        """Per (model, role), most expensive first."""
        return self._log.totals(scope, self._key(scope))

    def scope(self, scope: UsageScope, *, utc_offset: int | None = None) -> ScopeUsage:
        """Totals and the series (per turn for a session, per local day otherwise)."""
        key = self._key(scope)
        return ScopeUsage(
            scope, self._log.totals(scope, key), self._log.series(scope, key, utc_offset=utc_offset)
        )

    async def ascopes(self, *, utc_offset: int | None = None) -> list[ScopeUsage]:
        """The three scopes, read in a worker thread (session first when there is one)."""
        wanted = [s for s in SCOPES if s != "session" or self.session_id]
        return await asyncio.to_thread(
            lambda: [self.scope(s, utc_offset=utc_offset) for s in wanted]
        )
