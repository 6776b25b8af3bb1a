"""Prompts the user showed the router it sent to the wrong agent (``/escalate`` right after a
primary answer, the same prompt asked again): one row per example, with its folder, so the
router can learn per folder and across folders (engine/router_learning.py)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from milk_tui.storage.db import Database, MigrationConnection, register_migration

MAX_PROMPT_CHARS = 2000
"""An example keeps the start of its prompt: enough for a word-overlap comparison."""


def _m006_route_examples(db: MigrationConnection) -> None:
    db.executescript(
        """
        CREATE TABLE route_examples (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            cwd TEXT NOT NULL,
            ts REAL NOT NULL,
            prompt TEXT NOT NULL,
            target TEXT NOT NULL,
            why TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX route_examples_cwd ON route_examples(cwd, ts);
        """
    )


register_migration("006_route_examples", _m006_route_examples)


@dataclass(frozen=True)
class RouteExample:
    id: int
    cwd: str
    ts: float
    prompt: str
    target: str
    """The agent that should have answered: "escalation" (or "primary")."""
    why: str
    """What taught it: "/escalate after a primary answer", "asked again", …"""


class RouteExampleStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate()  # registered at import, possibly after the database was opened

    def add(self, cwd: str, prompt: str, target: str, why: str, ts: float | None = None) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO route_examples (cwd, ts, prompt, target, why) VALUES (?,?,?,?,?)",
                (cwd, time.time() if ts is None else ts, prompt[:MAX_PROMPT_CHARS], target, why),
            )

    def all(self, cwd: str = "") -> list[RouteExample]:
        """Newest first; this folder's only when ``cwd`` is given."""
        where, params = ("WHERE cwd = ?", (cwd,)) if cwd else ("", ())
        return [
            RouteExample(r["id"], r["cwd"], r["ts"], r["prompt"], r["target"], r["why"])
            for r in self.db.query(
                f"SELECT * FROM route_examples {where} ORDER BY ts DESC, id DESC", params
            )
        ]

    def clear(self, cwd: str = "") -> int:
        """Forget this folder's examples (every folder's with ``cwd`` ""); how many."""
        where, params = ("WHERE cwd = ?", (cwd,)) if cwd else ("", ())
        with self.db.transaction() as conn:
            return int(conn.execute(f"DELETE FROM route_examples {where}", params).rowcount)
