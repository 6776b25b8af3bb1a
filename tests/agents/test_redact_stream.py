"""Redaction over the whole stream: a secret split across pieces, reads or records is still
masked (the masker in the engine, the wire log on disk)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from milk_tui.agents.redact import MASK, Redactor, SplitSecrets, StreamMasker, register
from milk_tui.agents.wire_log import WireLog

KEY = "sk-live-Zq81xW0pLm"


@pytest.fixture(autouse=True)
def _known() -> None:
    register(KEY)


def _masked_stream(pieces: list[str]) -> str:
    m = StreamMasker()
    return "".join(m.feed(p) for p in pieces) + m.flush()


@pytest.mark.parametrize("cut", range(1, len(KEY)))
def test_a_key_split_at_any_point_is_masked_and_other_text_kept(cut: int) -> None:
    text = f"your key is {KEY}, keep it safe"
    at = text.index(KEY) + cut
    assert _masked_stream([text[:at], text[at:]]) == f"your key is {MASK}, keep it safe"


def test_a_key_in_one_character_pieces_is_masked() -> None:
    assert _masked_stream(list(f"a{KEY}b")) == f"a{MASK}b"


def test_a_prefix_that_does_not_become_a_key_comes_out_unchanged() -> None:
    text = "sk-live-Zq81 is only the start, sk-"
    assert _masked_stream([text[:5], text[5:14], text[14:]]) == text


def test_split_secrets_masks_a_key_spelled_across_json_records() -> None:
    split = SplitSecrets()
    pieces = ["Your key: s", "k-li", "ve-Zq8", "1xW0pLm", " done"]
    out: list[str] = []
    for p in pieces:
        out += split.feed(json.dumps({"choices": [{"delta": {"content": p}}]}) + "\n")
    out += split.flush()
    joined = "".join(json.loads(r)["choices"][0]["delta"]["content"] for r in out)
    assert len(out) == len(pieces)
    assert KEY not in joined and joined == f"Your key: {MASK * 4} done"
    assert '"choices"' in out[0]  # a string ending in "s" before the key is not claimed


def test_wire_log_masks_a_key_split_across_reads_and_across_events(tmp_path: Path) -> None:
    log = tmp_path / "data" / "wire.log"
    wire = WireLog(log, "llama", Redactor())

    def event(text: str) -> bytes:
        return b"data: " + json.dumps({"delta": {"content": text}}).encode() + b"\n\n"

    whole = event(f"key {KEY} whole")
    cut = whole.index(b"Zq8")
    wire.data(whole[:cut])  # one SSE event over two network reads
    wire.data(whole[cut:])
    for piece in ("k", "ey: sk-l", "ive-Zq", "81xW", "0pLm."):  # one key over many events
        raw = event(piece)
        wire.data(raw[:3])
        wire.data(raw[3:])
    wire.line('{"type":"stream_event","delta":{"text":"sk-live"}}')
    wire.line('{"type":"stream_event","delta":{"text":"-Zq81xW0pLm"}}')
    wire.flush()
    text = log.read_text()
    assert "Zq81" not in text and "xW0pLm" not in text
    assert "key *** whole" in text and text.count("data: ") == 6
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_wire_log_masks_custom_auth_headers_by_name_and_value(tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    r = Redactor()
    headers = {"X-Custom-Token": "tok-9f8e7d6c", "X-Goog-Api-Key": "AIzaFAKE123", "X-Title": "milk"}
    r.add_headers(headers)
    wire = WireLog(log, "a", r)
    wire.request("POST", "http://h/v1", headers, b'{"echo": "tok-9f8e7d6c"}')
    wire.data(b'{"seen": "AIzaFAKE123"}\n')
    wire.flush()
    text = log.read_text()
    assert "tok-9f8e7d6c" not in text and "AIzaFAKE123" not in text
    assert '"X-Title": "milk"' in text


def test_an_old_world_readable_log_is_tightened(tmp_path: Path) -> None:
    log = tmp_path / "wire.log"
    log.write_text("old\n")
    log.chmod(0o644)
    WireLog(log, "a", Redactor()).note("hello")
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_a_long_secret_such_as_an_aws_session_token_is_masked_when_split() -> None:
    token = "FwoGZXIvYXdzE" + "".join(chr(65 + (i * 7) % 26) for i in range(1500))
    register(token)
    text = f"session {token} end"
    for step in (1, 9, 700):
        pieces = [text[i : i + step] for i in range(0, len(text), step)]
        assert _masked_stream(pieces) == f"session {MASK} end"


def test_placeholder_keys_of_local_servers_are_not_masked_in_replies() -> None:
    r = Redactor("ollama", "dummy", "EMPTY")  # what local servers are given as api_key
    text = "run ollama with a dummy model; EMPTY means no key"
    assert _masked_stream([text]) == text
    assert r("error from ollama") == "error from ***"  # still kept out of its own errors
