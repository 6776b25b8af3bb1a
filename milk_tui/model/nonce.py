"""Tag nonces: 8 characters of [a-z0-9] from ``secrets``, one per agent slot per session.

Stable for a session so prompt prefixes stay cacheable; ``/escalate fresh`` rotates them.
"""

from __future__ import annotations

import secrets
import string

NONCE_ALPHABET = string.ascii_lowercase + string.digits
NONCE_LENGTH = 8
"""36^8 ≈ 2.8e12 — a model cannot guess it, and it stays short enough to keep prompts cacheable."""


def new_nonce() -> str:
    return "".join(secrets.choice(NONCE_ALPHABET) for _ in range(NONCE_LENGTH))
