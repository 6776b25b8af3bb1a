"""The text tool-call detector and extractor: every format, malformed blocks, any chunking."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from milk_tui.agents.text_call_detect import TextCallDetector, visible_text
from milk_tui.agents.text_call_extract import TextCall, extract_calls

TOOLS = {"read_file", "bash", "get_weather"}
CALL = TextCall("read_file", '{"path": "a.txt"}')

FORMATS = [
    ('<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>', "tool_call_tag"),
    ('<tools>{"name": "read_file", "arguments": {"path": "a.txt"}}</tools>', "tools_tag"),
    ('```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```', "fenced_json"),
    ('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a.txt"}}]', "bracket_tool_calls"),
    ('[TOOL_CALLS]read_file[ARGS]{"path": "a.txt"}', "bracket_tool_calls"),
    ('<|tool_call>call:read_file{path:<|"|>a.txt<|"|>}<tool_call|>', "gemma_special"),
    ('```tool_code\nprint(default_api.read_file(path="a.txt"))\n```', "tool_code"),
]  # fmt: skip


def run(chunks: list[str], prefer: str = "") -> tuple[str, TextCallDetector]:
    d = TextCallDetector(TOOLS, prefer)
    shown = "".join(d.feed(c) for c in chunks) + d.finish()
    return shown, d


@pytest.mark.parametrize(("block", "fmt"), FORMATS)
def test_each_format_is_hidden_and_extracted(block: str, fmt: str) -> None:
    tail = "" if fmt == "bracket_tool_calls" else " after"
    shown, d = run(["Let me look. ", block, tail])
    assert shown == "Let me look. " + tail
    assert d.calls == [CALL] and d.format == fmt


def test_bare_json_as_the_whole_reply() -> None:
    shown, d = run(['  {"name": "bash", ', '"parameters": {"command": "ls"}}\n'])
    assert shown == ""
    assert d.calls == [TextCall("bash", '{"command": "ls"}')] and d.format == "bare_json"


def test_several_calls_in_one_reply() -> None:
    a = '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'
    shown, d = run([a, "\n", a.replace("ls", "pwd")])
    assert shown == "\n"
    assert [c.arguments for c in d.calls] == ['{"command": "ls"}', '{"command": "pwd"}']


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>{not json}</tool_call>",
        '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>',  # unknown tool
        '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}',  # unterminated
        '```json\n{"a": 1}\n```',  # JSON that is not a call
        '{"name": "Bob", "age": 3}',  # a JSON answer, not a tool
        "Use `x[0]` and <b>bold</b> and [a link](http://x) {braces}.",
        "```python\nprint('hi')\n```",
        "<tool",  # a delimiter prefix at the very end
        '{"na',
        "   ",
        "```tool_code\nos.system('ls')\n```",  # positional args: not a call
        "[TOOL_CALLS] nothing here",
        "<|tool_call>call:read_file{path:}<tool_call|>",
    ],
)
def test_what_is_not_a_call_is_shown_unchanged(text: str) -> None:
    shown, d = run([text])
    assert shown == text and d.calls == []


@pytest.mark.parametrize("block", [b for b, _ in FORMATS])
@pytest.mark.parametrize(
    "quote",
    ["see `{}` here", "``{}``", "```\n{}\n```\nafter", "```python\n{}\n```", "````\n{}\n````"],
)
def test_a_call_in_code_is_text(block: str, quote: str) -> None:
    text = quote.format(block)
    shown, d = run([text])
    assert (shown, d.calls) == (text, [])
    assert run(list(text))[0] == text  # one character at a time: the same


def test_code_ends_and_a_later_call_counts() -> None:
    call = FORMATS[0][0]
    for text in (f"`x` {call}", f"```\ncode\n```\n{call}", f"a ` b\n\n{call}"):
        shown, d = run(list(text))
        assert d.calls == [CALL] and call not in shown, text


def test_ordinary_chunks_are_not_held() -> None:
    d = TextCallDetector(TOOLS)
    assert d.feed("Hello") == "Hello"
    for c in [" there", ", see `x` here", " and [1]", " or a < b"]:
        assert d.feed(c) == c


def test_only_a_possible_delimiter_at_the_end_is_held() -> None:
    d = TextCallDetector(TOOLS)
    assert d.feed("ok ") == "ok "
    assert d.feed("see <too") == "see "
    assert d.feed("th>") == "<tooth>"


def test_a_preferred_format_makes_others_text() -> None:
    other = '```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```'
    shown, d = run(["x ", other], prefer="tool_call_tag")
    assert shown == "x " + other and d.calls == []
    shown, d = run(["x ", FORMATS[0][0]], prefer="tool_call_tag")
    assert shown == "x " and d.calls == [CALL]


def test_string_arguments_are_passed_on() -> None:
    calls = extract_calls(
        "tool_call_tag", '{"name": "bash", "arguments": "{\\"command\\": 1}"}', TOOLS
    )
    assert calls == [TextCall("bash", '{"command": 1}')]


def test_openai_function_wrapper_and_lists() -> None:
    body = json.dumps([{"type": "function", "function": {"name": "bash", "arguments": {}}}])
    assert extract_calls("fenced_json", body, TOOLS) == [TextCall("bash", "{}")]


# ----- any chunking gives the same result ---------------------------------------------

PIECES = [
    "Hello ", "world. ", "`code` ", "[x] ", "a < b ", "{", "}", "```", "\n", "json", "`",
    "\n\n", "````", "``",
    FORMATS[0][0], FORMATS[1][0], FORMATS[2][0], FORMATS[5][0], FORMATS[6][0],
    "<tool_call>", "</tool_call>", "[TOOL_CALLS]", '{"name": "bash", "arguments": {}}',
    "<|tool_call>", "<tool_call|>", " ", '{"name":',
]  # fmt: skip


def chunked(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.sampled_from(PIECES), max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=20),
    prefer=st.sampled_from(["", "tool_call_tag", "fenced_json", "bare_json", "gemma_special"]),
)
def test_any_split_gives_the_same_result(parts: list[str], cuts: list[int], prefer: str) -> None:
    text = "".join(parts)
    whole, d1 = run([text], prefer)
    split, d2 = run(chunked(text, cuts), prefer)
    assert split == whole
    assert d2.calls == d1.calls and d2.format == d1.format
    assert visible_text(text, TOOLS, prefer) == whole
    if not d1.calls:
        assert whole == text  # nothing hidden means nothing changed


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
    cuts=st.lists(st.integers(0, 400)),
)
def test_random_text_is_never_lost(text: str, cuts: list[int]) -> None:
    shown, d = run(chunked(text, cuts))
    if not d.calls:
        assert shown == text
