"""Opening the SDK transport a server entry asks for: a spawned stdio process (its own
process group — the SDK's ``stdio_client`` starts it with ``start_new_session`` — with its
stderr going to the server's log, ``server_log.py``), streamable HTTP, or the older HTTP+SSE."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable
from typing import IO, Any

from milk_tui.config.mcp import McpServerConfig

SSE_READ_TIMEOUT_S = 300.0
"""The SDK's default for a held-open event stream."""


@contextlib.asynccontextmanager
async def open_transport(
    cfg: McpServerConfig,
    headers: dict[str, str],
    errlog: IO[str] | None,
    cwd: str,
    *,
    transport: str,
    on_status: Callable[[int], None],
    auth: Any = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) for ``ClientSession``.  ``on_status`` hears every HTTP
    error status: the SDK turns a 401 into a generic error, and the user needs to know."""
    if transport == "stdio":
        assert errlog is not None, "a stdio server's stderr goes to its log"
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=cfg.command,
            args=list(cfg.args),
            env=dict(cfg.env) or None,
            cwd=cwd
            if cwd and os.path.isdir(cwd)
            else None,  # a gone folder must not look like a missing command
        )
        async with stdio_client(params, errlog=errlog) as streams:  # type: ignore[arg-type]  # a text file with a fileno is what the SDK passes on
            yield streams
        return
    import httpx2
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def hear(response: httpx2.Response) -> None:
        if response.status_code >= 400:
            on_status(response.status_code)

    def client(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        made = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
        made.event_hooks["response"].append(hear)
        return made

    timeout = httpx2.Timeout(cfg.start_timeout, read=SSE_READ_TIMEOUT_S)
    if transport == "sse":
        from mcp.client.sse import sse_client

        async with sse_client(
            cfg.url,
            headers=headers,
            timeout=cfg.start_timeout,
            sse_read_timeout=SSE_READ_TIMEOUT_S,
            httpx_client_factory=client,
            auth=auth,
        ) as streams:
            yield streams
        return
    from mcp.client.streamable_http import streamable_http_client

    async with (
        client(headers=headers, timeout=timeout, auth=auth) as http,
        streamable_http_client(cfg.url, http_client=http) as streams,
    ):
        yield streams
