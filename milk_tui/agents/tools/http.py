"""http_get and http_request: one HTTP call with httpx, body capped while it streams.

Only ``http`` and ``https`` URLs, and redirects only to those (httpx refuses any other
scheme; we say so).  The body is read until ``max_bytes`` and the connection closed, so a
huge or endless response costs no more than the cap.  The result's ``exit_code`` is the
HTTP status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from milk_tui.agents.base import ToolOutcome

if TYPE_CHECKING:
    import httpx

DEFAULT_MAX_BYTES = 8192
MAX_BYTES_LIMIT = 64 * 1024
"""The most any call may ask for: keeps one result inside a small model's context."""
TIMEOUT_S, CONNECT_TIMEOUT_S = 30.0, 10.0
"""Connect within 10 s; then at most 30 s between bytes (and for write and pool)."""
MAX_REDIRECTS = 5
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


async def http_request(
    url: str,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    body: str = "",
    max_bytes: int | None = None,
    *,
    tool: str = "http_request",
) -> ToolOutcome:
    method = (method or "GET").upper()
    if method not in METHODS:
        return ToolOutcome(f"{tool}: method must be one of {', '.join(METHODS)}", is_error=True)
    if not url.lower().startswith(("http://", "https://")):
        return ToolOutcome(f"{tool}: only http:// and https:// URLs are allowed", is_error=True)
    cap = min(max(int(max_bytes or DEFAULT_MAX_BYTES), 1), MAX_BYTES_LIMIT)
    hdrs = {str(k): str(v) for k, v in (headers or {}).items()}
    import httpx  # here: ~35 ms of imports the start-up need not pay for a tool seldom used

    try:
        async with (
            httpx.AsyncClient(
                timeout=httpx.Timeout(TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
                follow_redirects=True,
                max_redirects=MAX_REDIRECTS,
            ) as client,
            client.stream(method, url, headers=hdrs, content=body.encode() or None) as r,
        ):
            data = bytearray()
            async for chunk in r.aiter_bytes():
                data += chunk
                if len(data) > cap:
                    break
            return _outcome(r, bytes(data), cap)
    except httpx.UnsupportedProtocol as e:
        return ToolOutcome(f"{tool}: refused a non-http URL ({e})", is_error=True)
    except httpx.TooManyRedirects:
        return ToolOutcome(f"{tool}: more than {MAX_REDIRECTS} redirects", is_error=True)
    except httpx.TimeoutException as e:
        return ToolOutcome(f"{tool}: timed out ({type(e).__name__})", is_error=True)
    except httpx.HTTPError as e:
        return ToolOutcome(f"{tool}: {type(e).__name__}: {e}", is_error=True)


def _outcome(r: httpx.Response, data: bytes, cap: int) -> ToolOutcome:
    ctype = r.headers.get("content-type", "")
    head = f"HTTP {r.status_code} {r.reason_phrase}".rstrip()
    if ctype:
        head += f" ({ctype})"
    shown = data[:cap]
    if b"\x00" in shown[:8192]:
        text = (
            f"[binary body, {len(data)}+ bytes not shown]"
            if len(data) > cap
            else (f"[binary body, {len(data)} bytes not shown]")
        )
    else:
        text = shown.decode(r.encoding or "utf-8", errors="replace")
        if len(data) > cap:
            total = r.headers.get("content-length")
            of = f" of {total}" if total else ""
            text += f"\n[truncated: showed the first {cap} bytes{of}; raise max_bytes for more]"
    return ToolOutcome(f"{head}\n\n{text}", exit_code=r.status_code)
