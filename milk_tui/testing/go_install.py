"""A Go milk install (``~/.milk``) of any size, as the Go program writes one: for the import's
tests and its benchmark (``bench/import_go.py``).

``sessions/<id>.json`` (+ ``.history``) listed in ``sessions/index.json``, facts in
``memory/global.json`` and one ``memory/<session id>.json`` per session holding
``session_facts`` of them; Go's JSON quirks (``\\u003c`` escapes, nine fractional digits, an
offset) included.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

WORDS = (
    "alpha beta gamma delta build deploy cache index query router agent token session "
    "config schema migrate python rust golang docker kubernetes postgres sqlite redis "
    "kafka nginx react textual httpx pytest mypy ruff linter budget latency memory "
    "thread async socket stream chunk parser grammar tensor model server client proxy"
).split()


def session_id(k: int) -> str:
    return f"{k:08x}-1111-4222-8333-{k:012x}"


def fact_id(i: int) -> str:
    return f"{i:08x}-2222-4333-8444-{i:012x}"


def _fact(rng: random.Random, i: int, producer: str) -> dict[str, object]:
    words = " ".join(rng.choices(WORDS, k=rng.randint(6, 14)))
    day = 1 + i % 28
    return {
        "id": fact_id(i),
        "content": f"fact {i}: the {words} <ref {i}>",
        "producer": producer,
        "consumer": ("", "local", "claude")[i % 3],
        "w": round(0.3 + (i % 7) / 10, 2),
        "roles": {"theme": WORDS[i % len(WORDS)]},
        "core": i % 1000 == 0,
        "created_at": f"2026-05-{day:02d}T10:00:00.123456789-07:00",
        "updated_at": f"2026-05-{day:02d}T11:00:00Z",
    }


def make_go_install(root: Path, facts: int, sessions: int = 10, session_facts: int = 5,
                    turns: int = 4, seed: int = 7) -> Path:  # fmt: skip
    """Write the install under ``root``; ``facts`` in all, ``session_facts`` of them in each
    session's memory file (as many as there are) and the rest global."""
    rng = random.Random(seed)
    (root / "sessions").mkdir(parents=True, exist_ok=True)
    (root / "memory").mkdir(parents=True, exist_ok=True)
    index: dict[str, list[dict[str, str]]] = {}
    for k in range(sessions):
        sid, cwd, used = session_id(k), f"/home/u/proj{k % 5}", f"2026-05-30T{k % 24:02d}:00:00Z"
        history = [
            {"role": "user" if t % 2 == 0 else "assistant", "content": f"turn {t} <b>",
             "agent": "" if t % 2 == 0 else "local", "timestamp": "2026-05-30T08:11:12Z"}
            for t in range(turns)
        ]  # fmt: skip
        data = {"id": sid, "cwd": cwd, "name": f"s{k}", "state": "ROUTING",
                "created_at": "2026-05-30T08:11:12.123456789Z",
                "last_used": used, "history": history}  # fmt: skip
        raw = json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e")
        (root / "sessions" / f"{sid}.json").write_text(raw)
        (root / "sessions" / f"{sid}.history").write_text(f"first {k}\nmulti\\nline\n")
        index.setdefault(cwd, []).append({"id": sid, "name": f"s{k}", "last_used": used})
    (root / "sessions" / "index.json").write_text(json.dumps(index))
    i = 0
    for k in range(sessions):
        own = [_fact(rng, i + j, "claude") for j in range(min(session_facts, facts - i))]
        i += len(own)
        if own:
            (root / "memory" / f"{session_id(k)}.json").write_text(json.dumps({"percepts": own}))
    with (root / "memory" / "global.json").open("w") as f:
        # Written piece by piece: a million facts as one string would be ~300 MB of memory.
        f.write('{"percepts": [')
        for n in range(i, facts):
            raw = json.dumps(_fact(rng, n, ("local", "claude", "user")[n % 3]))
            f.write(("," if n > i else "") + raw.replace("<", "\\u003c").replace(">", "\\u003e"))
        f.write('], "engrams": null, "edges": null}')
    return root
