"""The one way a real-peer test skips when its peer (the Claude CLI, llama.cpp and the
SmolLM2 model, tmux, the reference MCP server, …) is not installed.

Every such skip carries ``PEER_MISSING`` at the head of its reason, so that
``tests/conftest.py`` can turn it into a failure under CI (``CI`` set): there a missing peer
means the run did not test what it claims to.  ``scripts/test`` passes ``-rs`` so each skip
prints its reason in a local run.
"""

from __future__ import annotations

from typing import NoReturn

import pytest

PEER_MISSING = "peer missing:"


def reason(peer: str) -> str:
    return f"{PEER_MISSING} {peer}"


def skip_peer_missing(peer: str) -> NoReturn:
    """Skip the running test (or fixture) because ``peer`` is not installed."""
    pytest.skip(reason(peer))


def needs_peer(available: bool, peer: str) -> pytest.MarkDecorator:
    """A ``skipif`` mark for a test that cannot run without ``peer``."""
    return pytest.mark.skipif(not available, reason=reason(peer))


def is_peer_missing(skip_reason: str) -> bool:
    return skip_reason.removeprefix("Skipped: ").startswith(PEER_MISSING)
