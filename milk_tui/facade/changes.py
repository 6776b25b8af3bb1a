"""Noticing what other processes wrote: the CLI (``memory add``, ``sessions``) or a ``-p``
run change the database an open TUI shows.

``ChangeWatch.check`` compares SQLite's data version with the last one seen (a cheap read);
when it moved, it reloads the live session if another process committed to it (its row's
``version`` moved: one indexed read, whatever the session's length), held tail first as at
resume (engine/open_store.py ``HISTORY_TAIL``), and the application
publishes ``SessionChanged`` (then) and ``StoreChanged`` so the panes refresh.  While a turn runs it
does nothing and leaves the version unseen: the turn's own commit must not be replaced by a
reload, and the next check (after the turn) picks the change up.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from milk_tui.engine.open_store import HISTORY_TAIL
from milk_tui.model import events as ev

if TYPE_CHECKING:
    from milk_tui.engine.runtime import Runtime


class ChangeWatch:
    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._seen = runtime.db.data_version()
        self._checking = False

    async def check(self) -> ev.StoreChanged | None:
        """After another process's writes: reload the live session when its stored copy
        differs, and return the event to publish; None when nothing changed (or not now)."""
        rt = self._runtime
        if self._checking or rt.dispatcher.busy:
            return None
        self._checking = True
        try:
            version = await asyncio.to_thread(rt.db.data_version)
            if version == self._seen:
                return None
            live = rt.dispatcher.session
            stored_version = await asyncio.to_thread(rt.store.version, live.id)
            stored = None
            if stored_version is not None and stored_version != live.stored.get("version"):
                stored = await asyncio.to_thread(rt.store.load, live.id, tail=HISTORY_TAIL)
            if rt.dispatcher.busy or rt.dispatcher.session is not live:
                return None  # a turn or a switch started meanwhile: look again later
            self._seen = version
            if stored is not None:
                rt.dispatcher.session = stored
            return ev.StoreChanged(session_reloaded=stored is not None)
        finally:
            self._checking = False
