"""MCP servers as tool sources: connections (``connection.py``), how to reach one
(``transports.py``, ``auth.py``), the set of them (``manager.py``), their tools in a tool box
(``toolbox.py``, results in ``results.py``) and the file that hands them to the Claude CLI
(``claude_config.py``).  See docs/adr/0019-mcp-servers.md.

Nothing is imported here: a run without MCP servers never loads these modules."""
