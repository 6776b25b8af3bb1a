"""The tag machine (docs/adr/0009-one-tag-parser.md): pinned cases plus chunking properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from milk_tui.model.tags import (
    TagInterceptor,
    consumer_from_hint,
    memory_instruction,
    need_instruction,
    strip_tags,
)

N = "abc123xy"


def run(chunks: list[str], nonce: str = N) -> tuple[str, list[str], list[str]]:
    needs: list[str] = []
    facts: list[str] = []
    t = TagInterceptor(nonce, needs.append, facts.append)
    out = "".join(t.feed(c) for c in chunks) + t.flush()
    return out, needs, facts


def test_need_and_percept_recorded_and_hidden() -> None:
    text = f"Hello <milk:need:{N}> fix the build </milk:need:{N}>world<milk:percept:{N}>@llama: uses uv</milk:percept:{N}>!"
    out, needs, facts = run([text])
    assert out == "Hello world!"
    assert needs == ["fix the build"]
    assert facts == ["@llama: uses uv"]


def test_split_across_every_boundary() -> None:
    text = f"a<milk:percept:{N}>fact one</milk:percept:{N}>b"
    for cut in range(1, len(text)):
        assert run([text[:cut], text[cut:]]) == ("ab", [], ["fact one"])
    assert run(list(text)) == ("ab", [], ["fact one"])


def test_wrong_nonce_hidden_not_recorded() -> None:
    out, needs, facts = run(["x<milk:need:zzzz>goal</milk:need:zzzz>y"])
    assert (out, needs, facts) == ("xy", [], [])


def test_code_spans_left_alone() -> None:
    inline = f"see `<milk:need:{N}>g</milk:need:{N}>` ok"
    assert run([inline]) == (inline, [], [])
    fence = (
        f"```\n<milk:percept:{N}>f</milk:percept:{N}>\n```\nafter<milk:need:{N}>g</milk:need:{N}>"
    )
    out, needs, facts = run([fence])
    assert out == fence.split("after")[0] + "after"
    assert needs == ["g"] and facts == []


def test_unclosed_tag_dropped_and_partial_prefix_emitted() -> None:
    assert run([f"prefix <milk:need:{N}>unclosed"])[0] == "prefix "
    assert run(["text <milk:pe"])[0] == "text <milk:pe"
    # A would-be nonce after a prefix may be the real one, cut off: hidden with its prefix.
    assert run(["text <milk:percept:ab"])[0] == "text "


def test_nonce_less_and_prose_mentions_pass_through() -> None:
    assert run(["<milk:percept>x</milk:percept>"])[0] == "<milk:percept>x</milk:percept>"
    prose = "write <milk:need: then a nonce"
    assert run([prose])[0] == prose


def test_empty_body_not_recorded() -> None:
    assert run([f"<milk:percept:{N}>   </milk:percept:{N}>"]) == ("", [], [])


def test_plain_chunk_returned_as_is() -> None:
    t = TagInterceptor(N, lambda s: None, lambda s: None)
    chunk = "no markup at all here"
    assert t.feed(chunk) is chunk


def test_escalate_tag_hidden_and_optional_callback() -> None:
    got: list[str] = []
    t = TagInterceptor(N, lambda s: None, lambda s: None, on_escalate=got.append)
    out = t.feed(f"a<milk:escalate:{N}>too hard</milk:escalate:{N}>b") + t.flush()
    assert out == "ab" and got == ["too hard"]


# ----- properties --------------------------------------------------------------------

_pieces = st.sampled_from([
    "hello ", "`", "``", "```", "\n", "\n\n", "<", ">", "<milk:", f"<milk:need:{N}>", f"</milk:need:{N}>",
    f"<milk:percept:{N}>", f"</milk:percept:{N}>", "<milk:percept:other>", "</milk:percept:other>",
    "@llama: ", "fact", " goal ", "<milk:pe", "rcept:", N, "<b>", "x",
])  # fmt: skip


@st.composite
def stream_and_cuts(draw: st.DrawFn) -> tuple[str, list[str]]:
    text = "".join(draw(st.lists(_pieces, max_size=30)))
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=12))))
    chunks, prev = [], 0
    for c in cuts:
        chunks.append(text[prev:c])
        prev = c
    chunks.append(text[prev:])
    return text, chunks


@settings(max_examples=400, deadline=None)
@given(stream_and_cuts())
def test_any_chunking_same_result(sc: tuple[str, list[str]]) -> None:
    text, chunks = sc
    assert run(chunks) == run([text])
    assert run(list(text)) == run([text])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>/`:milkneedpcrt @ab\n")), max_size=200))
def test_random_text_without_nonce_never_records(text: str) -> None:
    out, needs, facts = run([text], nonce="q9z8y7w6")
    assert needs == [] and facts == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120))
def test_text_without_markup_is_unchanged(text: str) -> None:
    text = text.replace("<", "")
    assert run([text])[0] == text


# ----- finished text ------------------------------------------------------------------


def test_strip_tags_any_nonce_and_fallback_close() -> None:
    assert strip_tags(f"a <milk:need:{N}>g</milk:need:{N}> b") == "a  b"
    assert strip_tags("before <milk:need:n1>goal</milk:need:other> after") == "before  after"
    assert strip_tags("keep <milk:percept:n1>never closed") == "keep"
    assert (
        strip_tags("code `<milk:need:x>g</milk:need:x>` stays")
        == "code `<milk:need:x>g</milk:need:x>` stays"
    )
    assert strip_tags("  plain  ") == "plain"


@settings(max_examples=400, deadline=None)
@given(stream_and_cuts())
def test_strip_tags_equals_the_stream_for_any_chunking(sc: tuple[str, list[str]]) -> None:
    text, chunks = sc
    assert strip_tags(text) == run(chunks)[0].strip()


def test_stream_falls_back_to_any_close_of_the_kind_at_end() -> None:
    text = "before <milk:need:n1>goal</milk:need:other> after"
    assert run([text]) == ("before  after", [], [])
    assert run(list(text)) == run([text])


def test_removing_a_tag_can_join_text_into_a_new_tag() -> None:
    # Why a reply is parsed exactly once: hiding a tag can join the text around it into a
    # new tag opening, which a second pass would then hide as well.
    joined = f"<milk:pe<milk:need:{N}></milk:need:{N}>rcept:>"
    assert strip_tags(joined) == "<milk:percept:>"
    assert strip_tags(strip_tags(joined)) == ""


_unsplit_pieces = st.sampled_from([
    "hello ", "`", "``", "```", "\n", "\n\n", "<", ">", "<milk:", f"<milk:need:{N}>", f"</milk:need:{N}>",
    f"<milk:percept:{N}>", f"</milk:percept:{N}>", "<milk:percept:other>", "</milk:percept:other>",
    "@llama: ", "fact", " goal ", N, "<b>", "x",
])  # fmt: skip
"""``_pieces`` without the halves of a split prefix, which removal can join (see above)."""


@settings(max_examples=300, deadline=None)
@given(st.lists(_unsplit_pieces, max_size=30).map("".join))
def test_strip_of_visible_text_is_idempotent(text: str) -> None:
    once = strip_tags(text)
    assert strip_tags(once) == once


# ----- consumer hints ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hint", "primary", "escalation", "expected"),
    [
        ("@llama: prefers tabs", "llama", "deepseek", ("primary", "prefers tabs")),
        ("@deepseek: uses rg", "llama", "deepseek", ("escalation", "uses rg")),
        ("  @deepseek: trimmed", "llama", "deepseek", ("escalation", "trimmed")),
        ("@local: old style", "llama", "deepseek", ("all", "@local: old style")),
        ("@llama:no space", "llama", "deepseek", ("all", "@llama:no space")),
        ("@Llama: case", "llama", "deepseek", ("all", "@Llama: case")),
        ("@: x", "", "", ("all", "@: x")),
        ("@llama: ", "llama", "deepseek", ("primary", "")),
    ],
)
def test_consumer_hints_with_configured_names(
    hint: str, primary: str, escalation: str, expected: tuple[str, str]
) -> None:
    assert consumer_from_hint(hint, primary, escalation) == expected


def test_instructions_embed_nonce_and_names() -> None:
    ni = need_instruction(N)
    assert ni.startswith("[Milk current-need tracking]\n") and ni.endswith("\n\n")
    assert f"<milk:need:{N}>" in ni and f"</milk:need:{N}>" in ni
    mi = memory_instruction(N, "llama", "deepseek")
    assert mi.startswith("[Milk shared memory]\n") and mi.endswith("\n") and not mi.endswith("\n\n")
    assert "@llama: " in mi and "@deepseek: " in mi and f"<milk:percept:{N}>" in mi


def test_stray_backtick_ends_at_blank_line() -> None:
    text = f"don't type ` here\n\nok<milk:need:{N}>g</milk:need:{N}>"
    assert run([text]) == ("don't type ` here\n\nok", ["g"], [])
    assert run(list(text)) == run([text])
    fenced = f"```\ncode\n\nmore <milk:need:{N}>x</milk:need:{N}>\n```"
    assert run([fenced]) == (fenced, [], [])  # fences survive blank lines
    assert strip_tags(text) == "don't type ` here\n\nok"


# ----- no nonce reaches the visible text: any case, any nesting ---------------------------


def test_capitalised_tags_are_hidden_and_recorded() -> None:
    text = f"a<Milk:Percept:{N}>uses uv</Milk:Percept:{N}>b<MILK:NEED:{N}>g</milk:NEED:{N}>c"
    assert run([text]) == ("abc", ["g"], ["uses uv"])
    assert run(list(text)) == run([text])
    assert strip_tags(text) == "abc"


def test_a_nested_tag_does_not_end_its_outer_tag() -> None:
    text = f"<milk:percept:{N}>a <milk:percept:{N}>b</milk:percept:{N}> c</milk:percept:{N}>after"
    assert run([text]) == ("after", [], ["a  c"])  # the inner tag is hidden in the fact too
    assert run(list(text)) == run([text])
    other = f"<milk:percept:{N}>x <MILK:need:{N}>g</milk:need:{N}></milk:percept:{N}>!"
    assert run([other]) == ("!", [], ["x"])
    deep = f"<milk:need:{N}>1<milk:need:zz>2<milk:need:{N}>3</milk:need:{N}>4</milk:need:zz>5</milk:need:{N}>z"
    assert run([deep]) == ("z", ["15"], [])


def test_stray_closes_and_would_be_tags_hide_the_nonce() -> None:
    assert run([f"a</milk:percept:{N}>b</MILK:need:x>c"])[0] == "abc"
    assert run([f"a<milk:need:{N} and more"])[0] == "a and more"
    assert run([f"cut <milk:percept:{N}"])[0] == "cut "
    assert run(["prose about <milk:need: tags"])[0] == "prose about <milk:need: tags"


_TAG_SOUP = [
    f"<milk:{k}:{N}>" for k in ("need", "percept", "escalate")
] + [f"</milk:{k}:{N}>" for k in ("need", "percept", "escalate")] + [
    f"<milk:percept:{N}", f"<milk:need:{N[:4]}", f"{N[4:]}>", "<milk:percept:other>",
    "</milk:percept:other>", "<milk:", "</milk:", "percept:", "need:", "<", ">", "/", " ",
    "\n", "fact", "x", "@llama: ",
]  # fmt: skip
"""Tag fragments; the nonce occurs only where a tag would hold it (a bare nonce in prose is
text the model chose to write, not a tag)."""


@st.composite
def tag_soup(draw: st.DrawFn) -> tuple[str, list[str]]:
    text = "".join(draw(st.lists(st.sampled_from(_TAG_SOUP), max_size=40)))
    rnd = draw(st.randoms(use_true_random=False))
    text = "".join(c.upper() if rnd.random() < 0.3 else c for c in text)
    cuts = sorted(rnd.sample(range(len(text) + 1), min(len(text) + 1, rnd.randint(0, 12))))
    bounds = [0, *cuts, len(text)]
    return text, [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@settings(max_examples=500, deadline=None)
@given(tag_soup())
def test_the_nonce_never_reaches_the_visible_text(sc: tuple[str, list[str]]) -> None:
    text, chunks = sc
    shown, needs, facts = run(chunks)
    assert (shown, needs, facts) == run([text])  # any chunking: the same
    for visible in (shown, strip_tags(text), *needs, *facts):
        assert N not in visible.lower(), (text, visible)


def test_deep_nesting_is_no_recursion() -> None:
    # Recording strips the inner tags with a machine that records nothing: one level.
    inner = f"<milk:percept:{N}>" * 3000 + "core" + f"</milk:percept:{N}>" * 3000
    deep = f"<milk:percept:{N}>outer {inner}</milk:percept:{N}>after"
    assert run([deep]) == ("after", [], ["outer"])
    assert strip_tags(deep) == "after"
