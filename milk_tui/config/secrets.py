"""Which configured values are secrets: the agent keys, the headers that carry a
credential, and the environment values an MCP server is given under a credential's name.  ``agents/redact.py`` masks these values everywhere; ``config/load.py`` warns
when a file holding one is readable by others (docs/adr/0015-no-secret-on-disk.md).
"""

from __future__ import annotations

import re

SECRET_AGENT_KEYS = ("api_key", "aws_secret", "aws_token", "aws_key_id")

CREDENTIAL_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "x-auth-token"}
)
_CREDENTIAL_HEADER_NAME = re.compile(
    r"(?i)auth|key|token|secret|cookie|session|passw|signature|credential"
)
"""A header whose name says it carries a credential (``X-Goog-Api-Key``, ``X-Custom-Token``),
besides the well-known names above."""


def is_credential_header(name: str) -> bool:
    return name.lower() in CREDENTIAL_HEADERS or bool(_CREDENTIAL_HEADER_NAME.search(name))


def header_secrets(headers: dict[str, str]) -> list[str]:
    """The credential values of configured headers: the whole value, and the token after an
    auth scheme (``Bearer abc`` → also ``abc``), since a server may echo either."""
    out = []
    for k, v in headers.items():
        if is_credential_header(k) and isinstance(v, str) and v:
            out.append(v)
            scheme, _, token = v.strip().partition(" ")
            if token and scheme.isalpha():
                out.append(token.strip())
    return out


def env_secrets(env: dict[str, str]) -> list[str]:
    """The values of environment variables whose name says they carry a credential
    (``GITHUB_TOKEN``, ``API_KEY``, ``PGPASSWORD``): an MCP server's ``env`` holds its keys
    beside ordinary settings (paths, flags), and masking a path would mangle every result."""
    return [v for k, v in env.items() if isinstance(v, str) and v and is_credential_header(k)]
