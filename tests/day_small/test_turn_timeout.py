"""``turn_timeout_secs`` warns and the turn goes on; Ctrl+C stops it (docs/adr/0035): the
real ``milk-tui -p`` process against the fake OpenAI-compatible server dripping its reply."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

from milk_tui.storage.db import Database
from milk_tui.testing.cli_run import MILK_COMMAND
from milk_tui.testing.cli_run import run_milk as milk
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

WARNING = (
    "milk-tui: fake has been at this turn for 1s (turn_timeout_secs); it goes on — Ctrl+C stops it"
)


def _config(home: Path, url: str) -> None:
    (home / "config.toml").write_text(
        'agent = "fake"\nescalation_agent = "fake"\n[[agents]]\nname = "fake"\n'
        f'provider = "local"\nurl = "{url}"\nmodel = "m"\ntimeout_secs = 30\n'
        "[agents.limits]\nturn_timeout_secs = 1\n"
    )


def _turns(home: Path) -> int:
    db = Database(home / "milk.db")
    try:
        return int(db.query("SELECT COUNT(*) FROM turns")[0][0])
    finally:
        db.close()


def test_a_turn_past_turn_timeout_secs_is_warned_about_and_its_answer_kept(
    tmp_path: Path, milk_home: Path
) -> None:
    with FakeOpenAIServer() as srv:
        _config(milk_home, srv.url)
        # A few hundred bytes one at a time, 10 ms apart: seconds past the 1 s limit.
        srv.enqueue(FakeReply(text=["a slow ", "but whole answer"], drip=0.01))
        r = milk("-p", "take your time", "--primary", cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "a slow but whole answer\n"
    assert r.stderr.splitlines() == [WARNING]
    assert _turns(milk_home) == 2


def test_ctrl_c_stops_a_turn_after_its_warning_and_records_nothing(
    tmp_path: Path, milk_home: Path
) -> None:
    with FakeOpenAIServer() as srv:
        _config(milk_home, srv.url)
        srv.enqueue(FakeReply(text=["drip "] * 12, drip=0.05))  # ~100 s of body
        p = subprocess.Popen(
            [*MILK_COMMAND, "-p", "take your time", "--primary"],
            cwd=tmp_path,
            env=os.environ.copy(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        err = p.stderr
        assert err is not None
        reader = threading.Thread(target=lambda: [lines.put(x) for x in err], daemon=True)
        reader.start()
        try:
            deadline = time.monotonic() + 30
            seen: list[str] = []
            while WARNING + "\n" not in seen:
                left = deadline - time.monotonic()
                assert left > 0, f"no turn_timeout_secs warning within 30 s; stderr: {seen}"
                try:
                    seen.append(lines.get(timeout=min(left, 0.5)))
                except queue.Empty:
                    assert reader.is_alive(), f"milk-tui ended before the warning: {seen}"
            assert p.poll() is None, "the turn was stopped at the timeout instead of going on"
            p.send_signal(signal.SIGINT)
            rc = p.wait(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
        reader.join(timeout=10)  # stderr is at its end once the process has exited
        rest = []
        while not lines.empty():
            rest.append(lines.get())
    assert rc == 130, (rc, seen, rest)
    assert "milk-tui: interrupted\n" in seen + rest
    assert _turns(milk_home) == 0
