"""Opening the SDK transport a server entry asks for: a spawned stdio process (its own
process group — the SDK's ``stdio_client`` starts it with ``start_new_session`` — with its
stderr appended to a log file), streamable HTTP, or the older HTTP+SSE."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import IO, Any

from milk_tui.config.mcp import McpServerConfig

SSE_READ_TIMEOUT_S = 300.0
"""The SDK's default for a held-open event stream."""


@contextlib.asynccontextmanager
async def open_transport(
    cfg: McpServerConfig, headers: dict[str, str], errlog: IO[str], cwd: str
) -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) for ``ClientSession``."""
    if cfg.transport == "stdio":
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=cfg.command, args=list(cfg.args), env=dict(cfg.env) or None, cwd=cwd or None
        )
        async with stdio_client(params, errlog=errlog) as streams:  # type: ignore[arg-type]  # a text file with a fileno is what the SDK passes on
            yield streams
        return
    import httpx2
    from mcp.shared._httpx_utils import create_mcp_http_client

    timeout = httpx2.Timeout(cfg.start_timeout, read=SSE_READ_TIMEOUT_S)
    if cfg.transport == "sse":
        from mcp.client.sse import sse_client

        async with sse_client(
            cfg.url, headers=headers, timeout=cfg.start_timeout, sse_read_timeout=SSE_READ_TIMEOUT_S
        ) as streams:
            yield streams
        return
    from mcp.client.streamable_http import streamable_http_client

    async with (
        create_mcp_http_client(headers=headers, timeout=timeout) as client,
        streamable_http_client(cfg.url, http_client=client) as streams,
    ):
        yield streams
