"""What an MCP server is sent to prove who we are: a bearer ``api_key``, or the output of
``token_cmd`` (the one runner in ``agents/credential_cmd.py``), as an ``Authorization``
header; OAuth goes through the SDK's provider (``oauth.py``)."""

from __future__ import annotations

from milk_tui.agents.credential_cmd import CredentialCommand
from milk_tui.agents.redact import Redactor, looks_like_a_credential
from milk_tui.config.mcp import McpServerConfig
from milk_tui.config.secrets import env_secrets

TOKEN_CMD_TIMEOUT_S = 30.0


class HeaderAuth:
    """The headers of one server; a ``token_cmd`` runs once and again after a refusal.  Every
    credential of the entry (key, credential environment values, the header sent) is
    registered with ``redact``, so a tool that echoes one is masked in its result."""

    def __init__(self, cfg: McpServerConfig, redact: Redactor) -> None:
        self._cfg = cfg
        self._cmd: CredentialCommand | None = None
        if cfg.auth == "token_cmd" and cfg.token_cmd:
            who = f"mcp server '{cfg.name}'"
            self._cmd = CredentialCommand(
                cfg.token_cmd, "token_cmd", who, cfg.name, redact, TOKEN_CMD_TIMEOUT_S
            )
        self._redact = redact
        redact.add(cfg.api_key)
        for value in env_secrets(cfg.env):
            if looks_like_a_credential(value):  # not ``AUTH_MODE=none``: a word, no secret
                redact.add(value)

    async def headers(self, *, refresh: bool = False) -> dict[str, str]:
        """Raises ``AgentError`` (naming the server) when the token command fails."""
        token = ""
        if self._cmd is not None:
            token = await self._cmd.get(refresh=refresh)
        elif self._cfg.auth == "bearer":
            token = self._cfg.api_key
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._redact.add_headers(headers)
        return headers
