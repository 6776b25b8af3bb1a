"""Bedrock agent streaming cost vs bare boto3 on the same ConverseStream.

The fake Bedrock server (milk_tui.testing.fake_bedrock) streams N text deltas as AWS
event-stream frames.  Measured in the same run, alternating, medians:

* bare boto3 — ``client.converse_stream()`` and a plain ``for`` over the event stream in
  the calling thread (the least any boto3 user pays: SigV4, HTTP, frame parse, CRCs);
* agent      — ``BedrockAgent.stream()`` consumed on an asyncio loop (worker thread,
  queue hand-off, normalisation into AgentEvents).

The ratio agent / bare is the price of keeping the event loop free.  The agent's figure
depends on how fast the second core picks up the worker thread, so on a shared box the
minimum over rounds is the robust figure; the median is printed beside it.  Also printed:
the cold import cost of ``milk_tui.agents.bedrock`` (boto3 must NOT be imported by it).
Run: ``python bench/bedrock_stream.py`` (``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from typing import Any

from milk_tui.agents.base import AgentRequest, TextChunk
from milk_tui.agents.bedrock import BedrockAgent
from milk_tui.testing.fake_bedrock import FakeBedrock, Reply, agent_config


def bare_boto3(client: Any, n: int) -> int:
    got = 0
    resp = client.converse_stream(
        modelId="m", messages=[{"role": "user", "content": [{"text": "go"}]}]
    )
    for ev in resp["stream"]:
        if "contentBlockDelta" in ev:
            got += 1
    return got


async def agent_turn(agent: BedrockAgent) -> int:
    got = 0
    async for ev in agent.stream(AgentRequest(slot="escalation", prompt="go", cwd=".")):
        if type(ev) is TextChunk:
            got += 1
    return got


def import_cost() -> tuple[float, bool]:
    code = (
        "import time, sys; t = time.perf_counter(); import milk_tui.agents.bedrock; "
        "print(time.perf_counter() - t, 'boto3' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    secs, loaded = out.stdout.split()
    return float(secs), loaded == "True"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--events", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    n, rounds = (1000, 5) if args.quick else (args.events, args.rounds)

    import boto3
    from botocore.config import Config

    with FakeBedrock() as fake:
        fake.default_reply = Reply().text(*(["tok "] * n))
        cfg = agent_config(fake, timeout_secs=60)
        client = boto3.client(
            "bedrock-runtime",
            region_name="us-east-1",
            endpoint_url=fake.url,
            aws_access_key_id=cfg.aws_key_id,
            aws_secret_access_key=cfg.aws_secret,
            config=Config(retries={"total_max_attempts": 1}),
        )
        agent = BedrockAgent(cfg)
        bare_times: list[float] = []
        agent_times: list[float] = []
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(agent_turn(agent))  # warm up client creation
            bare_boto3(client, n)
            for _ in range(rounds):
                t0 = time.perf_counter()
                assert bare_boto3(client, n) == n
                bare_times.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                assert loop.run_until_complete(agent_turn(agent)) == n
                agent_times.append(time.perf_counter() - t0)
        finally:
            loop.close()
    bare, mine = statistics.median(bare_times), statistics.median(agent_times)
    bare_min, mine_min = min(bare_times), min(agent_times)
    print(f"events per turn           : {n}, {rounds} alternating rounds")
    print(f"bare boto3 (min/median)   : {bare_min * 1000:8.1f} / {bare * 1000:.1f} ms")
    print(f"BedrockAgent (min/median) : {mine_min * 1000:8.1f} / {mine * 1000:.1f} ms")
    print(f"ratio agent / bare        : min {mine_min / bare_min:.2f}x  median {mine / bare:.2f}x")
    secs, loaded = import_cost()
    print(f"import milk_tui.agents.bedrock: {secs * 1000:.1f} ms, boto3 imported: {loaded}")


if __name__ == "__main__":
    main()
