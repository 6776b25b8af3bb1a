"""The repo's fake OpenAI server, answering also what oterm asks an Ollama server.

oterm 0.26 streams a chat through pydantic-ai's ``OllamaProvider``, i.e. Ollama's
OpenAI-compatible ``POST /v1/chat/completions`` (SSE), which the fake already serves; it
calls Ollama's own API (through the ``ollama`` client) only for model facts: ``/api/show``
when it builds a chat's agent, ``/api/ps`` for the context window after each reply and at
mount, ``/api/tags`` in its model picker.  So one server streams the same bytes to
milk-tui, the minimal Textual app and oterm.
https://github.com/ollama/ollama/blob/main/docs/api.md
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from milk_tui.testing.fake_openai import FakeOpenAIServer, RecordedRequest, _write_simple

MODEL = "fake-model"
_DETAILS = {
    "parent_model": "",
    "format": "gguf",
    "family": "llama",
    "families": ["llama"],
    "parameter_size": "1B",
    "quantization_level": "Q4_0",
}
_ANSWERS: dict[str, Any] = {
    "/api/version": {"version": "0.12.0"},
    "/api/tags": {
        "models": [
            {
                "name": MODEL,
                "model": MODEL,
                "modified_at": "2026-01-01T00:00:00Z",
                "size": 1,
                "digest": "0" * 64,
                "details": _DETAILS,
            }
        ]
    },
    "/api/show": {
        "modelfile": "",
        "parameters": "",
        "template": "{{ .Prompt }}",
        "details": _DETAILS,
        "model_info": {"llama.context_length": 8192},
        "capabilities": ["completion"],
    },
    "/api/ps": {"models": []},
}


class FakeOllamaServer(FakeOpenAIServer):
    """``FakeOpenAIServer`` plus the read-only ``/api/*`` answers listed above."""

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """Chat requests only: the ``ollama`` client POSTs ``/api/show`` too."""
        return [r for r in self.requests if r.method == "POST" and r.path == self.chat_path]

    async def _respond(self, req: RecordedRequest, writer: asyncio.StreamWriter) -> bool:
        answer = _ANSWERS.get(req.path.split("?", 1)[0])
        if answer is None:
            return await super()._respond(req, writer)
        _write_simple(writer, 200, json.dumps(answer), "application/json")
        await writer.drain()
        return True
