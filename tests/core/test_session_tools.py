"""get_session_context: paging, filters and the cap over a session's answered turns."""

from __future__ import annotations

import json

from milk_tui.engine.session_tools import SessionToolBox, session_context
from milk_tui.model.session import Session, ToolCallRecord, Turn


def session(n: int) -> Session:
    s = Session(id="s", cwd="/tmp")
    for i in range(1, n + 1):
        if i % 2:
            s.history.append(Turn("user", f"question {i} about topic{i % 3}"))
        else:
            agent = "escalation" if i % 4 == 0 else "primary"
            name = "claude" if agent == "escalation" else "llama"
            s.history.append(Turn("assistant", f"answer {i} " + "x" * 100, agent, name))
    return s


def test_empty_session() -> None:
    assert session_context(Session(id="s", cwd="/"), {}) == "(no session history yet)"


def test_recent_verbatim_older_compact_in_a_frame() -> None:
    out = session_context(session(20), {}).splitlines()
    assert out[0].startswith("[older history — 10 turns, compact")
    assert "[end older history]" in out
    older = out[1 : out.index("[end older history]")]
    assert older[0] == "[1] User: question 1 about topic1"
    assert older[1].startswith("[2] llama: answer 2 ") and older[1].endswith("…")
    assert out[-1] == "[20] claude: answer 20 " + "x" * 100


def test_filters_in_order() -> None:
    s = session(20)
    only_esc = session_context(s, {"agent": "escalation"})
    assert "llama" not in only_esc and "claude" in only_esc and "User:" in only_esc
    last = session_context(s, {"last_n": 3}).splitlines()
    assert [line.split("]")[0] for line in last] == ["[18", "[19", "[20"]
    hits = session_context(s, {"pattern": "TOPIC2"})
    assert hits and all("topic2" in line for line in hits.splitlines())
    assert session_context(s, {"pattern": "nothing-like-this"}) == "(no matching turns)"


def test_range_pages_verbatim_at_most_five() -> None:
    s = session(20)
    page = session_context(s, {"turn_from": 3, "turn_to": 100}).splitlines()
    assert page[0] == "[turns 3–7, verbatim]" and len(page) == 6
    assert "x" * 100 in page[2]
    assert session_context(s, {"turn_from": 30}).startswith("(no turns in 30–34")


async def test_box_caps_and_validates() -> None:
    s = session(4)
    s.history[1].tool_calls = [ToolCallRecord("1", "read_file", '{"path": "a"}')]
    s.history.append(Turn("tool_result", "r" * 1000, "primary"))
    s.history.extend(Turn("user", "y" * 5000) for _ in range(3))
    box = SessionToolBox(s)
    out = await box.call("get_session_context", "{}")
    assert len(out.content.encode()) <= 8000 and "truncated" in out.content
    assert '[llama tool call: read_file] {"path": "a"}' in out.content
    assert "[tool result] " + "r" * 300 + "\n" in out.content
    bad = await box.call("get_session_context", json.dumps({"agent": "nobody"}))
    assert bad.is_error
