"""Run a real llama.cpp HTTP server (the ``xllamacpp`` wheel) on a free loopback port.

The server runs in a child process — not a thread — so it never competes for our GIL, a
crash cannot take the test run down, and SIGTERM stops it cleanly.  ``python -m
milk_tui.testing.llama_server serve MODEL PORT [N_CTX]`` is that child.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

STOP_GRACE_SECS = 0.3
"""After SIGTERM, how long the server's own threads keep running before the process exits:
llama.cpp logs a generation's timings (``eval time = … / N tokens``) from its worker
threads after the reply is sent, and tests read that line once the server has stopped."""
START_TIMEOUT_SECS = 60.0
"""Model load takes ~0.05 s; the margin covers a busy 2-core CI box."""
MODEL_ALIAS = "tiny"


def xllamacpp_available() -> bool:
    try:
        import xllamacpp  # noqa: F401
    except Exception:
        return False
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    def __init__(
        self, model: str | Path, *, n_ctx: int = 512, port: int = 0, log: Path | None = None
    ) -> None:
        self.model = Path(model)
        self.n_ctx = n_ctx
        self.port = port or free_port()
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LlamaServer:
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "milk_tui.testing.llama_server",
                "serve",
                str(self.model),
                str(self.port),
                str(self.n_ctx),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + START_TIMEOUT_SECS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"llama.cpp server exited with {self.proc.returncode}"
                    + (f" (see {self.log})" if self.log else "")
                )
            with contextlib.suppress(httpx.HTTPError):
                r = httpx.get(self.url + "/health", timeout=1.0)
                if r.status_code == 200:
                    return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"llama.cpp server not healthy after {START_TIMEOUT_SECS:.0f}s")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _serve(model: str, port: int, n_ctx: int) -> None:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = min(2, os.cpu_count() or 1)
    params.model_alias = {MODEL_ALIAS}
    params.warmup = False
    server = xllamacpp.Server(params)  # listens from here on
    print("listening", server.listening_address, flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    time.sleep(STOP_GRACE_SECS)  # the C++ threads run on: a finishing generation logs its timings


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "serve":
        _serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 512)
    else:
        print("usage: python -m milk_tui.testing.llama_server serve MODEL PORT [N_CTX]")
        sys.exit(2)
