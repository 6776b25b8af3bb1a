"""Sessions as the TUI and the CLI use them: list, find, load, create, rename, delete, and
each session's input history.  Switching the live session is the application's
(``Application.switch_session``): only the dispatcher may change it between turns.

Listing counts every session's turns (6-10 ms for every folder at 600 sessions of 100
turns), so the UI calls ``arecent`` and the other ``a…`` variants, which run in a worker thread; the database
connection is shared with that thread under the ``Database`` lock.  Renames, deletes and
input lines touch one row (< 1 ms) and also have async variants for symmetry of use.
"""

from __future__ import annotations

import asyncio

from milk_tui.engine.open_store import HISTORY_TAIL
from milk_tui.model.session import Session
from milk_tui.storage.sessions import SessionStore, SessionSummary

__all__ = ["SessionCatalog", "SessionSummary"]

LIST_LIMIT = 500
"""Sessions shown per view; one folder rarely holds more than a few hundred."""


class SessionCatalog:
    """Every method may raise ``StorageError``."""

    def __init__(self, store: SessionStore) -> None:
        self._store = store

    def recent(
        self, cwd: str | None, limit: int = LIST_LIMIT, keep: str = ""
    ) -> list[SessionSummary]:
        """Sessions of ``cwd`` (every folder when None), most recently used first; an empty
        unnamed one only when it is ``keep`` (``SessionStore.list``)."""
        return self._store.list(cwd, limit, keep)

    async def arecent(
        self, cwd: str | None, limit: int = LIST_LIMIT, keep: str = ""
    ) -> list[SessionSummary]:
        return await asyncio.to_thread(self._store.list, cwd, limit, keep)

    def find(
        self,
        cwd: str,
        name_or_id: str = "",
        *,
        any_folder: bool = False,
        full_id_anywhere: bool = False,
    ) -> str | None:
        """The id of the session ``name_or_id`` addresses in ``cwd`` (a name, a full id or
        an id prefix of 8+ characters; any folder with ``any_folder``; a full id in any
        folder with ``full_id_anywhere``), or of the folder's most recent session when it is
        "".  An ambiguous prefix raises ``StorageError`` listing the candidates."""
        return self._store.find(
            cwd, name_or_id, any_folder=any_folder, full_id_anywhere=full_id_anywhere
        )

    def load(self, session_id: str) -> Session | None:
        """A field that cannot be read is dropped; ``take_warnings`` then names the session.
        Held tail first, as at resume: older turns are read when something reaches them
        (model/turn_history.py), so a long session opens as fast as a short one."""
        return self._store.load(session_id, tail=HISTORY_TAIL)

    def take_warnings(self) -> list[str]:
        """One line per session loaded with an unreadable field dropped, since the last call."""
        return self._store.take_warnings()

    def create(self, cwd: str, name: str = "") -> Session:
        return self._store.create(cwd, name)

    def rename(self, session_id: str, name: str) -> None:
        self._store.rename(session_id, name)

    async def arename(self, session_id: str, name: str) -> None:
        await asyncio.to_thread(self._store.rename, session_id, name)

    def delete(self, session_id: str) -> None:
        self._store.delete(session_id)

    async def adelete(self, session_id: str) -> None:
        await asyncio.to_thread(self._store.delete, session_id)

    # ----- input history ----------------------------------------------------------------

    def inputs(self, session_id: str | None) -> list[str]:
        """Prompts typed in ``session_id`` (every session when None), oldest first."""
        return self._store.inputs(session_id)

    def add_input(self, text: str, session_id: str) -> None:
        self._store.add_input(text, session_id)
