"""An agent's own inference server, started from its ``run_cmd``: the process side.

``run_cmd`` runs as ``/bin/sh -c RUN_CMD`` (a Go milk config's commands, with their pipes,
variables and ``~``, work unchanged; there are no placeholders).  The shell leads a new
session, so stopping the server signals the whole process group (the shell and the server
it started).  Output goes to ``<data dir>/servers/<agent>.log`` (0600, directory 0700) and a
record of the process to ``<agent>.json`` beside it, so another milk-tui process (``milk-tui
server stop``) finds a server this one started.

Before a recorded process is signalled, its identity is checked: the leader's creation time
(``psutil.Process.create_time``, on every platform psutil supports) must be the one recorded.  Once the leader has exited, a live group
is still ours: Linux does not hand out a process-group id while that group has members.
Readiness (``probe``): ``GET <url>/health`` answering 200 (llama.cpp, with ``"status":
"ok"`` when JSON), or, where there is no such route, the agent's models list answering 200.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from milk_tui.config.paths import ensure_dir, write_private
from milk_tui.model.errors import StorageError

if TYPE_CHECKING:
    import httpx

STOP_WAIT_S = 5.0
"""How long a stopped server gets to exit on SIGTERM before its group gets SIGKILL."""
PROBE_TIMEOUT_S = 1.0
"""One readiness probe on loopback; a loading server answers 503 at once."""
LAST_LINE_MAX = 200

Probe = Literal["ready", "loading", "other", "down"]
"""ready: answers as a server; loading: says so (503); other: something listens that is not
(or not yet) a server; down: nothing listens."""


class ServerError(Exception):
    """One line naming the agent and the cause."""


def safe_name(agent: str) -> str:
    """The agent's name as a file name (no separators, no leading dot)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", agent).lstrip(".") or "_"


def servers_dir(data: Path) -> Path:
    """``<data>/servers`` (0700), or ServerError naming why it cannot be used."""
    try:
        return ensure_dir(data / "servers")
    except StorageError as e:
        raise ServerError(str(e)) from None


def _create_time(pid: int) -> float | None:
    """When the process was created (seconds since the epoch), None when it is gone, a
    zombie, or not ours to inspect."""
    import psutil

    try:
        p = psutil.Process(pid)
        if p.status() == psutil.STATUS_ZOMBIE:
            return None
        return float(p.create_time())
    except (psutil.Error, OSError):
        return None


@dataclass
class ServerRecord:
    agent: str
    pid: int
    pgid: int
    url: str
    log: str
    run_cmd: str
    started_at: float
    start_ticks: int | None = None
    """Read from records written before ``create_time`` (Linux clock ticks); unused."""
    create_time: float | None = None
    keep: bool = False

    def file(self, data: Path) -> Path:
        return data / "servers" / f"{safe_name(self.agent)}.json"

    def save(self, data: Path) -> None:
        write_private(self.file(data), json.dumps(asdict(self)))

    def forget(self, data: Path) -> None:
        with contextlib.suppress(OSError):
            self.file(data).unlink()

    def alive(self) -> bool:
        """Is this recorded process group still running, and still the one we started?"""
        try:
            os.killpg(self.pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return False  # someone else's group now: never ours to signal
        created = _create_time(self.pid)
        if created is not None and self.create_time is not None:
            return created == self.create_time
        return True  # leader gone (or an old record): a live group id is still ours (see above)


def read_records(data: Path) -> list[ServerRecord]:
    """Every recorded server (a file that cannot be read is skipped)."""
    out = []
    for f in sorted((data / "servers").glob("*.json")):
        try:
            out.append(ServerRecord(**json.loads(f.read_text())))
        except (OSError, ValueError, TypeError):
            continue
    return out


def read_record(data: Path, agent: str) -> ServerRecord | None:
    f = data / "servers" / f"{safe_name(agent)}.json"
    try:
        return ServerRecord(**json.loads(f.read_text()))
    except (OSError, ValueError, TypeError):
        return None


@dataclass
class ServerProcess:
    """A server this process launched: its record, and the child to reap."""

    record: ServerRecord
    popen: subprocess.Popen[bytes]
    log_offset: int

    def exit_code(self) -> int | None:
        return self.popen.poll()

    def last_log_line(self) -> str:
        return last_log_line(Path(self.record.log), self.log_offset)


def launch(agent: str, run_cmd: str, url: str, data: Path, *, keep: bool = False) -> ServerProcess:
    """Start ``sh -c run_cmd`` in its own session, output to the agent's log file."""
    d = servers_dir(data)
    log = d / f"{safe_name(agent)}.log"
    try:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    except OSError as e:
        raise ServerError(f"cannot open the log {log} ({e.strerror or e})") from None
    try:
        os.fchmod(fd, 0o600)  # an older log keeps no wider mode than a new one gets
        offset = os.lseek(fd, 0, os.SEEK_END)
        popen = subprocess.Popen(
            ["/bin/sh", "-c", run_cmd],
            stdin=subprocess.DEVNULL,
            stdout=fd,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as e:
        raise ServerError(f"cannot start run_cmd ({e.strerror or e})") from None
    finally:
        os.close(fd)
    record = ServerRecord(
        agent=agent,
        pid=popen.pid,
        pgid=popen.pid,  # the session leader leads its own group
        url=url,
        log=str(log),
        run_cmd=run_cmd,
        started_at=time.time(),
        create_time=_create_time(popen.pid),
        keep=keep,
    )
    try:
        record.save(data)
    except OSError as e:
        stop(record, popen)
        raise ServerError(f"cannot record the server in {d} ({e.strerror or e})") from None
    return ServerProcess(record, popen, offset)


def last_log_line(path: Path, offset: int = 0) -> str:
    """The last non-empty line written after ``offset`` (shortened), or ""."""
    try:
        with path.open("rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(offset, size - 4096))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [ln.strip() for ln in tail.splitlines() if ln.strip()]
    line = lines[-1] if lines else ""
    line = "".join(ch if ch.isprintable() else " " for ch in line)
    return line if len(line) <= LAST_LINE_MAX else line[: LAST_LINE_MAX - 1] + "…"


def stop(
    record: ServerRecord, popen: subprocess.Popen[bytes] | None = None, wait_s: float = STOP_WAIT_S
) -> bool:
    """SIGTERM the server's group, SIGKILL it after ``wait_s``; forget its record.  False
    when it was no longer running (or no longer ours)."""
    if not record.alive():
        if popen is not None:
            popen.poll()
        return False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(record.pgid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if popen is not None:
            popen.poll()  # reap the leader: a zombie still counts as a group member
        if not _group_alive(record.pgid):
            return True
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(record.pgid, signal.SIGKILL)
    if popen is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(2)
    return True


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def models_path(chat_path: str) -> str:
    """The models list beside the chat route: ``/v1/chat/completions`` → ``/v1/models``."""
    path = chat_path if chat_path.startswith("/") else "/" + chat_path
    if path.endswith("/chat/completions"):
        return path[: -len("/chat/completions")] + "/models"
    return "/v1/models"


async def probe(
    client: httpx.AsyncClient, url: str, chat_path: str, headers: dict[str, str]
) -> Probe:
    import httpx  # here: start-up does not pay for it until a server is probed

    try:
        r = await client.get(url + "/health", headers=headers, timeout=PROBE_TIMEOUT_S)
        if r.status_code == 200:
            try:
                body = r.json()
            except ValueError:
                return "ready"
            ok = not isinstance(body, dict) or body.get("status", "ok") == "ok"
            return "ready" if ok else "loading"
        if r.status_code == 503:
            return "loading"
        if r.status_code in (404, 405):
            r = await client.get(
                url + models_path(chat_path), headers=headers, timeout=PROBE_TIMEOUT_S
            )
            return "ready" if r.status_code == 200 else "other"
        return "other"
    except (httpx.ConnectError, httpx.ConnectTimeout):
        return "down"
    except httpx.HTTPError:
        return "other"
