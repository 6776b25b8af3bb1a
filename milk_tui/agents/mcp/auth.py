"""What an MCP server is sent to prove who we are: a bearer ``api_key``, or the output of
``token_cmd`` (the one runner in ``agents/credential_cmd.py``), as an ``Authorization``
header; OAuth goes through the SDK's provider (``oauth.py``)."""

from __future__ import annotations

from milk_tui.agents.credential_cmd import CredentialCommand
from milk_tui.agents.redact import Redactor
from milk_tui.config.mcp import McpServerConfig

TOKEN_CMD_TIMEOUT_S = 30.0


class HeaderAuth:
    """The headers of one server; a ``token_cmd`` runs once and again after a refusal."""

    def __init__(self, cfg: McpServerConfig, redact: Redactor) -> None:
        self._cfg = cfg
        self._cmd: CredentialCommand | None = None
        if cfg.auth == "token_cmd" and cfg.token_cmd:
            who = f"mcp server '{cfg.name}'"
            self._cmd = CredentialCommand(
                cfg.token_cmd, "token_cmd", who, cfg.name, redact, TOKEN_CMD_TIMEOUT_S
            )
        if cfg.api_key:
            redact.add(cfg.api_key)

    async def headers(self, *, refresh: bool = False) -> dict[str, str]:
        """Raises ``AgentError`` (naming the server) when the token command fails."""
        token = ""
        if self._cmd is not None:
            token = await self._cmd.get(refresh=refresh)
        elif self._cfg.auth == "bearer":
            token = self._cfg.api_key
        return {"Authorization": f"Bearer {token}"} if token else {}
