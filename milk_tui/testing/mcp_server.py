"""A small MCP server on the official SDK for the client's tests and benchmark.

``python -m milk_tui.testing.mcp_server MODE [--http PORT] [--token TOKEN]``

Modes: ``ok`` serves tools ``add``, ``fail`` (a tool error), ``big`` (a 10 MB text),
``slow`` (sleeps ``seconds``) and ``grow`` (adds a tool ``extra`` and announces the new
list); ``exit`` writes a line to stderr and exits at once; ``garbage`` prints lines that
are not JSON-RPC and then hangs; ``hang`` reads its input and never answers; ``sleepy``
waits two seconds before serving like ``ok`` (a slow starter); ``files`` serves like ``ok``
plus ``write_note(path, text)``, which writes ``text`` to ``path`` (relative to the server's
working folder) wherever that is — a server that trusts its caller with paths.  ``--http PORT`` serves
streamable HTTP on 127.0.0.1 instead of stdio; with ``--token`` every request without
``Authorization: Bearer TOKEN`` gets 401; with ``--oauth`` the server is also its own OAuth
authorization server (``mcp_oauth.py``) and wants its tokens.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

BIG_CHARS = 10 * 1024 * 1024


def build_server(oauth_base: str = "", token_ttl_s: int = 0) -> Any:
    from mcp.server import mcpserver  # late: the failing modes exit before this ~1 s import

    # The SDK evaluates the (string) annotations in this module's globals to find ``ctx``.
    globals()["Context"] = mcpserver.Context
    auth: dict[str, Any] = {}
    if oauth_base:
        from milk_tui.testing.mcp_oauth import TOKEN_TTL_S, InstantConsent, auth_settings

        consent = InstantConsent(token_ttl_s or TOKEN_TTL_S)
        auth = {"auth_server_provider": consent, "auth": auth_settings(oauth_base)}
    server: Any = mcpserver.MCPServer("milk-test", **auth)

    @server.tool()
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    @server.tool()
    def fail(why: str = "it broke") -> str:
        """Always fails."""
        raise ValueError(why)

    @server.tool()
    def big() -> str:
        """Ten megabytes of text."""
        return "x" * BIG_CHARS

    @server.tool()
    async def slow(seconds: float = 5.0) -> str:
        """Sleep, then answer."""
        import anyio

        await anyio.sleep(seconds)
        return "slept"

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Add a tool named extra and tell the client."""

        def extra() -> str:
            """A tool that appeared later."""
            return "extra!"

        server.add_tool(extra)
        await ctx.session.send_tool_list_changed()
        return "grown"

    return server


def _serve_http(server: Any, port: int, token: str) -> None:
    import uvicorn

    app = server.streamable_http_app()
    if token:
        inner = app

        async def app(scope: Any, receive: Any, send: Any) -> None:  # noqa: F811 — wraps the app above
            if scope["type"] == "http":
                headers = dict(scope.get("headers") or [])
                if headers.get(b"authorization", b"").decode() != f"Bearer {token}":
                    await send({"type": "http.response.start", "status": 401, "headers": []})
                    await send({"type": "http.response.body", "body": b"unauthorized"})
                    return
            await inner(scope, receive, send)

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("mode")
    p.add_argument("--http", type=int, default=0)
    p.add_argument("--token", default="")
    p.add_argument("--oauth", action="store_true", help="with --http: OAuth 2.1 required")
    p.add_argument("--token-ttl", type=int, default=0, help="with --oauth: access token seconds")
    args = p.parse_args(argv)
    if args.mode == "exit":
        print("milk-test: refusing to start", file=sys.stderr, flush=True)
        sys.exit(3)
    if args.mode == "garbage":
        print("this is not json-rpc", flush=True)
        print("<html>nor this</html>", flush=True)
        time.sleep(600)
    if args.mode == "hang":
        for _ in sys.stdin:
            pass
        return
    if args.mode == "sleepy":
        time.sleep(2)
    server = build_server(f"http://127.0.0.1:{args.http}" if args.oauth else "", args.token_ttl)
    if args.mode == "files":

        @server.tool()
        def write_note(path: str, text: str) -> str:
            """Write text to a file."""
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            return f"wrote {path}"

    if args.http:
        _serve_http(server, args.http, args.token)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
