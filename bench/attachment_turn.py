"""A headless turn with one 1 MB image attached vs the same turn without: the image costs
its encoding into the request (base64 in the JSON body) and the upload, once, before the
first byte comes back; the streamed reply (the hot path) must not get slower per chunk.

Both cases run on the same dispatcher against the same local fake server, alternating,
medians; the ratio is printed.  Staging the file (read, magic bytes, sha256) happens before
Enter and is timed on its own.  ``--quick`` for a short run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from headless_turn import headless_dispatcher  # noqa: E402

from milk_tui.engine.attachments import read_attachment  # noqa: E402
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, usage  # noqa: E402

IMAGE_BYTES = 1024 * 1024


def write_image(folder: Path) -> Path:
    """1 MB that reads as a PNG (its signature, then incompressible bytes)."""
    p = folder / "screenshot.png"
    p.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(IMAGE_BYTES - 8))
    return p


async def run(chunks: int, rounds: int, tmp: Path) -> tuple[dict[str, float], float]:
    image = write_image(tmp)
    t0 = time.perf_counter()
    staged = read_attachment(str(image), str(tmp))
    stage_s = time.perf_counter() - t0
    with FakeOpenAIServer() as srv:
        srv.default_reply = FakeReply.bulk(chunks, usage=usage(10, chunks))
        disp, bus, db = headless_dispatcher(tmp, srv.url)
        sub = bus.subscribe()
        n = [0]
        first: list[float] = []
        bus.add_listener(
            lambda e: (
                first.append(time.perf_counter()) if e.type == "text_delta" and not first else None
            )
        )

        async def turn(files: tuple) -> float:
            """The streaming part: first text delta to the end of the turn."""
            n[0] += 1
            first.clear()
            out = await disp.run_turn(f"bench prompt {n[0]}", force="primary", attachments=files)
            assert out.ok, out.error
            sub.get_nowait_all()
            return time.perf_counter() - first[0]

        cases = {"no attachment": (), "one 1 MB image": (staged,)}
        for files in cases.values():
            await turn(files)
        times: dict[str, list[float]] = {k: [] for k in cases}
        streams: dict[str, list[float]] = {k: [] for k in cases}
        for _ in range(rounds):
            for name, files in cases.items():
                t0 = time.perf_counter()
                streams[name].append(await turn(files))
                times[name].append(time.perf_counter() - t0)
        sent = srv.chat_requests[-1].json["messages"][-1]["content"]
        assert sent[1]["type"] == "image_url", "the image must have been sent"
        db.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    med |= {f"{k}, stream": statistics.median(v) for k, v in streams.items()}
    return med, stage_s


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    chunks, rounds = (2000, 3) if a.quick else (20000, 7)
    with tempfile.TemporaryDirectory() as tmp:
        med, stage_s = asyncio.run(run(chunks, rounds, Path(tmp)))
    print(f"headless turn with an attachment: {chunks} chunks, median of {rounds}")
    print(f"  staging the 1 MB image (read, check, sha256): {stage_s * 1000:.1f} ms (before Enter)")
    for name, t in med.items():
        print(f"  {name:<24} {t * 1000:8.1f} ms  {chunks / t:9.0f} chunks/s")
    ratio = med["one 1 MB image"] / med["no attachment"]
    stream = med["one 1 MB image, stream"] / med["no attachment, stream"]
    extra = (med["one 1 MB image"] - med["no attachment"]) * 1000
    print(
        f"  ratio whole turn, one 1 MB image / no attachment = {ratio:.3f} (+{extra:.0f} ms once)"
    )
    print(f"  ratio streaming part (first delta to end) = {stream:.3f}  (hot path: target ≈ 1.0)")


if __name__ == "__main__":
    main()
