"""Line splitting must be linear: one huge line costs about what the same bytes in small lines do.

Each reader gets the same number of payload bytes, fed as a network would hand them over
(64 KiB reads), two ways: as ONE line (one SSE event / stream-json line / event-stream
message holding all of it) and as many ~1 KiB lines.  Printed: both times and the ratio
one-line / many-lines (about 1 is linear; a quadratic buffer grows with the size).

* ``sse``    — ``agents/openai_sse.SSEParser`` (OpenAI-compatible servers);
* ``claude`` — the Claude CLI stdout reader (``agents/process_io.read_lines`` over an
  ``asyncio.StreamReader``); its lines are capped at ``MAX_LINE_BYTES`` (longer ones are
  skipped whole), so it is measured at that cap;
* ``bedrock`` — botocore's ``EventStreamBuffer`` (boto3's own framing, which we cannot
  change); one message is capped at 24 MiB by botocore, so it is measured at 16 MiB.

Run: ``python bench/sse_lines.py`` (``--mb 50``; ``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable, Iterator

READ = 65536
SMALL = 1024


def _reads(blob: bytes) -> Iterator[bytes]:
    mv = memoryview(blob)
    for i in range(0, len(blob), READ):
        yield bytes(mv[i : i + READ])


def _sse_event(text: str) -> bytes:
    body = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def sse_blobs(total: int) -> tuple[bytes, bytes]:
    one = _sse_event("x" * total)
    piece = "y" * (SMALL - 80)
    many = b"".join(_sse_event(piece) for _ in range(total // len(piece)))
    return one, many


def run_sse(blob: bytes) -> float:
    from milk_tui.agents.openai_sse import SSEParser

    t = time.perf_counter()
    p = SSEParser("m")
    for data in _reads(blob):
        p.feed(data)
    p.close()
    elapsed = time.perf_counter() - t
    assert len(p.text) > 0
    return elapsed


def claude_blobs(total: int) -> tuple[bytes, bytes]:
    def line(text: str) -> bytes:
        ev = {"type": "stream_event", "event": {"type": "content_block_delta", "index": 0}}
        ev["event"]["delta"] = {"type": "text_delta", "text": text}
        return json.dumps(ev).encode() + b"\n"

    one = line("x" * total)
    piece = "y" * (SMALL - 120)
    return one, b"".join(line(piece) for _ in range(total // len(piece)))


def run_claude(blob: bytes) -> float:
    from milk_tui.agents.process_io import MAX_LINE_BYTES, read_lines

    async def go() -> int:
        reader = asyncio.StreamReader(limit=MAX_LINE_BYTES + 1024)
        n = 0

        async def feed() -> None:
            for data in _reads(blob):
                reader.feed_data(data)
                await asyncio.sleep(0)
            reader.feed_eof()

        task = asyncio.create_task(feed())
        async for line in read_lines(reader):
            n += len(line)
        await task
        return n

    t = time.perf_counter()
    asyncio.run(go())
    return time.perf_counter() - t


def bedrock_blobs(total: int) -> tuple[bytes, bytes]:
    from milk_tui.testing.fake_bedrock_reply import encode_event

    def msg(text: str) -> bytes:
        return encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": text}})

    one = msg("x" * total)
    piece = "y" * (SMALL - 150)
    return one, b"".join(msg(piece) for _ in range(total // len(piece)))


def run_bedrock(blob: bytes) -> float:
    from botocore.eventstream import EventStreamBuffer

    t = time.perf_counter()
    buf = EventStreamBuffer()
    n = 0
    for data in _reads(blob):
        buf.add_data(data)
        for _ in buf:
            n += 1
    elapsed = time.perf_counter() - t
    assert n > 0
    return elapsed


READERS: dict[str, tuple[Callable[[int], tuple[bytes, bytes]], Callable[[bytes], float], int]] = {
    "sse": (sse_blobs, run_sse, 0),
    "claude": (claude_blobs, run_claude, 10 * 1024 * 1024 - 4096),
    "bedrock": (bedrock_blobs, run_bedrock, 16 * 1024 * 1024),
}
"""name → (make both blobs, time one blob, size cap in bytes; 0 = the --mb size)."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=50.0, help="payload size of the SSE case")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="2 MB, one round")
    ap.add_argument("--only", choices=sorted(READERS), default=None)
    args = ap.parse_args()
    size = int((2 if args.quick else args.mb) * 1024 * 1024)
    rounds = 1 if args.quick else args.rounds
    for name, (make, run, cap) in READERS.items():
        if args.only and name != args.only:
            continue
        total = min(size, cap) if cap else size
        one, many = make(total)
        t_one: list[float] = []
        t_many: list[float] = []
        for _ in range(rounds):  # alternate, so load drift hits both alike
            t_one.append(run(one))
            t_many.append(run(many))
        a, b = min(t_one), min(t_many)
        print(
            f"{name:8s} {total / 2**20:6.1f} MiB  one line {a:7.3f} s   "
            f"1 KiB lines {b:7.3f} s   ratio {a / b:6.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
