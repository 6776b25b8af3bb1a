"""A hostile MCP server on the official SDK: every text it hands the client is
``hostile_text.PAYLOAD``.

``python -m milk_tui.testing.mcp_payload_server MODE``: ``serve`` writes the payload to stderr,
names itself with it, and serves a tool whose name, title and description hold it and
whose result is it; ``die`` writes the payload to stderr and exits (a dead server whose
error quotes its stderr).
"""

from __future__ import annotations

import sys
from typing import Any

from milk_tui.testing.hostile_text import PAYLOAD


def build_server() -> Any:
    from mcp.server import mcpserver

    server: Any = mcpserver.MCPServer(PAYLOAD, instructions=PAYLOAD, log_level="CRITICAL")

    def evil() -> str:
        return PAYLOAD

    server.add_tool(evil, name="evil" + PAYLOAD, title=PAYLOAD, description=PAYLOAD)
    server.add_tool(evil, name="plain", description=f"first line {PAYLOAD}\nsecond line")
    return server


def main(argv: list[str] | None = None) -> None:
    mode = (sys.argv[1:] if argv is None else argv)[0]
    print(PAYLOAD, file=sys.stderr, flush=True)
    if mode == "die":
        sys.exit(3)
    build_server().run("stdio")


if __name__ == "__main__":
    main()
