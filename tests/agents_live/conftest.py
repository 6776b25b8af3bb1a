"""Two fake OpenAI servers and a commented TOML config naming them (real files, real sockets)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply


def toml_config(one: str, two: str, *, model_one: str = "model-one") -> str:
    return f"""# my milk config — this comment must survive every edit
theme = "milk-dark"  # the colours

# the local one
[[agents]]
name = "one"
url = "{one}"
model = "{model_one}"

[[agents]]
name = "two"   # a second server
url = "{two}"
model = "model-two"

[[agents]]
name = "demo-big"
provider = "demo"
model = "demo-large"
"""


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAIServer, FakeOpenAIServer]]:
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        a.default_reply = FakeReply(text=["from ", "one"])
        b.default_reply = FakeReply(text=["from ", "two"])
        yield a, b


@pytest.fixture
def config_file(milk_home: Path, servers: tuple[FakeOpenAIServer, FakeOpenAIServer]) -> Path:
    p = milk_home / "config.toml"
    p.write_text(toml_config(servers[0].url, servers[1].url))
    p.chmod(0o600)
    return p


# The TUI suite's pinned clocks and its snapshot fixture, for the screens tested here.
from tui.conftest import _pinned_clock, snapshot  # noqa: E402, F401
