#!/usr/bin/env python3
"""A stand-in for the milk-smolagent adapter: speaks the subprocess-agent NDJSON protocol
(stdlib only) so tests drive ``agents/subprocess_agent.py`` through a real child process.

Command line (what the agent passes): ``--model-type T [--model-id M] [--api-base URL]
[--api-key K] --action-type A [--tools a,b] [--authorized-imports x,y] --max-steps N
--session-id ID [--append-system-prompt-file F]… -- PROMPT``; ``--help`` exits 0.

``FAKE_SMOLAGENT_MODE`` picks the behaviour:

* ``ok`` (default) — ``system``, one ``step`` + ``observation``, text deltas
  ``"Fake smolagent: "`` + the prompt, then a ``result`` with tokens and cost;
* ``final`` — only a ``final_answer`` then ``result`` (no deltas);
* ``exit1`` — a line of stderr and exit status 1;
* ``garbage`` — one text delta, then a line that is not JSON;
* ``killed`` — one text delta, then SIGKILL to itself;
* ``error`` — a ``result`` with ``is_error`` and an ``error`` text;
* ``slow`` — one delta, then sleeps (a turn to cancel).

``FAKE_SMOLAGENT_RECORD`` — a file each call appends one JSON line to: argv, its pid and the text of
every context file.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any


def _out(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _record(argv: list[str]) -> None:
    path = os.environ.get("FAKE_SMOLAGENT_RECORD")
    if not path:
        return
    files = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--append-system-prompt-file"]
    contexts = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            contexts.append(fh.read())
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"argv": argv, "contexts": contexts, "pid": os.getpid()}) + "\n")


def main(argv: list[str]) -> int:
    if "--help" in argv:
        print("usage: milk-smolagent [options] -- PROMPT")
        return 0
    _record(argv)
    prompt = argv[argv.index("--") + 1] if "--" in argv else ""
    sid = argv[argv.index("--session-id") + 1] if "--session-id" in argv else ""
    mode = os.environ.get("FAKE_SMOLAGENT_MODE", "ok")
    if mode == "exit1":
        sys.stderr.write("Error: model endpoint refused the connection\n")
        return 1
    _out({"type": "system", "session_id": sid})
    if mode == "final":
        _out({"type": "final_answer", "text": f"Final: {prompt}"})
    elif mode == "error":
        _out({"type": "result", "is_error": True, "error": "max steps reached"})
        return 0
    else:
        _out({"type": "step", "number": 1, "thought": "look at the files", "code": "print(42)"})
        _out({"type": "observation", "content": "42"})
        _out({"type": "text_delta", "text": "Fake smolagent: "})
        if mode == "garbage":
            sys.stdout.write("Traceback (most recent call last): not json\n")
            sys.stdout.flush()
            return 0
        if mode == "killed":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "slow":
            time.sleep(300)
        _out({"type": "text_delta", "text": prompt})
    _out(
        {
            "type": "result",
            "is_error": False,
            "input_tokens": 120,
            "output_tokens": 7,
            "total_cost_usd": 0.0012,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
