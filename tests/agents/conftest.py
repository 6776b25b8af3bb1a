"""Fixtures for the OpenAI-compatible agent: the fake server and a real llama.cpp server."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from peer_missing import skip_peer_missing

from milk_tui.testing.fake_openai import FakeOpenAIServer
from milk_tui.testing.llama_server import LlamaServer, xllamacpp_available
from milk_tui.testing.tiny_gguf import write_tiny_gguf

LLAMA_N_CTX = 512
"""Small on purpose: the over-long-prompt test must exceed it cheaply."""


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("gguf") is None:
        skip_peer_missing("gguf, to generate the tiny test model (pip install gguf)")
    return write_tiny_gguf(tmp_path_factory.mktemp("model") / "tiny.gguf")


@pytest.fixture(scope="session")
def llama_server(
    tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LlamaServer]:
    if not xllamacpp_available():
        skip_peer_missing("xllamacpp, the real llama.cpp server (pip install xllamacpp)")
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with LlamaServer(tiny_gguf, n_ctx=LLAMA_N_CTX, log=log) as srv:
        yield srv
