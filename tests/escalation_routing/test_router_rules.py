"""Router decision tables: explicit flags, state, hard rules, weighted score, classifier
— every rule, the default lists, and config overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from milk_tui.config.settings import MilkConfig
from milk_tui.engine.router import CLASSIFIER_PROMPT, RouteFlags, Router
from milk_tui.engine.router_rules import RouterRules
from milk_tui.model.session import Session, State

PAD = " qqq" * 32
"""Neutral filler (no verb, keyword or prefix inside) that lifts a prompt past the
short-prompt rule: 30 tokens × 4 = 120 characters."""


def long(text: str) -> str:
    return text + PAD


def make_router(tmp_path: Path, rules: dict | None = None, classifier=None, **cfg) -> Router:
    # These tables test the rule layers on their own: the difficulty signals that come
    # before them (and would take "design", "why", a 2,000-token prompt) are tested in
    # tests/routing/test_router_signals.py.
    rules = {"difficulty_threshold": 0, **(rules or {})}
    return Router(MilkConfig(rules=rules, **cfg), str(tmp_path), classifier=classifier)


def session(state: State = State.ROUTING) -> Session:
    s = Session(id="s1", cwd="/tmp")
    s.state = state
    return s


async def decide(
    router: Router, prompt: str, flags: RouteFlags | None = None, state: State = State.ROUTING
):
    return await router.decide(prompt, session(state), flags or RouteFlags())


# ----- explicit flags and state --------------------------------------------------------


@pytest.mark.parametrize(
    "flags,target,label",
    [
        (RouteFlags(force_escalate=True), "escalation", "forced"),
        (RouteFlags(pinned_escalate=True), "escalation", "pinned"),
        (RouteFlags(auto_sticky=True), "escalation", "sticky"),
        (RouteFlags(force_primary=True), "primary", "forced"),
        (RouteFlags(pinned_primary=True), "primary", "pinned"),
        (RouteFlags(force_escalate=True, force_primary=True), "escalation", "forced"),
        # deviation (router docstring): a one-turn primary force beats standing escalation state
        (RouteFlags(force_primary=True, auto_sticky=True), "primary", "forced"),
        (RouteFlags(force_primary=True, pinned_escalate=True), "primary", "forced"),
        (RouteFlags(pinned_escalate=True, auto_sticky=True), "escalation", "pinned"),
    ],
)
async def test_explicit_flags(tmp_path, flags, target, label):
    # A prompt that every later layer would send to primary: flags must win regardless.
    d = await decide(make_router(tmp_path), "ls", flags, state=State.ESCALATION_WAITING)
    assert (d.target, d.rule, d.label) == (target, "explicit", label)


async def test_escalation_waiting_beats_rules(tmp_path):
    d = await decide(make_router(tmp_path), "yes", state=State.ESCALATION_WAITING)
    assert (d.target, d.rule, d.label) == ("escalation", "state", "")
    d = await decide(make_router(tmp_path), "yes", state=State.ROUTING)
    assert (d.target, d.rule) == ("primary", "short_prompt")


# ----- hard rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prompt,target,rule",
    [
        ("x" * 8004, "escalation", "long_prompt"),  # 2001 tokens > 2000
        ("x" * 8003, "primary", "default"),  # 2000 tokens: not > 2000, score 0
        ("please refactor entire module", "escalation", "keyword"),
        ("the Memory Panel looks off", "escalation", "keyword"),  # case-insensitive
        ("fix the context brick", "escalation", "keyword"),
        ("panel memory?", "escalation", "keyword"),
        ("hello there", "primary", "short_prompt"),
        ("x" * 123, "primary", "short_prompt"),  # 30 tokens ≤ 30
        ("why design " + "x" * 113, "escalation", "score"),  # 124 chars = 31 tokens → scored
    ],
)
async def test_hard_rules(tmp_path, prompt, target, rule):
    d = await decide(make_router(tmp_path), prompt)
    assert (d.target, d.rule) == (target, rule), d.reason


async def test_keyword_beats_short_prompt_and_long_beats_everything(tmp_path):
    r = make_router(tmp_path)
    assert (await decide(r, "refactor entire")).rule == "keyword"
    d = await decide(r, "grep " + "y" * 9000)
    assert (d.target, d.rule) == ("escalation", "long_prompt")


# ----- weighted score ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,total,signals",
    [
        ("grep the logs", -3, ["local verb 'grep'"]),
        ("please design it", 4, ["escalate verb 'design'"]),
        ("also", -3, ["local verb 'ls'"]),  # substring: "ls" hits "also"
        ("the address", -3, ["local verb 'add'"]),  # "add" hits "address"
        ("why not", 3, ["open question 'why'"]),
        ("why, really", 3, ["open question 'why'"]),
        ("why?", 3, ["open question 'why'"]),
        ("whyever not", 0, []),  # prefix must end at a boundary
        ("  How come", 3, ["open question 'how'"]),  # trimmed, lower-cased
        ("here ```x = 1```", -2, ["code block"]),
        ("perché progetta qqq", 7, ["escalate verb 'progetta'", "open question 'perché'"]),
        ("cerca qqq", -3, ["local verb 'cerca'"]),
        ("grep then review", 1, ["local verb 'grep'", "escalate verb 'review'"]),
    ],
)
async def test_score_signals(tmp_path, text, total, signals):
    s = make_router(tmp_path).score(long(text))
    assert s.total == total
    assert [sig.rsplit(" ", 1)[0] for sig in s.signals] == sorted(
        signals, key=lambda x: ["local", "escalate", "path", "code", "open"].index(x.split()[0])
    )


async def test_path_reference_needs_an_existing_path(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("")
    r = make_router(tmp_path)
    assert r.score(long("look at src/app.py")).total == -2  # cwd-joined
    assert r.score(long(f"look at {tmp_path}/src/app.py")).total == -2  # absolute
    assert r.score(long("look at src/missing.py")).total == 0
    assert r.score(long("look at ~/src/app.py")).total == 0  # "~" is not expanded
    assert r.score(long("look at app.py")).total == 0  # no "/" → not a path


@pytest.mark.parametrize(
    "text,target,rule",
    [
        ("why design", "escalation", "score"),  # 3 + 4 = 7 ≥ 6
        ("grep ```x```", "primary", "score"),  # −3 − 2 = −5 ≤ −4
        ("grep", "primary", "default"),  # −3: inconclusive → default
        ("design", "primary", "default"),  # +4: inconclusive → default
    ],
)
async def test_thresholds(tmp_path, text, target, rule):
    d = await decide(make_router(tmp_path), long(text))
    assert (d.target, d.rule) == (target, rule), d.reason


# ----- classifier fallback -------------------------------------------------------------


class FakeClassifier:
    def __init__(self, answer: str | Exception) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    async def __call__(self, text: str) -> str:
        self.prompts.append(text)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(
    "answer,target,rule",
    [
        ("Escalate.", "escalation", "classifier"),
        ("  escalate because it is hard", "escalation", "classifier"),
        ("primary", "primary", "classifier"),
        # not one of the two words: an unsure primary escalates (it did not say it can)
        ("I would escalate", "escalation", "classifier"),
        (RuntimeError("model offline"), "primary", "default"),
    ],
)
async def test_classifier_on_inconclusive_score(tmp_path, answer, target, rule):
    clf = FakeClassifier(answer)
    prompt = long("design")
    d = await decide(make_router(tmp_path, classifier=clf), prompt)
    assert (d.target, d.rule) == (target, rule)
    assert clf.prompts == [CLASSIFIER_PROMPT.format(prompt=prompt)]
    if isinstance(answer, Exception):
        assert "classifier error (model offline)" in d.reason


async def test_classifier_not_asked_when_rules_are_conclusive(tmp_path):
    clf = FakeClassifier("escalate")
    r = make_router(tmp_path, classifier=clf)
    for prompt in ("hi", long("why design"), long("grep ```x```"), "refactor entire"):
        await decide(r, prompt)
    assert clf.prompts == []


@pytest.mark.parametrize("where", ["rules", "top"])
@pytest.mark.parametrize("value", ["claude", "escalation"])
async def test_classifier_fallback_setting_escalates_directly(tmp_path, where, value):
    clf = FakeClassifier("primary")
    off = {"difficulty_threshold": 0}  # "design" would be a difficulty signal
    kw = (
        {"rules": {"classifier_fallback": value, **off}}
        if where == "rules"
        else {"classifier_fallback": value, "rules": off}
    )
    r = Router(MilkConfig(**kw), str(tmp_path), classifier=clf)
    d = await decide(r, long("design"))
    assert (d.target, d.rule) == ("escalation", "classifier")
    assert clf.prompts == []


# ----- config overrides ------------------------------------------------------------------


async def test_default_rules():
    r = RouterRules()
    assert (
        r.escalate_above_tokens,
        r.local_below_tokens,
        r.escalate_threshold,
        r.local_threshold,
    ) == (2000, 30, 6, -4)
    assert (
        r.local_verb_weight,
        r.escalate_verb_weight,
        r.path_ref_weight,
        r.code_block_weight,
        r.open_question_weight,
    ) == (-3, 4, -2, -2, 3)
    assert r.escalate_keywords == [
        "refactor entire",
        "context brick",
        "memory panel",
        "panel memory",
    ]
    assert {"grep", "ls", "add", "leggi"} <= set(r.local_verbs)
    assert {"design", "refactor", "riassumi"} <= set(r.escalate_verbs)
    assert {"what", "could you", "è possibile", "sai"} <= set(r.open_question_prefixes)


async def test_lists_are_replaced_wholesale(tmp_path):
    r = make_router(tmp_path, rules={"local_verbs": ["zap"]})
    assert r.score(long("grep it")).total == 0
    assert r.score(long("zap it")).total == -3


async def test_scalar_overrides(tmp_path):
    r = make_router(tmp_path, rules={"escalate_threshold": 4, "escalate_verb_weight": 5})
    d = await decide(r, long("design"))
    assert (d.target, d.rule) == ("escalation", "score")
    r = make_router(tmp_path, rules={"local_below_tokens": 0})
    assert (await decide(r, "hi")).rule == "default"  # 0 disables the short-prompt rule
    r = make_router(tmp_path, rules={"escalate_above_tokens": 3})
    assert (await decide(r, "a longer prompt")).rule == "short_prompt"  # 15 chars = 3 tokens
    assert (await decide(r, "a longer prompt!")).rule == "long_prompt"  # 16 chars = 4 tokens > 3


async def test_empty_keyword_list_and_empty_prefix_list(tmp_path):
    r = make_router(tmp_path, rules={"escalate_keywords": [], "open_question_prefixes": []})
    assert (await decide(r, "refactor entire")).rule == "short_prompt"
    assert r.score(long("why")).total == 3  # empty prefixes fall back to the built-ins


async def test_bad_override_types_keep_defaults(tmp_path):
    r = make_router(
        tmp_path, rules={"escalate_threshold": "high", "unknown_key": 1, "local_verbs": None}
    )
    assert r.rules.escalate_threshold == 6 and "grep" in r.rules.local_verbs


# ----- the classifier through a real primary model (fake servers) ----------------------


async def test_classifier_through_openai_primary(tmp_path):
    from milk_tui.agents.openai_compat import OpenAICompatAgent
    from milk_tui.config.settings import AgentConfig
    from milk_tui.engine.router_classifier import make_agent_classifier
    from milk_tui.testing.fake_openai import FakeOpenAIServer, FakeReply

    with FakeOpenAIServer() as srv:
        srv.enqueue(FakeReply(text=["Escal", "ate"]))
        agent = OpenAICompatAgent(
            AgentConfig(name="llama", provider="local", url=srv.url, model="m")
        )
        r = make_router(tmp_path, classifier=make_agent_classifier(agent))
        prompt = long("design")
        d = await decide(r, prompt)
        assert (d.target, d.rule) == ("escalation", "classifier")
        sent = srv.chat_requests[-1].json
        assert sent["messages"][-1]["content"] == CLASSIFIER_PROMPT.format(prompt=prompt)
        assert not sent.get("tools")


async def test_classifier_through_bedrock_converse(tmp_path):
    from milk_tui.agents.bedrock import BedrockAgent
    from milk_tui.engine.router_classifier import make_agent_classifier
    from milk_tui.testing.fake_bedrock import FakeBedrock, Reply, agent_config

    with FakeBedrock() as fake:
        fake.script(Reply().text("primary"))
        r = make_router(
            tmp_path, classifier=make_agent_classifier(BedrockAgent(agent_config(fake)))
        )
        d = await decide(r, long("design"))
        assert (d.target, d.rule) == ("primary", "classifier")
        assert [q.operation for q in fake.requests] == ["converse"]


async def test_classifier_skipped_when_primary_known_down(tmp_path):
    from milk_tui.engine.router_classifier import make_agent_classifier

    class Never:
        name = "llama"

        async def complete(self, text: str) -> str:
            raise AssertionError("must not be called")

    async def down() -> bool:
        return False

    r = make_router(tmp_path, classifier=make_agent_classifier(Never(), down))
    d = await decide(r, long("design"))
    assert (d.target, d.rule) == ("primary", "default")
    assert "primary agent 'llama' unavailable" in d.reason
