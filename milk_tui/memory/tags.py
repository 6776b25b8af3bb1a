"""PLACEHOLDER — the memory issue replaces this module with the real streaming interceptor.

Interface (stable):
    TagInterceptor(nonce, on_need, on_percept).feed(chunk) -> visible text; .flush() -> rest
    strip_tags(text) -> text without any milk tag markup (for persisted turn text)
    consumer_from_hint(body, primary_name, escalation_name) -> (consumer, content)
    need_instruction(nonce) / memory_instruction(nonce, primary_name, escalation_name)
"""

from __future__ import annotations

from collections.abc import Callable


class TagInterceptor:
    def __init__(self, nonce: str, on_need: Callable[[str], None],
                 on_percept: Callable[[str], None]) -> None:
        self.nonce = nonce
        self.on_need = on_need
        self.on_percept = on_percept

    def feed(self, chunk: str) -> str:
        return chunk

    def flush(self) -> str:
        return ""


def strip_tags(text: str) -> str:
    return text


def consumer_from_hint(body: str, primary_name: str, escalation_name: str) -> tuple[str, str]:
    return "all", body


def need_instruction(nonce: str) -> str:
    return ""


def memory_instruction(nonce: str, primary_name: str, escalation_name: str) -> str:
    return ""
