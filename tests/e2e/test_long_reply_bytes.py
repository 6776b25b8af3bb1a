"""A long reply streamed in thousands of chunks prints exactly its text: ``milk-tui -p`` (the
real entry point, a subprocess) against the fake server, stdout compared byte for byte, and
the same reply through ``--output-format stream-json``.  However the stream's reader cuts
or joins the chunks (agents/read_ahead.py), the output may not change."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from e2e.conftest import llama_config
from milk_tui.testing.cli_run import MILK_COMMAND, run_milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

PIECES = [
    "Plain words ",
    "and **bold** ",
    "`code` ",
    "a < b, ",
    "[1] ",
    "é",
    "日本",
    "語 ",
    "🙂",
    "\tTab\n",
    "## heading\n",
    "- item\n",
    "",
]
"""A reply's pieces: ASCII, Markdown, characters the tag and text-call checks look at, and
multi-byte UTF-8 (a read may end inside one)."""
CHUNKS = 6000


def reply_pieces() -> list[str]:
    # A number in every third piece: a reply that repeats itself is cut as a loop.
    return [PIECES[i % len(PIECES)] + ("" if i % 3 else str(i)) for i in range(CHUNKS)]


def test_a_long_chunked_reply_prints_byte_for_byte(milk_home: Path, tmp_path: Path) -> None:
    pieces = reply_pieces()
    text = "".join(pieces)
    with FakeOpenAIServer() as srv:
        (milk_home / "config.toml").write_text(llama_config(srv.url))
        srv.default_reply = FakeReply(text=pieces)
        raw = subprocess.run(
            [*MILK_COMMAND, "-p", "write it", "--primary"],
            cwd=tmp_path,
            capture_output=True,
            timeout=120,
            env=os.environ.copy(),
        )
        assert raw.returncode == 0, raw.stderr
        assert raw.stdout == (text + "\n").encode()
        r = run_milk("-p", "write it", "--primary", "--output-format", "stream-json", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    deltas = [e for e in lines if e["type"] == "text_delta"]
    assert "".join(e["text"] for e in deltas) == text
    assert {e["slot"] for e in deltas} == {"primary"}
    done = [e for e in lines if e["type"] == "turn_completed"]
    assert len(done) == 1 and lines.index(done[0]) > lines.index(deltas[-1])
