"""How an OpenAI-compatible agent words a failure: one line naming the agent, its secrets
redacted, and whether a retry or the other agent may help (``retryable``,
``unreachable``: engine/availability.py)."""

from __future__ import annotations

import httpx

from milk_tui.agents.base import AgentError
from milk_tui.agents.openai_sse import SSEBackendError, SSEFormatError
from milk_tui.agents.redact import Redactor
from milk_tui.config.settings import AgentConfig


class AgentErrors:
    def __init__(self, name: str, config: AgentConfig, redact: Redactor) -> None:
        self._name = name
        self._config = config
        self._redact = redact

    def err(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        unreachable: bool = False,
    ) -> AgentError:
        return AgentError(
            self._redact(f"agent '{self._name}'{'' if unreachable else ':'} {message}"),
            agent=self._name,
            status=status,
            retryable=retryable,
            unreachable=unreachable,
        )

    def stream(self, e: Exception) -> AgentError:
        """A fault while the reply was read."""
        if isinstance(e, SSEFormatError):
            return self.err(f"malformed SSE chunk from backend: {e}")
        if isinstance(e, SSEBackendError):
            return self.err(f"backend error in stream: {e}")
        assert isinstance(e, httpx.HTTPError)
        return self.transport(e)

    def transport(self, e: httpx.HTTPError) -> AgentError:
        if isinstance(e, httpx.ConnectTimeout):
            return self._unreachable("connect timed out")
        if isinstance(e, httpx.ConnectError):
            return self._unreachable(_reason(e))
        if isinstance(e, httpx.TimeoutException):
            return self.err(
                f"no response from {self._config.url} for "
                f"{self._config.timeout_secs:g}s (timeout_secs)",
                retryable=True,
            )
        if isinstance(e, httpx.RemoteProtocolError | httpx.ReadError):
            return self.err(f"stream ended unexpectedly ({_reason(e)})", retryable=True)
        return self.err(f"HTTP transport error: {_reason(e)}")

    def _unreachable(self, why: str) -> AgentError:
        return self.err(
            f"unreachable at {self._config.url} ({why})", retryable=True, unreachable=True
        )


def _reason(e: Exception) -> str:
    return str(e) or type(e).__name__
