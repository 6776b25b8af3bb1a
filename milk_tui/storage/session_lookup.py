"""Which session a user means: ``--session NAME``, ``sessions show KEY``, or none (the
folder's latest session with a turn, else its latest).

A key is a session name, a full id, or an id prefix of at least ``MIN_ID_PREFIX``
characters, looked up in the current folder only — another folder's session is reached
only when the caller asks for any folder (``--any-folder``), or, for a caller that only reads
(``sessions show``), by its full id, which cannot mean another session.  Keys are compared as
exact values (``=`` and ``substr``), never as ``LIKE`` patterns, so ``%`` or ``_`` in a
key match only themselves.  A prefix that fits several sessions is an error listing them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from milk_tui.model.errors import StorageError

MIN_ID_PREFIX = 8
"""An id prefix shorter than this is too likely to fit a session the user did not mean."""
_SHOW_CANDIDATES = 10

Query = Callable[[str, tuple], list[sqlite3.Row]]


class SessionLookupError(StorageError):
    """The key fits more than one session."""


def lookup(
    query: Query, cwd: str, key: str, any_folder: bool = False, full_id_anywhere: bool = False
) -> str | None:
    """The id of the session ``key`` addresses (the folder's most recent when ``key`` is
    ""), or None; raises ``SessionLookupError`` for an ambiguous id prefix.
    ``full_id_anywhere``: a full id finds its session in any folder."""
    if not key:
        # The latest session with a turn: one left without a question (``--new`` quit at
        # once, a failed first turn) would otherwise hide the conversation a plain start
        # should resume.  A session named and left empty is reached by its name.
        rows = query(
            "SELECT id FROM sessions s WHERE cwd = ? ORDER BY EXISTS ("
            "SELECT 1 FROM turns t WHERE t.session_id = s.id) DESC, last_used DESC LIMIT 1",
            (cwd,),
        )
        return rows[0][0] if rows else None
    scope, sp = ("", ()) if any_folder else (" AND cwd = ?", (cwd,))
    rows = query(
        f"SELECT id FROM sessions WHERE name = ?{scope} "
        "ORDER BY cwd = ? DESC, last_used DESC LIMIT 1",
        (key, *sp, cwd),
    )
    if rows:
        return rows[0][0]
    ident = key.strip().lower()
    whole = "" if full_id_anywhere else scope
    rows = query(
        f"SELECT id FROM sessions WHERE id = ?{whole}", (ident, *sp) if whole else (ident,)
    )
    if rows:
        return rows[0][0]
    if len(ident) < MIN_ID_PREFIX:
        return None
    rows = query(
        f"SELECT id, cwd FROM sessions WHERE substr(id, 1, ?) = ?{scope} "
        "ORDER BY last_used DESC LIMIT ?",
        (len(ident), ident, *sp, _SHOW_CANDIDATES + 1),
    )
    if len(rows) > 1:
        listed = ", ".join(
            r[0] + (f" ({r[1]})" if any_folder else "") for r in rows[:_SHOW_CANDIDATES]
        )
        more = " …" if len(rows) > _SHOW_CANDIDATES else ""
        raise SessionLookupError(
            f"session id prefix '{key}' fits {len(rows) if not more else 'more than 10'} "
            f"sessions: {listed}{more}; give more of the id"
        )
    return rows[0][0] if rows else None
