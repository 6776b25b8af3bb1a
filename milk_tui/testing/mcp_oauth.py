"""A small in-memory OAuth 2.1 authorization server for the MCP test server
(``mcp_server.py --oauth``): dynamic client registration, PKCE checked by the SDK's
handlers, and consent given at once (the "user" always says yes), so a test's "browser"
only follows the redirects."""

from __future__ import annotations

import secrets
import time
from typing import Any
from urllib.parse import urlencode

from mcp.server.auth.provider import AccessToken, AuthorizationCode, RefreshToken
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.shared.auth import OAuthToken

TOKEN_TTL_S = 3600


class InstantConsent:
    def __init__(self, token_ttl_s: int = TOKEN_TTL_S) -> None:
        self.token_ttl_s = token_ttl_s
        """Lifetime of an access token; a short one lets a test see a refresh."""
        self.clients: dict[str, Any] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> Any:
        return self.clients.get(client_id)

    async def register_client(self, client_info: Any) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: Any, params: Any) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300,
            client_id=client.client_id, code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )  # fmt: skip
        query = {"code": code, **({"state": params.state} if params.state else {})}
        return f"{params.redirect_uri}?{urlencode(query)}"

    async def load_authorization_code(self, client: Any, authorization_code: str) -> Any:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client: Any, authorization_code: Any) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id, authorization_code.scopes)

    async def load_refresh_token(self, client: Any, refresh_token: str) -> Any:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: Any, refresh_token: Any, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        return self._issue(client.client_id, scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> Any:
        return self.access.get(token)

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(getattr(token, "token", ""), None)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        expires = int(time.time()) + self.token_ttl_s
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access, expires_in=self.token_ttl_s, refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )  # fmt: skip


def auth_settings(base: str) -> AuthSettings:
    return AuthSettings(
        issuer_url=base,
        resource_server_url=f"{base}/mcp",
        client_registration_options=ClientRegistrationOptions(enabled=True),
        validate_token_resource=False,
    )
