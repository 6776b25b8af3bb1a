"""The direct shell's PTY child, for real: output, stdin, a terminal size, Ctrl+C."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from milk_tui.engine.pty_child import PtyChild

PY = sys.executable


async def until(cond: object, what: str, deadline: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    while not cond():  # type: ignore[operator]
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def run(command: str, cwd: Path, cols: int = 80, rows: int = 24) -> tuple[PtyChild, bytearray]:
    out = bytearray()
    child = PtyChild(command, str(cwd), cols=cols, rows=rows, on_output=out.extend)
    child.start()
    return child, out


async def test_output_exit_code_and_folder(tmp_path: Path) -> None:
    child, out = run(f"{PY} -c 'import os, sys; print(os.getcwd()); sys.exit(3)'", tmp_path)
    assert await child.wait() == 3
    assert str(tmp_path) in out.decode()


async def test_it_is_a_terminal_of_the_given_size_and_reads_stdin(tmp_path: Path) -> None:
    code = "import os,sys; print(os.isatty(0), os.get_terminal_size()); print('got', input())"
    child, out = run(f'{PY} -c "{code}"', tmp_path, cols=101, rows=33)
    await until(lambda: b"columns=101" in out, "the size line")
    assert b"True" in out and b"lines=33" in out
    child.write(b"hello\r")
    assert await child.wait() == 0
    assert b"got hello" in out


async def test_resize_reaches_the_child(tmp_path: Path) -> None:
    code = (
        "import os,signal,sys\n"
        "signal.signal(signal.SIGWINCH, lambda *a: (print('size', os.get_terminal_size()), sys.exit(0)))\n"
        "print('ready', flush=True)\n"
        "signal.pause()\n"
    )
    script = tmp_path / "w.py"
    script.write_text(code)
    child, out = run(f"{PY} {script}", tmp_path)
    await until(lambda: b"ready" in out, "the child to be ready")
    child.resize(120, 40)
    assert await child.wait() == 0
    assert b"columns=120, lines=40" in out


async def test_ctrl_c_ends_the_whole_foreground_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    child, out = run(f"sleep 300 & echo $! > {pidfile}; echo started; wait", tmp_path)
    await until(lambda: b"started" in out, "the child to start")
    grandchild = int(pidfile.read_text())
    child.interrupt()
    code = await asyncio.wait_for(child.wait(), 30)
    assert code != 0
    await until(lambda: not _alive(grandchild), "the background sleep to end")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False
