"""Why an MCP server failed, in the one line its warning and ``/mcp`` show: what the start
was waiting for, the HTTP status heard, a line it wrote that is not MCP, the last line of its
stderr.  The caller masks the line (``Redactor``) before anyone sees it."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from milk_tui.agents.base import AgentError
from milk_tui.config.mcp import McpServerConfig

_AUTH_ERRORS = ("NeedsAuth", "OAuthFlowError", "OAuthTokenError", "OAuthRegistrationError")


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one connection knew when it failed."""

    cfg: McpServerConfig
    transport: str
    phase: str
    """What the start waited for: ``connect``, ``initialize`` or ``tools/list``."""
    limit: float
    """The start's deadline, in seconds."""
    http_status: int
    bad_output: str
    stderr_tail: str


def describe(e: BaseException, at: Attempt) -> tuple[str, bool]:
    """(the reason, whether it was a refused or missing sign-in)."""
    e = innermost(e)
    name = at.cfg.name
    if isinstance(e, AgentError):
        return str(e).removeprefix(f"mcp server '{name}': "), False
    if type(e).__name__ in _AUTH_ERRORS:
        hint = f"authenticate with /mcp or `milk-tui mcp auth {name}`"
        why = f"{e}; {hint}" if type(e).__name__ == "NeedsAuth" else f"sign-in failed: {e}"
        return why, True
    if isinstance(e, TimeoutError):
        if at.phase == "connect":
            what = f"could not connect and start within {at.limit:g}s"
        else:
            what = f"no answer to {at.phase} within {at.limit:g}s"
    elif isinstance(e, FileNotFoundError):
        what = f"cannot start {at.cfg.command!r}: not found"
    elif isinstance(e, OSError):
        what = f"cannot start {at.cfg.command!r}: {e.strerror or e}"
    elif at.http_status in (401, 403):
        what = f"the server refused the credentials (HTTP {at.http_status})"
        if at.cfg.auth == "none":
            what += "; set auth (bearer, token_cmd or oauth) for it"
    elif at.http_status:
        what = f"HTTP {at.http_status} from {at.cfg.url}"
    elif closed(e):
        what = "the process exited" if at.transport == "stdio" else "connection closed"
    else:
        what = _http_reason(e) or f"{type(e).__name__}: {e}".rstrip(": ")
    if at.bad_output:
        what += f" (it wrote something that is not MCP: {at.bad_output})"
    if at.stderr_tail and at.transport == "stdio":
        what += f"; stderr: {at.stderr_tail}"
    return what, False


def innermost(e: BaseException) -> BaseException:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


def bad_line(e: Exception) -> str:
    """The offending line of a parse error (pydantic keeps it as the error's input)."""
    errors = getattr(e, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            return repr(str(errors()[0].get("input", ""))[:80])
    return (str(e).splitlines() or ["?"])[0][:120]


def closed(e: BaseException) -> bool:
    from mcp import MCPError
    from mcp_types import CONNECTION_CLOSED

    return isinstance(e, MCPError) and e.code == CONNECTION_CLOSED


def _http_reason(e: BaseException) -> str:
    response = getattr(e, "response", None)
    status = getattr(response, "status_code", None)
    if isinstance(status, int):
        if status in (401, 403):
            return f"the server refused the credentials (HTTP {status})"
        return f"HTTP {status} from {getattr(getattr(response, 'request', None), 'url', '')}"
    name = type(e).__name__
    if name in ("ConnectError", "ConnectTimeout"):
        return f"cannot connect: {e}"
    return ""
