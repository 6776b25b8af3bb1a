"""The primary's verdict over a real HTTP fake: a server that honours ``grammar`` and
``logprobs`` gives a word and a probability, one that ignores them gives free text, one that
refuses them (HTTP 400) is asked once more plainly and never again — one notice, no crash."""

from __future__ import annotations

import math
from pathlib import Path

from milk_tui.agents.openai_compat import OpenAICompatAgent
from milk_tui.agents.openai_verdict import REFUSED_NOTICE
from milk_tui.config.settings import AgentConfig, MilkConfig
from milk_tui.engine.router import CHOICES, RouteFlags, Router
from milk_tui.engine.router_classifier import make_agent_classifier
from milk_tui.model.session import Session
from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply, RecordedRequest

INCONCLUSIVE = "describe the module" + " qqq" * 32
"""An escalate verb (+4), no difficulty signal: the score is inconclusive → the verdict."""


def logprobs(token: str, lp: float, top: dict[str, float]) -> dict:
    return {
        "content": [
            {
                "token": token,
                "logprob": lp,
                "top_logprobs": [{"token": t, "logprob": v} for t, v in top.items()],
            }
        ]
    }


class Llama:
    """Answers like llama.cpp: honours the grammar's choices and reports log-probs."""

    def __init__(self, prefer: str, lp: dict[str, float], in_top: bool = True) -> None:
        self.prefer, self.lp, self.in_top = prefer, lp, in_top

    def __call__(self, req: RecordedRequest) -> FakeReply:
        grammar = req.json.get("grammar", "")
        allowed = [c for c in CHOICES if f'"{c}"' in grammar]
        word = self.prefer if self.prefer in allowed else allowed[0]
        top = {"The": -1.0, **({w: self.lp[w] for w in CHOICES} if self.in_top else {})}
        return FakeReply(text=[word], logprobs=logprobs(word, self.lp[word], top))


def agent(srv: FakeOpenAIServer) -> OpenAICompatAgent:
    return OpenAICompatAgent(AgentConfig(name="llama", provider="local", url=srv.url, model="m"))


async def decide(tmp_path: Path, srv: FakeOpenAIServer, a: OpenAICompatAgent | None = None):
    r = Router(MilkConfig(), str(tmp_path), classifier=make_agent_classifier(a or agent(srv)))
    return await r.decide(INCONCLUSIVE, Session(id="s", cwd=str(tmp_path)), RouteFlags())


async def test_sure_primary_keeps_the_prompt(tmp_path):
    with FakeOpenAIServer() as srv:
        srv.responder = Llama("primary", {"primary": -0.1, "escalate": -3.0})
        d = await decide(tmp_path, srv)
        sent = srv.chat_requests[-1].json
    assert (d.target, d.rule) == ("primary", "classifier")
    p = math.exp(-0.1) / (math.exp(-0.1) + math.exp(-3.0))
    assert f"the primary said primary (p={p:.2f})" in d.reason
    assert sent["grammar"] == 'root ::= "primary" | "escalate"'
    assert sent["logprobs"] is True and sent["stream"] is False and "tools" not in sent


async def test_unsure_primary_escalates(tmp_path):
    with FakeOpenAIServer() as srv:
        srv.responder = Llama("primary", {"primary": -0.6, "escalate": -0.9})
        d = await decide(tmp_path, srv)
    assert (d.target, d.rule) == ("escalation", "classifier")
    assert "the primary said primary with p=0.57 < 0.75: unsure" in d.reason


async def test_other_choice_missing_from_top_is_asked_forced(tmp_path):
    with FakeOpenAIServer() as srv:
        srv.responder = Llama("primary", {"primary": -5.0, "escalate": -5.2}, in_top=False)
        d = await decide(tmp_path, srv)
        grammars = [r.json.get("grammar") for r in srv.chat_requests]
    assert grammars == ['root ::= "primary" | "escalate"', 'root ::= "escalate"']
    assert d.target == "escalation" and "p=0.55" in d.reason  # close call: unsure


async def test_server_ignoring_the_grammar_gives_free_text(tmp_path):
    with FakeOpenAIServer() as srv:
        srv.enqueue(FakeReply(text=["Escalate, this is hard."]))
        d = await decide(tmp_path, srv)
        assert (d.target, "no probability offered" in d.reason) == ("escalation", True)
        srv.enqueue(FakeReply(text=["Sure! Here is how to describe it"]))
        d = await decide(tmp_path, srv)
    assert (d.target, d.rule) == ("escalation", "classifier")
    assert "unparsable ('Sure! Here is how to describe it'): unsure" in d.reason


async def test_server_refusing_the_grammar_falls_back_once(tmp_path):
    with FakeOpenAIServer() as srv:
        srv.enqueue(
            FakeReply(status=400, error_body='{"error":{"message":"unknown field grammar"}}'),
            FakeReply(text=["primary"]),
            FakeReply(text=["primary"]),
        )
        a = agent(srv)
        first = await decide(tmp_path, srv, a)
        second = await decide(tmp_path, srv, a)
        sent = [("grammar" in r.json, "logprobs" in r.json) for r in srv.chat_requests]
    assert sent == [(True, True), (False, False), (False, False)]
    assert first.target == "primary" and REFUSED_NOTICE in first.reason
    assert second.target == "primary" and REFUSED_NOTICE not in second.reason  # one notice


async def test_server_error_defaults_to_primary_without_a_traceback(tmp_path):
    with FakeOpenAIServer() as srv:
        srv.enqueue(FakeReply(status=500, error_body="{}"))
        d = await decide(tmp_path, srv)
    assert (d.target, d.rule) == ("primary", "default")
    assert "classifier error (llama: HTTP 500 for the routing verdict)" in d.reason
