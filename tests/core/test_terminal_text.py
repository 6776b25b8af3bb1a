"""The sanitiser for untrusted text (milk_tui/model/terminal_text.py): property tests over
generated strings full of controls and escape sequences, cut into chunks anywhere."""

from __future__ import annotations

import io
import json
import re
import unicodedata

import pyte
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from milk_tui.cli.terminal_out import inert_out
from milk_tui.model import events as ev
from milk_tui.model.terminal_text import _TABLE, _UNSAFE, inert, inert_copy, inert_json

C0 = [chr(c) for c in range(0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
CONTROLS = [*C0, "\x7f", *C1, *BIDI, "\ud800", "\udfff"]

ST = st.sampled_from(["\x07", "\x1b\\", "\x9c"])
"""String terminators: BEL, ESC \\, and the C1 ST."""
PAYLOAD = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12)


@st.composite
def sequences(draw: st.DrawFn) -> str:
    """One terminal escape sequence of the kinds an attacker would send."""
    kind = draw(st.sampled_from(["osc52", "title", "link", "dcs", "csi", "apc", "pm", "sos"]))
    esc = draw(st.sampled_from(["\x1b", ""]))  # 7-bit (ESC x) or 8-bit (C1) introducer
    intro = {"osc52": "]", "title": "]", "link": "]", "dcs": "P", "apc": "_", "pm": "^",
             "sos": "X", "csi": "["}[kind]  # fmt: skip
    head = "\x1b" + intro if esc else chr(ord(intro) + 0x40)
    body = draw(PAYLOAD)
    if kind == "osc52":
        return f"{head}52;c;{body}{draw(ST)}"
    if kind == "title":
        return f"{head}{draw(st.sampled_from('02'))};{body}{draw(ST)}"
    if kind == "link":
        return f"{head}8;;https://e.example/{body}{draw(ST)}click{head}8;;{draw(ST)}"
    if kind == "csi":
        return head + draw(st.sampled_from(["2J", "3J", "H", "31m", "?1049h", "6n", "8;1;1t"]))
    return f"{head}{body}{draw(ST)}"


PLAIN = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="".join(CONTROLS) + "⟨"),
    max_size=20,
).filter(lambda s: not any(0x2400 <= ord(c) <= 0x2426 for c in s))
"""Text without any character the sanitiser replaces or produces (for the round trip)."""

UNTRUSTED = st.lists(
    st.one_of(PLAIN, sequences(), st.sampled_from(CONTROLS), st.just("\r\n")), max_size=25
).map("".join)


def chunked(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def assert_inert(out: str) -> None:
    for ch in out:
        assert ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cs"), repr(ch)
        assert ch not in BIDI, repr(ch)


DECODE = {v: chr(k) for k, v in _TABLE.items() if not 0xD800 <= k < 0xE000}


_CRS_NL = re.compile("␍+\n")


def decode(shown: str) -> str:
    """The reverse of the visible forms: what the user can read back from the screen."""
    out, i = [], 0
    while i < len(shown):
        if shown[i] == "⟨":
            end = shown.index("⟩", i) + 1
            out.append(DECODE[shown[i:end]])
            i = end
        else:
            out.append(DECODE.get(shown[i], shown[i]))
            i += 1
    return "".join(out)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(UNTRUSTED, st.lists(st.integers(min_value=0), max_size=8))
@example("\r\r\n", [2])  # lone CRs, then a CR LF pair cut after its CR
def test_no_control_survives_whole_or_chunked(text: str, cuts: list[int]) -> None:
    whole = inert(text)
    assert_inert(whole)
    streamed = "".join(inert(c) for c in chunked(text, cuts))
    assert_inert(streamed)
    # The same text, except a CR LF pair cut between two chunks shows its CR (after any
    # lone CRs shown before it: "\r\r" + "\n" shows two where the whole text shows one).
    assert _CRS_NL.sub("\n", streamed) == _CRS_NL.sub("\n", whole)
    assert inert(whole) == whole


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(UNTRUSTED)
def test_every_control_reads_back_visibly(text: str) -> None:
    text = text.replace("\ud800", "").replace("\udfff", "")
    assert decode(inert(text)) == text.replace("\r\n", "\n")


@settings(deadline=None)
@given(PLAIN)
def test_clean_text_is_the_same_object(text: str) -> None:
    assert inert(text) is text


def test_the_fast_path_pattern_matches_exactly_the_table() -> None:
    matched = {c for c in range(0x110000) if _UNSAFE.match(chr(c))}
    assert matched == set(_TABLE) | set(range(0xD800, 0xE000))  # surrogates: by a pattern


def test_the_visible_forms() -> None:
    assert inert("\x1b]52;c;aGk=\x07") == "␛]52;c;aGk=␇"
    assert inert("\x1b[2J\x9b2J\x9d0;t\x9c") == "␛[2J⟨CSI⟩2J⟨OSC⟩0;t⟨ST⟩"
    assert inert("a\tb\nc\r\nd\re\x7f") == "a\tb\nc\nd␍e␡"
    assert inert("x\u202eevil\u2069") == "x⟨RLO⟩evil⟨PDI⟩"
    assert inert("\ud83d") == "\ufffd"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(UNTRUSTED)
def test_json_stays_exact_and_carries_no_raw_control(text: str) -> None:
    safe = inert_json(json.dumps({"t": text}, ensure_ascii=False))
    assert_inert(safe)
    # What the ASCII-escaped document says: the same text, but for a lone high surrogate
    # next to a lone low one, whose two escapes JSON reads as one pair (any JSON writer).
    assert json.loads(safe)["t"] == json.loads(json.dumps({"t": text}))["t"]
    if not re.search("[\ud800-\udbff][\udc00-\udfff]", text):
        assert json.loads(safe)["t"] == text
    text = text.replace("\ud800", "").replace("\udfff", "")  # pydantic refuses to encode them
    safe = inert_json(ev.TextDelta(slot="primary", text=text).to_json())
    assert_inert(safe)
    assert json.loads(safe)["text"] == text


def test_json_dumps_alone_leaves_del_c1_and_bidi_raw() -> None:
    """Why ``inert_json`` exists: the standard encoders escape only C0."""
    raw = json.dumps("\x7f\x9b\u202e", ensure_ascii=False)
    assert "\x9b" in raw and "\u202e" in raw
    assert "\x9b" in ev.TextDelta(slot="primary", text="\x9b").to_json()
    assert "\x1b" not in json.dumps("\x1b", ensure_ascii=False)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(UNTRUSTED)
def test_a_terminal_shown_the_output_keeps_its_title_and_screen(text: str) -> None:
    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    stream.feed("KEEP\r\n")
    stream.feed(inert(text))
    assert screen.title == "" and screen.icon_name == ""
    assert screen.display[0].startswith("KEEP")  # no ESC[2J, no cursor jump over it


def test_inert_copy_reaches_every_string_of_an_event_and_keeps_clean_ones() -> None:
    e = ev.PermissionRequested(
        request_id="r1",
        agent_name="a\x1b]0;x\x07",
        tool_name="write_file",
        tool_input={"path\x1b": ["x\x9b2J", {"k": "\x07"}]},
        outside_paths=("/tmp/\x1b[2J",),
        preview="+\x1b]52;c;aGk=\x07",
    )
    c = inert_copy(e)
    assert c.agent_name == "a␛]0;x␇" and c.tool_input == {"path␛": ["x⟨CSI⟩2J", {"k": "␇"}]}
    assert c.outside_paths == ("/tmp/␛[2J",) and c.preview == "+␛]52;c;aGk=␇"
    assert c.request_id == "r1" and type(c) is type(e)
    clean = ev.TextDelta(slot="primary", text="hello")
    assert inert_copy(clean) is clean
    fast = ev.fast_delta(ev.TextDelta, "primary", "a\x1bb", "s")
    assert inert_copy(fast).text == "a␛b"


def test_the_cli_writer_sanitises_text_and_escapes_json() -> None:
    buf = io.StringIO()
    out = inert_out(buf)
    print("fact \x1b]0;t\x07", file=out)
    inert_out(buf, json=True).write(json.dumps("\x9b\x1b", ensure_ascii=False))
    assert buf.getvalue() == 'fact ␛]0;t␇\n"\\u009b\\u001b"'
