"""OAuth 2.1 for an MCP server through the SDK's ``OAuthClientProvider`` (discovery,
dynamic client registration, PKCE, refresh): tokens stored per server in a 0600 file, the
browser sent to the authorization page, the code received on a one-shot local callback.

Only an explicit "authenticate" (``/mcp`` key ``a``, ``milk-tui mcp auth NAME``) opens a
browser; a background start uses the stored (and refreshed) tokens and otherwise reports
that the server needs authenticating.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from milk_tui.agents.redact import register
from milk_tui.config.mcp import McpServerConfig
from milk_tui.config.paths import write_private

CALLBACK_PATH = "/callback"
PAGE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
    b"milk-tui: authorization received; you can close this tab.\n"
)


class NeedsAuth(Exception):
    """No usable token and no one asked to authenticate now."""


class FileTokenStorage:
    """The SDK's ``TokenStorage`` over one JSON file, written 0600.  Every token and client
    secret read or written is entered in the known secrets (``agents/redact.py``), so a tool
    that echoes one is masked like a configured key."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, key: str, value: Any) -> None:
        data = self._read()
        data[key] = value
        self._save(data)

    def _save(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_private(self.path, json.dumps(data))

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        raw = self._read().get("tokens")
        tokens = OAuthToken.model_validate(raw) if raw else None
        if tokens is not None:
            register(tokens.access_token, tokens.refresh_token or "")
        return tokens

    async def set_tokens(self, tokens: Any) -> None:
        register(tokens.access_token, tokens.refresh_token or "")
        data = self._read()
        data["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        data.pop("expires_at", None)
        if tokens.expires_in is not None:
            data["expires_at"] = time.time() + tokens.expires_in
        self._save(data)

    def expires_at(self) -> float | None:
        """When the stored access token expires (Unix seconds), when the server said."""
        when = self._read().get("expires_at")
        return float(when) if isinstance(when, int | float) else None

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        raw = self._read().get("client")
        info = OAuthClientInformationFull.model_validate(raw) if raw else None
        if info is not None:
            register(info.client_secret or "")
        return info

    async def set_client_info(self, client_info: Any) -> None:
        register(client_info.client_secret or "")
        self._write("client", client_info.model_dump(mode="json", exclude_none=True))

    def forget_client(self) -> None:
        """A new flow registers again: the old registration names another callback port."""
        data = self._read()
        if data.pop("client", None) is not None:
            self._save(data)


class Callback:
    """A one-shot HTTP listener on 127.0.0.1 for the authorization server's redirect."""

    def __init__(self) -> None:
        self._result: asyncio.Future[tuple[str, str]] | None = None
        self._server: asyncio.AbstractServer | None = None
        self.port = 0

    async def start(self) -> str:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            line = (await reader.readline()).decode("latin-1").split()
            query = parse_qs(urlsplit(line[1]).query) if len(line) > 1 else {}
            writer.write(PAGE)
            await writer.drain()
            if self._result is not None and not self._result.done() and "code" in query:
                self._result.set_result((query["code"][0], query.get("state", [""])[0]))
        writer.close()

    async def wait(self) -> Any:
        from mcp.shared.auth import AuthorizationCodeResult

        assert self._result is not None
        code, state = await self._result
        return AuthorizationCodeResult(code=code, state=state or None)

    def close(self) -> None:
        if self._server is not None:
            self._server.close()


async def provider(
    cfg: McpServerConfig,
    token_file: Path,
    *,
    open_url: Callable[[str], None] | None,
) -> tuple[Any, Callback | None]:
    """The httpx auth for ``cfg``; ``open_url`` set = an interactive flow may run now."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    storage = FileTokenStorage(token_file)
    callback: Callback | None = None
    redirect = "http://127.0.0.1/callback"  # only stored tokens are used without a flow
    if open_url is not None:
        callback = Callback()
        redirect = await callback.start()
        storage.forget_client()

    async def redirect_handler(url: str) -> None:
        if open_url is None:
            raise NeedsAuth("not authenticated yet")
        open_url(url)

    async def callback_handler() -> Any:
        if callback is None:
            raise NeedsAuth("not authenticated yet")
        return await callback.wait()

    metadata = OAuthClientMetadata(
        client_name="milk-tui",
        redirect_uris=[redirect],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )

    class StoredExpiry(OAuthClientProvider):
        """The SDK loads stored tokens without their expiry, so an expired one is sent,
        refused (401), and a full sign-in is attempted — which a background start cannot
        do.  With the stored expiry it refreshes first, as it does within one process."""

        async def _initialize(self) -> None:
            await super()._initialize()
            if self.context.current_tokens is not None:
                self.context.token_expiry_time = storage.expires_at()

    auth = StoredExpiry(
        cfg.url, metadata, storage, redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )  # fmt: skip
    return auth, callback
