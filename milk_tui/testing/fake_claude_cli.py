#!/usr/bin/env python3
"""A stand-in for ``claude --print --output-format stream-json`` (stdlib only).

Fast unit tests and the demo use it where the real CLI would be slow or absent.  It speaks
the same line shapes as the real CLI 2.1.x (init, stream_event deltas, assistant, user
tool results, control_request, result) and follows a script:

* ``FAKE_CLAUDE_SCRIPT`` — JSON file with a list of turns, one consumed per invocation
  (the last one repeats).  Turn keys, all optional: ``text``, ``thinking``, ``tool``
  (``{"name", "input", "result"}``), ``permission`` (``{"tool_name", "input"}`` → a
  control_request; the answer is recorded), ``error`` (result with ``is_error``),
  ``api_status``, ``stop_reason`` (the result's; ``end_turn`` by default), ``exit``, ``no_result`` (die without a result line), ``stderr``, ``sleep`` (seconds before answering),
  ``spawn_child`` (start ``sleep 300`` in the group; ``child.pid`` and ``cli.pid`` land in the
  state dir),
  ``usage``, ``cost``, ``subagent_usage``, ``raw`` (extra lines printed verbatim),
  ``big_line`` (bytes of an extra unknown-type line).
* ``FAKE_CLAUDE_STATE`` — directory for ``calls.jsonl`` (argv, prompt, context, cwd of
  each call), the turn counter and known session ids.  Defaults to the script's folder.

Without a script it answers "Fake Claude received: <prompt>".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

VERSION = "2.1.197 (Fake Claude Code)"


def _out(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _flag(argv: list[str], name: str) -> str:
    if name in argv:
        i = argv.index(name)
        if i + 1 < len(argv):
            return argv[i + 1]
    return ""


def _state_dir() -> Path:
    explicit = os.environ.get("FAKE_CLAUDE_STATE")
    if explicit:
        d = Path(explicit)
    elif os.environ.get("FAKE_CLAUDE_SCRIPT"):
        d = Path(os.environ["FAKE_CLAUDE_SCRIPT"]).parent
    else:
        d = Path(os.environ.get("TMPDIR", "/tmp")) / "fake-claude-state"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _next_turn(state: Path) -> dict[str, Any]:
    script = os.environ.get("FAKE_CLAUDE_SCRIPT")
    if not script:
        return {}
    turns = json.loads(Path(script).read_text())
    if isinstance(turns, dict):
        turns = [turns]
    counter = state / "turn-counter"
    n = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(n + 1))
    return turns[min(n, len(turns) - 1)] if turns else {}


def _read_prompt(argv: list[str]) -> str:
    if _flag(argv, "--input-format") == "stream-json":
        line = sys.stdin.readline()
        try:
            content = json.loads(line)["message"]["content"]
        except (ValueError, KeyError, TypeError):
            return ""
        if isinstance(content, list):
            return "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return str(content)
    if "--" in argv:
        return " ".join(argv[argv.index("--") + 1 :])
    return sys.stdin.read()


def _ev(sid: str, event: dict[str, Any]) -> None:
    _out(
        {
            "type": "stream_event",
            "event": event,
            "session_id": sid,
            "parent_tool_use_id": None,
            "uuid": str(uuid.uuid4()),
        }
    )


def _tool_use(sid: str, id_prefix: str, name: str, tool_input: dict[str, Any]) -> str:
    """An assistant message holding one tool call; returns the call's id."""
    call_id = id_prefix + uuid.uuid4().hex[:8]
    _message(sid, [{"type": "tool_use", "id": call_id, "name": name, "input": tool_input}])
    return call_id


def _block_events(b: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A content block's ``content_block_start`` body and the deltas that stream it."""
    if b["type"] == "text":
        t = b["text"]
        step = max(1, len(t) // 3)
        texts = [t[j : j + step] for j in range(0, len(t), step)]
        return {"type": "text", "text": ""}, [{"type": "text_delta", "text": x} for x in texts]
    if b["type"] == "thinking":
        delta = {"type": "thinking_delta", "thinking": b["thinking"]}
        return {"type": "thinking", "thinking": ""}, [delta]
    start = {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}
    return start, [{"type": "input_json_delta", "partial_json": json.dumps(b["input"])}]


def _message(sid: str, blocks: list[dict[str, Any]]) -> None:
    """One assistant message: stream events first, then the whole message (like the CLI)."""
    mid = "msg_" + uuid.uuid4().hex[:20]
    _ev(
        sid,
        {
            "type": "message_start",
            "message": {"id": mid, "role": "assistant", "content": [], "model": "fake"},
        },
    )
    for i, b in enumerate(blocks):
        start, deltas = _block_events(b)
        _ev(sid, {"type": "content_block_start", "index": i, "content_block": start})
        for d in deltas:
            _ev(sid, {"type": "content_block_delta", "index": i, "delta": d})
        _ev(sid, {"type": "content_block_stop", "index": i})
    _out(
        {
            "type": "assistant",
            "message": {"id": mid, "role": "assistant", "model": "fake", "content": blocks},
            "parent_tool_use_id": None,
            "session_id": sid,
        }
    )
    _ev(sid, {"type": "message_stop"})


def _tool_result(sid: str, call_id: str, content: str, is_error: bool) -> None:
    _out(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": call_id,
                        "content": content,
                        "is_error": is_error,
                    }
                ],
            },
            "parent_tool_use_id": None,
            "session_id": sid,
        }
    )


def _result(sid: str, turn: dict[str, Any], text: str) -> None:
    usage = turn.get("usage") or {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }
    is_error = bool(turn.get("error"))
    res: dict[str, Any] = {
        "type": "result",
        "subtype": "success",
        "is_error": is_error,
        "api_error_status": turn.get("api_status"),
        "num_turns": 1,
        "result": turn["error"] if is_error else text,
        "stop_reason": turn.get("stop_reason", "end_turn"),
        "session_id": sid,
        "total_cost_usd": turn.get("cost", 0.001),
        "usage": usage,
    }
    if turn.get("subagent_usage"):
        res["subagent_usage"] = turn["subagent_usage"]
    _out(res)


def main(argv: list[str]) -> int:
    if "--version" in argv:
        print(VERSION)
        return 0
    state = _state_dir()
    turn = _next_turn(state)
    prompt = _read_prompt(argv)
    ctx_file = _flag(argv, "--append-system-prompt-file")
    context = Path(ctx_file).read_text() if ctx_file and Path(ctx_file).exists() else None
    call: dict[str, Any] = {"argv": argv, "prompt": prompt, "context": context, "cwd": os.getcwd()}
    mcp_file = _flag(argv, "--mcp-config")  # removed after the run: its server names kept
    if mcp_file and Path(mcp_file).exists():
        call["mcp_servers"] = sorted(json.loads(Path(mcp_file).read_text())["mcpServers"])
    sessions = state / "sessions"
    sessions.mkdir(exist_ok=True)
    resume = _flag(argv, "--resume")
    sid = resume or _flag(argv, "--session-id") or str(uuid.uuid4())

    def record() -> None:
        with open(state / "calls.jsonl", "a") as f:
            f.write(json.dumps(call) + "\n")

    if resume and not (sessions / resume).exists():
        msg = f"No conversation found with session ID: {resume}"
        _out(
            {
                "type": "result",
                "subtype": "error_during_execution",
                "is_error": True,
                "session_id": resume,
                "errors": [msg],
                "usage": {},
                "total_cost_usd": 0,
            }
        )
        sys.stderr.write(msg + "\n")
        record()
        return 1
    (sessions / sid).touch()
    _out(
        {
            "type": "system",
            "subtype": "init",
            "session_id": sid,
            "cwd": os.getcwd(),
            "tools": ["Bash", "Read"],
            "model": "fake",
        }
    )
    if turn.get("spawn_child"):
        child = subprocess.Popen(["sleep", "300"])
        (state / "child.pid").write_text(str(child.pid))
        (state / "cli.pid").write_text(str(os.getpid()))
    if turn.get("sleep"):
        time.sleep(float(turn["sleep"]))
    for raw in turn.get("raw") or []:
        sys.stdout.write((raw if isinstance(raw, str) else json.dumps(raw)) + "\n")
    if turn.get("big_line"):
        sys.stdout.write(
            json.dumps({"type": "unknown_big", "pad": "x" * int(turn["big_line"])}) + "\n"
        )
    if turn.get("thinking"):
        _message(sid, [{"type": "thinking", "thinking": turn["thinking"]}])
    if turn.get("permission"):
        perm = turn["permission"]
        call_id = _tool_use(sid, "toolu_perm_", perm["tool_name"], perm.get("input", {}))
        _out(
            {
                "type": "control_request",
                "request_id": "req_" + uuid.uuid4().hex[:8],
                "request": {
                    "subtype": "can_use_tool",
                    "tool_name": perm["tool_name"],
                    "input": perm.get("input", {}),
                    "tool_use_id": call_id,
                },
            }
        )
        answer = json.loads(sys.stdin.readline() or "{}")
        call["control_response"] = answer
        behavior = (((answer.get("response") or {}).get("response")) or {}).get("behavior")
        _tool_result(sid, call_id, "ran" if behavior == "allow" else "denied", behavior != "allow")
    if turn.get("tool"):
        tool = turn["tool"]
        call_id = _tool_use(sid, "toolu_", tool["name"], tool.get("input", {}))
        _tool_result(sid, call_id, tool.get("result", "ok"), bool(tool.get("is_error")))
    text = turn.get("text", f"Fake Claude received: {prompt}" if not turn else "")
    if text:
        _message(sid, [{"type": "text", "text": text}])
    record()
    if turn.get("stderr"):
        sys.stderr.write(turn["stderr"] + "\n")
    if turn.get("no_result"):  # a crash: no result line at all
        return int(turn.get("exit", 1))
    _result(sid, turn, text)
    return int(turn.get("exit", 1 if turn.get("error") else 0))


def write_launcher(directory: Path) -> Path:
    """An executable ``claude`` in ``directory`` that runs this script with our Python.

    ``AgentConfig.bin`` is one path, so tests and the demo need a real file to point at.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "claude"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" "$@"\n')
    path.chmod(0o755)
    return path


class FakeCli:
    """The stdlib fake CLI plus its script and the calls it recorded."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = write_launcher(root / "bin")
        self.state = root / "state"
        self.state.mkdir()
        self.script = self.state / "script.json"
        self.env = {"FAKE_CLAUDE_SCRIPT": str(self.script), "FAKE_CLAUDE_STATE": str(self.state)}

    def turns(self, *turns: dict[str, Any]) -> None:
        self.script.write_text(json.dumps(list(turns)))
        (self.state / "turn-counter").unlink(missing_ok=True)

    @property
    def calls(self) -> list[dict[str, Any]]:
        path = self.state / "calls.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
