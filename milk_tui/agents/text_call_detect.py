"""The streaming detector of tool calls written as text: a pure state machine over a reply.

Feed it the reply's text chunks; it returns what may be shown now and keeps back only
what could still be a call: a possible opening delimiter at a chunk's end, an open block
until its closing delimiter, or a reply that starts like a bare JSON call.  A closed
block whose body is a valid call of an offered tool (``text_call_extract``) is hidden and
recorded; any other block is released as the text it was.  The result depends only on
the whole text, never on where the chunks were split.

Formats, by opening and closing delimiter (``None``: the block runs to the reply's end)::

    <|tool_call>call:name{…}<tool_call|>      Gemma special tokens
    <tool_call>{json}</tool_call>              Hermes / Qwen
    <tools>{json}</tools>
    ```json  {json}  ```                       fenced JSON
    ```tool_code  name(k=v)  ```               Gemma tool_code
    [TOOL_CALLS][{json}…]                      Mistral (to the end of the reply)
    {"name": …, "arguments": …}                bare JSON, only as the whole reply

With ``prefer`` set (a format already seen in this session), only that format counts and
every other delimiter is ordinary text.  Unterminated blocks are released as text at the
end of the reply.

Code is data: a delimiter inside a backtick code span, inline or fenced, is text (a reply
that explains the format, or quotes a call, runs nothing).  The spans are the tag
parser's (docs/adr/0009-one-tag-parser.md): a run of backticks opens one, the same run
closes it (a fence: a run at least as long), and an inline span (one or two backticks)
also ends at a blank line, so a stray backtick cannot hide every later call.  The fenced
formats above are themselves calls: a fence of exactly three backticks with the ``json``
or ``tool_code`` info string opens a block, any other fence opens code.
"""

from __future__ import annotations

from collections.abc import Collection

from milk_tui.agents.text_call_extract import (
    BARE_JSON,
    FENCED_JSON,
    GEMMA,
    MISTRAL,
    TOOL_CALL_TAG,
    TOOL_CODE,
    TOOLS_TAG,
    TextCall,
    extract_calls,
)

Delimiter = tuple[str, str | None, str]
"""(open, close or None for the end of the reply, format)"""

DELIMITERS: tuple[Delimiter, ...] = (
    ("<|tool_call>", "<tool_call|>", GEMMA),
    ("<tool_call>", "</tool_call>", TOOL_CALL_TAG),
    ("<tools>", "</tools>", TOOLS_TAG),
    ("```json\n", "```", FENCED_JSON),
    ("```tool_code\n", "```", TOOL_CODE),
    ("[TOOL_CALLS]", None, MISTRAL),
)
BARE_OPEN = '{"name":'
"""How a bare JSON call starts (whitespace ignored)."""


class TextCallDetector:
    def __init__(self, tool_names: Collection[str], prefer: str = "") -> None:
        self._names = frozenset(tool_names)
        self._delims = tuple(d for d in DELIMITERS if not prefer or d[2] == prefer)
        self._firsts = frozenset(d[0][0] for d in self._delims)
        self._longest = max((len(d[0]) for d in self._delims), default=0)
        self._start = not prefer or prefer == BARE_JSON
        """Nothing but whitespace seen yet, and a bare JSON call is still possible."""
        self._held = ""
        self._block: Delimiter | None = None
        self._body = ""
        self._code = 0
        """The length of the backtick run that opened the code span we are in (0: none)."""
        self.idle = not self._start
        """Nothing held back: a chunk without ``<``, a backtick or ``[`` (``may_open``) is
        shown as it is, so callers on a hot path may skip ``feed`` for it."""
        self.calls: list[TextCall] = []
        self.format = ""
        """The format of the calls found (the last block's, when several)."""

    def feed(self, text: str) -> str:
        """The part of ``text`` (with what was held before) that may be shown now."""
        if self.idle and not may_open(text):
            return text  # the common case: no delimiter can start in this chunk
        if self._code and not self._held and "`" not in text:
            if self._code >= 3 or "\n" not in text:
                return text  # inside code: only a backtick (or a blank line) can end it
        shown = self._scan(self._held + text)
        self.idle = self._block is None and not self._held and not self._start and not self._code
        return shown

    def finish(self) -> str:
        """The reply ended: resolve what is held; returns the text still to show."""
        out = ""
        if self._block is not None:
            opening, close, fmt = self._block
            body, self._body, self._block = self._body, "", None
            if close is None and self._take(fmt, body):
                return ""
            out = opening + body
        out, self._held = out + self._held, ""
        self._start = False
        self._code = 0
        self.idle = True
        return out

    # ----- the machine -----------------------------------------------------------------

    def _scan(self, s: str) -> str:
        self._held = ""
        out: list[str] = []
        while s:
            if self._block is not None:
                shown, s = self._in_block(s)
                out.append(shown)
                continue
            if self._code:
                shown, s = self._in_code(s)
                out.append(shown)
                continue
            if self._start:
                if not self._bare_start(s):
                    break
                if self._block is not None:
                    continue
            i, found = self._find_open(s)
            b = s.find("`", 0, len(s) if i < 0 else i)
            if b >= 0:  # code opens before any delimiter
                run = _run_length(s, b)
                out.append(s[: b + run])
                s = s[b + run :]
                if not s:  # the run may go on in the next piece: its length decides
                    out[-1], self._held = out[-1][:b], out[-1][b:]
                    break
                self._code = run
                continue
            if i < 0:
                out.append(s)
                break
            out.append(s[:i])
            if found is None:
                self._held = s[i:]
                break
            self._block, self._body = found, ""
            s = s[i + len(found[0]) :]
        return "".join(out)

    def _bare_start(self, s: str) -> bool:
        """At the reply's start: hold while it may still become a bare JSON call.  False
        when ``s`` is held; otherwise ``_start`` is over (and a bare block may be open)."""
        t = s.lstrip()
        if not t:
            self._held = s
            return False
        if t[0] == "{":
            compact = "".join(t.split())[: len(BARE_OPEN)]
            if len(compact) < len(BARE_OPEN) and BARE_OPEN.startswith(compact):
                self._held = s
                return False
            if compact == BARE_OPEN:
                self._start = False
                self._block, self._body = ("", None, BARE_JSON), ""
                return True
        self._start = False
        return True

    def _find_open(self, s: str) -> tuple[int, Delimiter | None]:
        """The first opening delimiter in ``s``: (position, delimiter), (position, None)
        for a possible one cut off by the chunk's end, or (-1, None)."""
        best, found = -1, None
        for d in self._delims:
            i = s.find(d[0])
            if i >= 0 and (best < 0 or i < best):
                best, found = i, d
        limit = best if best >= 0 else len(s)
        firsts = self._firsts
        for j in range(max(0, len(s) - self._longest + 1), limit):
            if s[j] in firsts:
                tail = s[j:]
                if any(d[0].startswith(tail) for d in self._delims):
                    return j, None
        return best, found

    def _in_code(self, s: str) -> tuple[str, str]:
        """Text inside a code span, shown as it is: (text to show, the rest after the span).
        Holds back a backtick run or (inline) a newline at the end of ``s``, whose meaning
        depends on what comes next."""
        opened, n, i = self._code, len(s), 0
        while True:
            j = s.find("`", i)
            end = n if j < 0 else j
            if opened < 3:
                k = s.find("\n\n", i, end)
                if k >= 0:  # a blank line ends an inline span (CommonMark paragraphs)
                    self._code = 0
                    return s[: k + 2], s[k + 2 :]
                if j < 0 and s.endswith("\n"):
                    self._held = "\n"
                    return s[:-1], ""
            if j < 0:
                return s, ""
            run = _run_length(s, j)
            if j + run == n:
                self._held = s[j:]
                return s[:j], ""
            if run == opened or (opened >= 3 and run > opened):
                self._code = 0
                return s[: j + run], s[j + run :]
            i = j + run

    def _in_block(self, s: str) -> tuple[str, str]:
        """Add ``s`` to the open block: (text to show, the rest after the block)."""
        assert self._block is not None
        opening, close, fmt = self._block
        seen = len(self._body)
        self._body += s
        if close is None:
            return "", ""
        k = self._body.find(close, max(0, seen - len(close) + 1))
        if k < 0:
            return "", ""
        body, rest = self._body[:k], self._body[k + len(close) :]
        self._block, self._body = None, ""
        if self._take(fmt, body):
            return "", rest
        return opening + body + close, rest

    def _take(self, fmt: str, body: str) -> bool:
        calls = extract_calls(fmt, body, self._names)
        if calls is None:
            return False
        self.calls += calls
        self.format = fmt
        return True


def _run_length(s: str, i: int) -> int:
    """How many backticks follow one another from ``s[i]``."""
    j = i
    while j < len(s) and s[j] == "`":
        j += 1
    return j - i


def may_open(text: str) -> bool:
    """Whether an opening delimiter (or a bare JSON call) could start in ``text``."""
    return "<" in text or "`" in text or "[" in text


def visible_text(text: str, tool_names: Collection[str], prefer: str = "") -> str:
    """``text`` as the detector shows it (the whole reply at once)."""
    d = TextCallDetector(tool_names, prefer)
    return d.feed(text) + d.finish()
