"""Secret masking for every agent backend.

Secrets (API keys, ``token_cmd`` output, AWS keys, secret environment values, auth headers)
must never reach an error message, the wire log or an event.  Each backend owns one
``Redactor``, registers every secret it learns, and passes every outgoing string through it,
backend error excerpts included, since a proxy may echo our own headers back.
"""

from __future__ import annotations

import re

MASK = "***"
MIN_SECRET_CHARS = 4
"""Shorter values would mangle ordinary text and are no real secret anyway."""

SENSITIVE_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "x-auth-token"}
)

_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)[^\s\"',]+"),
    re.compile(
        r"(?i)(\"?(?:authorization|api[_-]?key|x-api-key|access[_-]?token|token|secret)\"?"
        r"\s*[:=]\s*\"?)(?!\*\*\*)[^\s\"',}]+"
    ),
)
"""Secret-looking ``key: value`` pairs and bearer tokens we were never told about."""


class Redactor:
    """Replaces known secret values, and secret-looking pairs, with ``***``."""

    def __init__(self, *secrets: str) -> None:
        self._secrets: list[str] = []
        for s in secrets:
            self.add(s)

    def add(self, secret: str) -> None:
        if secret and len(secret) >= MIN_SECRET_CHARS and secret not in self._secrets:
            self._secrets.append(secret)
            # Longest first, so a secret that contains another is masked whole.
            self._secrets.sort(key=len, reverse=True)

    def add_headers(self, headers: dict[str, str]) -> None:
        """Register the values of configured headers that carry credentials."""
        for k, v in headers.items():
            if k.lower() in SENSITIVE_HEADERS:
                self.add(v)

    def __call__(self, text: str) -> str:
        """Known values and secret-looking pairs: for errors and the wire log."""
        text = self.values(text)
        for rx in _PATTERNS:
            text = rx.sub(_keep_key, text)
        return text

    def values(self, text: str) -> str:
        """Known values only: for tool results, which are file or command output where the
        pattern rules would mangle ordinary code such as ``token = x``."""
        for s in self._secrets:
            if s in text:
                text = text.replace(s, MASK)
        return text

    def headers(self, headers: dict[str, str]) -> dict[str, str]:
        return {
            k: (MASK if k.lower() in SENSITIVE_HEADERS else self(v)) for k, v in headers.items()
        }


def _keep_key(m: re.Match[str]) -> str:
    return m.group(1) + MASK
