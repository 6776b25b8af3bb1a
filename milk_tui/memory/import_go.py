"""Import a Go milk install (``~/.milk``): sessions, their input history and memory files.

Idempotent: a session whose id is already in the database is left untouched (so nothing
continued in milk-tui is overwritten), and a percept is keyed by its Go UUID (``ext_id``).
Each session is one transaction and all percepts of one file are one transaction (rows in
batches, the full-text index filled after them), so an interrupted import can simply be run
again.

The Go files' JSON quirks are accepted: ``\\u003c``-style escapes and NUL in
token keys are plain JSON to Python; times are RFC 3339 with up to nine fractional digits
and any offset; Go's zero time (year 1) becomes 0.
"""

from __future__ import annotations

import datetime as dt
import gc
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from milk_tui.memory import store_bulk
from milk_tui.memory.import_go_grants import import_go_grants
from milk_tui.memory.store import PerceptStore
from milk_tui.model.percept import Consumer, Percept, Producer
from milk_tui.model.session import Session, State, TokenUsage, ToolCallRecord, Turn
from milk_tui.storage.db import Database
from milk_tui.storage.permission_grants import GrantStore
from milk_tui.storage.session_rows import meta_json as _meta
from milk_tui.storage.sessions import INSERT_TURN, _turn_row, token_row

_RFC3339 = re.compile(
    r"^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|z|[+-]\d\d:\d\d)$"
)
_STATES = {"CLAUDE_WAITING": State.ESCALATION_WAITING, "CLAUDE": State.ESCALATION}
"""Older Go milk session files name the escalation states like this."""
_PRODUCERS = {"local": "primary", "claude": "escalation"}
_PRODUCER_VALUES = frozenset(p.value for p in Producer)
_CONSUMER_VALUES = frozenset(c.value for c in Consumer)
_CONSUMERS = {"": "all", "local": "primary", "claude": "escalation"}


Progress = Callable[[str, int, int], None]
"""Told (step, done, total): "sessions", then "facts (<file>)" for each memory file."""


class GoImportError(Exception):
    """The Go folder cannot be read at all (missing, not a folder)."""


@dataclass
class ImportReport:
    sessions_added: int = 0
    sessions_skipped: int = 0
    turns: int = 0
    percepts_added: int = 0
    percepts_skipped: int = 0
    grant_files: int = 0
    """Go grant files brought over (each one folder's allowed tools)."""
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"sessions: {self.sessions_added} imported, {self.sessions_skipped} already present "
                f"({self.turns} turns); facts: {self.percepts_added} imported, "
                f"{self.percepts_skipped} already present; tool grants: {self.grant_files} folders; "
                f"{len(self.warnings)} warnings")  # fmt: skip


def parse_time(value: Any) -> float:
    """RFC 3339 (Go ``time.Time`` JSON) → Unix seconds; zero/absent/garbage → 0.0."""
    if isinstance(value, (int, float)):
        return float(value)
    m = _RFC3339.match(str(value or "").strip())
    if not m:
        return 0.0
    y, mo, d, h, mi, s, frac, off = m.groups()
    if int(y) <= 1:
        return 0.0  # Go zero time 0001-01-01T00:00:00Z
    # The shape is checked above; datetime (in C) does the calendar and the offset.
    zone = "+00:00" if off in ("Z", "z") else off
    try:
        base = dt.datetime.fromisoformat(f"{y}-{mo}-{d}T{h}:{mi}:{s}{zone}").timestamp()
    except ValueError:
        return 0.0  # no such date
    return base + (float("0." + frac) if frac else 0.0)


def _load_json(path: Path, report: ImportReport) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError) as e:
        report.warnings.append(f"{path}: skipped, cannot read JSON: {e}")
        return None


def _session_from_go(data: dict[str, Any], index_entry: dict[str, Any]) -> Session:
    state_raw = str(data.get("state") or "ROUTING")
    try:
        state = _STATES.get(state_raw) or State(state_raw)
    except ValueError:
        state = State.ROUTING
    s = Session(
        id=str(data["id"]), cwd=str(data.get("cwd") or index_entry.get("cwd") or ""),
        name=str(data.get("name") or index_entry.get("name") or ""),
        created_at=parse_time(data.get("created_at")),
        last_used=parse_time(data.get("last_used") or index_entry.get("last_used")),
        state=state,
    )  # fmt: skip
    s.current_need = str(data.get("current_need") or "")
    go_set_at = int(data.get("current_need_set_at") or 0)
    # A Go session file stores len(history) at record time; we store the 1-based position
    # of the pending user turn, i.e. one more (docs/adr/0004-need-position-and-staleness.md).
    # A need with SetAt 0 was recorded on the very first turn.
    s.current_need_set_at = go_set_at + 1 if s.current_need else 0
    s.escalation_session_id = str(data.get("claude_session_id") or "")
    s.escalation_brief = str(data.get("escalation_brief") or "")
    s.last_local_summary = str(data.get("last_local_summary") or "")
    s.last_escalation_summary = str(data.get("last_claude_summary") or "")
    s.escalation_nonce = str(data.get("escalation_nonce") or "")
    s.primary_nonce = str(data.get("primary_nonce") or "")
    s.memory_instruction_injected_at = int(data.get("memory_instruction_injected_at") or 0)
    for h in data.get("history") or []:
        t = Turn(role=str(h.get("role") or "user"), content=str(h.get("content") or ""),
                 agent=str(h.get("agent") or ""), agent_name=str(h.get("agent_name") or ""),
                 thinking=str(h.get("thinking") or ""), timestamp=parse_time(h.get("timestamp")))  # fmt: skip
        for c in h.get("tool_calls") or []:
            t.tool_calls.append(ToolCallRecord(id=str(c.get("id") or ""), name=str(c.get("name") or ""),
                                               arguments=str(c.get("arguments") or "")))  # fmt: skip
        s.history.append(t)
    for key, u in (data.get("tokens") or {}).items():
        model, _, role = str(key).partition("\x00")
        model = str(u.get("model") or model)
        role = str(u.get("agent") or role)
        s.tokens[(model, role)] = TokenUsage(
            model=model, role=role, prompt=int(u.get("prompt") or 0),
            completion=int(u.get("completion") or 0), cache_read=int(u.get("cache_read") or 0),
            cache_creation=int(u.get("cache_creation") or 0),
        )  # fmt: skip
    return s


def _input_history(path: Path) -> list[str]:
    """Go ``<id>.history``: one entry per line, embedded newlines written as ``\\n``."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [ln.replace("\\n", "\n") for ln in lines if ln.strip()]


def _import_session(db: Database, s: Session, history: list[str], report: ImportReport) -> None:
    with db.transaction() as conn:
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (s.id,)).fetchone():
            report.sessions_skipped += 1
            return
        conn.execute(
            "INSERT INTO sessions (id, name, cwd, created_at, last_used, state, meta) VALUES (?,?,?,?,?,?,?)",
            (s.id, s.name, s.cwd, s.created_at, s.last_used, s.state.value, _meta(s)),
        )
        conn.executemany(
            INSERT_TURN,
            [(s.id, *_turn_row(t)) for t in s.history],
        )
        conn.executemany(
            "INSERT INTO tokens (session_id, model, role, prompt, completion, cache_read, "
            "cache_creation, cost_usd) VALUES (?,?,?,?,?,?,?,?)",
            [(s.id, *token_row(u)) for u in s.tokens.values()],
        )
        conn.executemany(
            "INSERT INTO input_history (session_id, text, ts) VALUES (?,?,?)",
            [(s.id, text, s.last_used) for text in history],
        )
    report.sessions_added += 1
    report.turns += len(s.history)


def _percept_from_go(d: dict[str, Any], scope: str, session_id: str) -> Percept | None:
    content = str(d.get("content") or "").strip()
    if not content:
        return None
    producer = _PRODUCERS.get(str(d.get("producer") or ""), str(d.get("producer") or "primary"))
    if producer not in _PRODUCER_VALUES:
        producer = Producer.PRIMARY.value
    consumer = _CONSUMERS.get(str(d.get("consumer") or ""), str(d.get("consumer") or ""))
    if consumer not in _CONSUMER_VALUES:
        consumer = Consumer.ALL.value
    core = bool(d.get("core"))
    created = parse_time(d.get("created_at"))
    try:
        w = 0.7 if d.get("w") is None else float(d["w"])
    except (TypeError, ValueError):
        w = 0.7  # not a number: the default weight, as for a fact without one
    return Percept(
        id=0, content=content, producer=producer, consumer=consumer,
        scope="global" if core else scope, core=core,
        weight=min(1.0, max(0.0, w)) if w == w else 0.7,
        created_at=created, updated_at=parse_time(d.get("updated_at")) or created,
        session_id=session_id,
    )  # fmt: skip


def _import_memory_file(store: PerceptStore, path: Path, scope: str, session_id: str,
                        report: ImportReport, known: set[str], progress: Progress) -> None:  # fmt: skip
    """All the file's new facts in one transaction: rows by ``executemany`` in batches, then
    their full-text entries in one ``INSERT … SELECT`` and the word counts in one pass
    (``store_bulk.bulk_insert``).  ``known`` holds the Go ids already in the store."""
    # A million parsed facts are millions of new containers: the cyclic collector would
    # walk them again and again (half the parse time at that size); none of them is cyclic.
    collecting = gc.isenabled()
    gc.disable()
    try:
        fresh = _fresh_facts(path, scope, session_id, report, known)
        step = f"facts ({path.name})"
        progress(step, 0, len(fresh))
        store_bulk.bulk_insert(store.db, fresh, lambda n: progress(step, n, len(fresh)))
        report.percepts_added += len(fresh)
    finally:
        if collecting:
            gc.enable()


def _fresh_facts(path: Path, scope: str, session_id: str, report: ImportReport,
                 known: set[str]) -> list[tuple[Percept, str | None]]:  # fmt: skip
    data = _load_json(path, report)
    if not isinstance(data, dict):
        return []
    raw = data.get("percepts") or []
    fresh: list[tuple[Percept, str | None]] = []
    for d in raw if isinstance(raw, list) else []:
        if not isinstance(d, dict):
            continue
        ext = str(d.get("id") or "")
        p = _percept_from_go(d, scope, session_id)
        if p is None:
            continue
        if ext and ext in known:
            report.percepts_skipped += 1
            continue
        if ext:
            known.add(ext)
        fresh.append((p, ext or None))
    return fresh


def _quiet(step: str, done: int, total: int) -> None:
    pass


def import_go(db: Database, root: Path, grants: GrantStore | None = None,
              progress: Progress = _quiet) -> ImportReport:  # fmt: skip
    """Sessions, memory and (with ``grants``) the per-folder tool grants.  ``progress`` is
    told (step, done, total) as each step goes."""
    root = root.expanduser()
    if not root.is_dir():
        raise GoImportError(f"{root}: not a Go milk folder (no such directory)")
    report = ImportReport()
    cwds: set[str] = set()
    sessions_dir = root / "sessions"
    index_entries: dict[str, dict[str, Any]] = {}
    index = (
        _load_json(sessions_dir / "index.json", report)
        if (sessions_dir / "index.json").exists()
        else {}
    )
    if isinstance(index, dict):
        for cwd, entries in index.items():
            for e in entries or []:
                if isinstance(e, dict) and e.get("id"):
                    index_entries[str(e["id"])] = {**e, "cwd": cwd}
                    if not (sessions_dir / f"{e['id']}.json").exists():
                        report.warnings.append(
                            f"index.json lists {e['id']} but its file is missing"
                        )
    files = [p for p in sorted(sessions_dir.glob("*.json")) if p.name != "index.json"] if (
        sessions_dir.is_dir()) else []  # fmt: skip
    for i, path in enumerate(files):
        progress("sessions", i, len(files))
        data = _load_json(path, report)
        if not isinstance(data, dict) or not data.get("id"):
            if data is not None:
                report.warnings.append(f"{path}: skipped, not a session (no id)")
            continue
        s = _session_from_go(data, index_entries.get(str(data["id"]), {}))
        cwds.add(s.cwd)
        _import_session(db, s, _input_history(sessions_dir / f"{s.id}.history"), report)
    if files:
        progress("sessions", len(files), len(files))
    store = PerceptStore(db)
    mem_dir = root / "memory"
    if mem_dir.is_dir():
        known = store_bulk.ext_ids(db)
        if (mem_dir / "global.json").exists():
            _import_memory_file(store, mem_dir / "global.json", "global", "", report, known,
                                progress)  # fmt: skip
        own = [p for p in sorted(mem_dir.glob("*.json")) if p.name != "global.json"]
        for i, path in enumerate(own):  # many small files: one step for them all
            progress("facts (sessions' files)", i, len(own))
            _import_memory_file(store, path, "session", path.stem, report, known, _quiet)
        if own:
            progress("facts (sessions' files)", len(own), len(own))
    if grants is not None:
        report.grant_files = import_go_grants(root / "permissions", cwds, grants, report.warnings)
    return report
