"""The scripted replies of a fake server: queued replies in order, then a fallback."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

Q = TypeVar("Q")
R = TypeVar("R")


class ReplyQueue(Generic[Q, R]):
    """Thread-safe: a test pushes from its own thread while the server takes from another."""

    def __init__(self) -> None:
        self._replies: deque[R] = deque()
        self._lock = threading.Lock()

    def push(self, *replies: R) -> None:
        with self._lock:
            self._replies.extend(replies)

    def clear(self) -> None:
        with self._lock:
            self._replies.clear()

    def next(self, request: Q, responder: Callable[[Q], R] | None, default: R) -> R:
        """The next queued reply; when none is left, ``responder(request)``, else ``default``."""
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        return default if responder is None else responder(request)
