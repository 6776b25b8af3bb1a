"""Auth, secret redaction, the --debug wire log and error wording for HTTP agents.

Secrets (api_key, token_cmd output, Authorization headers) must never reach an error
message, a log or an event (DESIGN §7), so every string that leaves this layer — backend
error excerpts included, since a proxy may echo our headers — passes the ``Redactor``.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

from milk_tui.agents.base import AgentError

TOKEN_CMD_TIMEOUT_SECS = 30.0
"""A credential helper that takes longer is hung; failing beats a frozen turn."""
ERROR_EXCERPT_CHARS = 300
"""Enough for a backend's message; long HTML error pages are cut."""
SENSITIVE_HEADERS = {
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "cookie",
    "x-auth-token",
}

_PATTERNS = [
    re.compile(r"(?i)(bearer\s+)[^\s\"',]+"),
    re.compile(
        r"(?i)(\"?(?:authorization|api[_-]?key|x-api-key|access[_-]?token|token|secret)\"?"
        r"\s*[:=]\s*\"?)(?!\*\*\*)[^\s\"',}]+"
    ),
]


class Redactor:
    """Replaces known secret values and secret-looking ``key: value`` pairs with ``***``."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()

    def add(self, secret: str) -> None:
        if secret and len(secret) >= 4:  # shorter strings would mangle ordinary text
            self._secrets.add(secret)

    def __call__(self, text: str) -> str:
        for s in self._secrets:
            if s in text:
                text = text.replace(s, "***")
        for rx in _PATTERNS:
            text = rx.sub(lambda m: m.group(1) + "***", text)
        return text

    def headers(self, headers: dict[str, str]) -> dict[str, str]:
        return {
            k: ("***" if k.lower() in SENSITIVE_HEADERS else self(v)) for k, v in headers.items()
        }


class WireLog:
    """Append-only raw traffic log for ``--debug``: request bodies and SSE bytes, redacted."""

    def __init__(self, path: Path, agent: str, redact: Redactor) -> None:
        self.path = path
        self.agent = agent
        self.redact = redact
        path.parent.mkdir(parents=True, exist_ok=True)

    def _write(self, text: str) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(self.redact(text))

    def request(self, method: str, url: str, headers: dict[str, str], body: bytes) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        hdrs = json.dumps(self.redact.headers(headers))
        self._write(
            f"\n>>> {stamp} [{self.agent}] {method} {url}\n>>> headers {hdrs}\n"
            f">>> body {body.decode(errors='replace')}\n"
        )

    def response(self, status: int) -> None:
        self._write(f"<<< [{self.agent}] HTTP {status}\n")

    def data(self, chunk: bytes) -> None:
        self._write(chunk.decode(errors="replace"))

    def note(self, text: str) -> None:
        self._write(f"--- [{self.agent}] {text}\n")


class TokenCommand:
    """Runs ``token_cmd`` (``sh -c``), caches its trimmed stdout, re-runs on demand."""

    def __init__(self, cmd: str, agent: str, redact: Redactor) -> None:
        self.cmd = cmd
        self.agent = agent
        self.redact = redact
        self._token = ""
        self._lock: asyncio.Lock | None = None

    async def get(self, *, refresh: bool = False) -> str:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if refresh or not self._token:
                self._token = await self._run()
                self.redact.add(self._token)
            return self._token

    async def _run(self) -> str:
        proc = await asyncio.create_subprocess_shell(
            self.cmd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), TOKEN_CMD_TIMEOUT_SECS)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise AgentError(
                f"agent '{self.agent}': token_cmd timed out after {TOKEN_CMD_TIMEOUT_SECS:.0f}s",
                agent=self.agent,
            ) from None
        except asyncio.CancelledError:
            proc.kill()
            raise
        if proc.returncode != 0:
            why = self.redact(err.decode(errors="replace").strip())[:200]
            raise AgentError(
                f"agent '{self.agent}': token_cmd failed (exit {proc.returncode})"
                + (f": {why}" if why else ""),
                agent=self.agent,
            )
        token = out.decode(errors="replace").strip()
        if not token:
            raise AgentError(f"agent '{self.agent}': token_cmd: empty output", agent=self.agent)
        return token


def backend_message(body: bytes) -> str:
    """The backend's own error text: ``error.message`` of an OpenAI-style body, else raw."""
    text = body.decode(errors="replace").strip()
    try:
        obj: Any = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        err = obj.get("error", obj)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail") or err.get("type")
            if msg:
                text = str(msg)
        elif isinstance(err, str):
            text = err
        elif obj.get("detail"):
            text = str(obj["detail"])
    text = " ".join(text.split())
    if len(text) > ERROR_EXCERPT_CHARS:
        text = text[:ERROR_EXCERPT_CHARS] + "…"
    return text or "(empty body)"
