"""The session written out: Markdown, JSON and text built from the records, inert."""

from __future__ import annotations

import json

from milk_tui.facade.export import render, session_markdown, session_text
from milk_tui.facade.transcript import parse_export
from milk_tui.model.session import Session, TokenUsage, ToolCallRecord, Turn

HOSTILE = "done\x1b]52;c;ZXZpbA==\x07 and \x9b31m red\r\n"


def _session() -> Session:
    s = Session(id="0123456789abcdef", cwd="/work/proj", name="bugfix", created_at=0.0)
    s.history = [
        Turn("user", "fix the build", agent="primary", agent_name="llama"),
        Turn(
            "assistant",
            "",
            agent="primary",
            agent_name="llama",
            tool_calls=[ToolCallRecord("c1", "bash", '{"command": "make ```x```"}')],
        ),
        Turn("tool_result", "make: ok", agent="primary"),
        Turn("assistant", "handing over", agent="primary", agent_name="llama"),
        Turn("user", "fix the build", agent="escalation", agent_name="claude"),
        Turn("assistant", HOSTILE, agent="escalation", agent_name="claude", thinking="hmm"),
    ]
    s.tokens[("m", "primary")] = TokenUsage(model="m", role="primary", prompt=10, completion=2)
    return s


def test_markdown_has_every_part_once_and_no_raw_control():
    md = session_markdown(_session(), now=0.0)
    assert md.startswith("# milk-tui session bugfix\n")
    assert md.count("fix the build") == 1  # the hand-off repeats the prompt: shown as a marker
    assert "### ❯ Prompt 1 → llama (primary)" in md
    assert "*⇢ handed off to **claude** (escalation)*" in md
    assert "**llama** (primary):\n\nhanding over" in md
    assert "**claude** (escalation):" in md
    # a fence longer than the backtick run inside the arguments
    assert '⚙ **bash**\n\n````json\n{"command": "make ```x```"}\n````' in md
    assert "result:\n\n```\nmake: ok\n```" in md
    assert "hmm" not in md  # thinking is not part of the document
    assert not any(ch in md for ch in "\x1b\x07\x9b\r")
    assert "␛]52;c;ZXZpbA==␇" in md and "⟨CSI⟩31m" in md


def test_json_is_the_sessions_show_document_exact_and_inert():
    s = _session()
    text = render(s, "json", now=0.0)
    assert not any(ch in text for ch in "\x1b\x07\x9b")
    doc = json.loads(text)
    assert doc == json.loads(json.dumps(s.to_go_json()))  # exact: escapes decode back
    assert doc["history"][5]["content"] == HOSTILE
    assert doc["history"][1]["tool_calls"][0]["name"] == "bash"


def test_text_keeps_its_shape():
    text = session_text(_session().history)
    assert text.startswith("❯ fix the build    [→ llama]\n\n⚙ bash {")
    assert "[handed off to claude]" in text and "claude:\ndone␛]52" in text


def test_the_argument_picks_format_and_path():
    assert parse_export("") == parse_export("md") == ("md", "")
    assert parse_export("json") == ("json", "")
    assert parse_export("out/s.json") == ("json", "out/s.json")
    assert parse_export("notes.TXT")[0] == "txt"
    assert parse_export("t.log")[0] == "md"
    assert parse_export("json my file.out") == ("json", "my file.out")
    assert parse_export("markdown x")[0] == "md" and parse_export("text")[0] == "txt"


def test_a_prompts_attachments_are_listed_by_name_kind_and_size_not_content():
    from milk_tui.model.attachment import AttachmentInfo

    s = _session()
    s.history[0].attachments = [
        AttachmentInfo("shot\x1b[2J.png", "image", "image/png", 2048, "ab" * 32, "/tmp/shot.png"),
        AttachmentInfo("notes.txt", "text", "text/plain", 12, "cd" * 32, "/tmp/notes.txt"),
    ]
    md = session_markdown(s, now=0.0)
    assert "- attached: shot␛[2J.png · png · 2 KB\n- attached: notes.txt · text · 12 B" in md
    text = session_text(s.history)
    assert "❯ fix the build    [→ llama]\n  attached: shot␛[2J.png · png · 2 KB\n" in text
