"""An agent over the OpenAI Responses API (``api_format = "responses"``): OpenAI itself, and
servers that offer ``/v1/responses`` (llama.cpp, vLLM …).

Only the wire differs from the chat-completions agent: the same HTTP client, auth,
``token_cmd`` refresh, error wording, availability probe and the one tool loop
(``agents.tool_loop``) — so the permission check, tool limits and cancellation are the
chat path's.  Requests are built by ``openai_responses_wire``, the stream is read by
``openai_responses_stream`` (docs/adr/0024-responses-api-through-the-tool-loop.md).
"""

from __future__ import annotations

from typing import Any

from milk_tui.agents import openai_responses_wire as wire
from milk_tui.agents.base import AgentRequest, ToolSpec
from milk_tui.agents.openai_compat import ChatConversation, OpenAICompatAgent
from milk_tui.agents.openai_responses_stream import ResponsesParser
from milk_tui.agents.round_backend import RoundResult, ToolRun
from milk_tui.config.settings import DEFAULT_CHAT_PATH, AgentConfig


def responses_path(config: AgentConfig) -> str:
    """``chat_path`` when the entry sets one of its own, else ``/v1/responses``: a Go config
    may carry the chat default beside ``api_format``, and that path never serves this API."""
    path = config.chat_path if "chat_path" in config.model_fields_set else ""
    if not path or path == DEFAULT_CHAT_PATH:
        path = wire.DEFAULT_PATH
    return path if path.startswith("/") else "/" + path


class OpenAIResponsesAgent(OpenAICompatAgent):
    parser_class = ResponsesParser
    supports_verdict = False
    """The verdict request is chat-completions shaped; the router streams a plain turn."""

    def __init__(self, config: AgentConfig, **options: Any) -> None:
        """``options`` as for ``OpenAICompatAgent`` (slot, limits, debug log, transport)."""
        super().__init__(config, **options)
        self.chat_url = config.url + responses_path(config)
        self._extra_body = wire.passthrough(self._extra_body, config.reasoning)

    # ----- the conversation, as Responses input items -------------------------------------

    def start_turn(self, request: AgentRequest, tools: list[ToolSpec]) -> ChatConversation:
        items, specs = wire.initial_items(request), [wire.function_tool(t) for t in tools]
        return ChatConversation(items, specs, on_wire=request.on_wire)

    def add_assistant_turn(self, conv: ChatConversation, result: RoundResult) -> None:
        conv.messages += wire.assistant_items(result)
        conv.text_call_format = result.text_call_format

    def add_tool_results(self, conv: ChatConversation, runs: list[ToolRun]) -> None:
        conv.messages += wire.tool_result_items(runs, conv.text_call_format)

    def _round_body(self, conv: ChatConversation) -> bytes:
        return wire.request_body(self.model, conv.messages, conv.tools, self._extra_body)

    @staticmethod
    def _tool_names(conv: ChatConversation) -> list[str]:
        return [t["name"] for t in conv.tools]
