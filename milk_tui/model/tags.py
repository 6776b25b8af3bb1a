"""The milk tag grammar and its one parser: a streaming machine over agent output.

Grammar: ``<milk:KIND:NONCE>body</milk:KIND:NONCE>`` with KIND one of ``need``, ``percept``,
``escalate`` (docs/interfaces.md; the one-parser decision: docs/adr/0009-one-tag-parser.md).  The rules:

* the output is a pure function of the character sequence: chunk boundaries never matter;
* backtick code spans (inline or fenced) are left alone; an inline span (one or two
  backticks) also ends at a blank line, so a stray backtick cannot expose every later tag;
* a tag whose nonce is not the slot's is hidden but not recorded;
* a nonce holds no whitespace, ``<`` or backtick and at most ``MAX_NONCE_LEN`` characters, so prose that
  merely mentions ``<milk:need:`` does not swallow the rest of the reply;
* at end of stream a tag still open falls back to the first close of its kind with any
  nonce (hidden, not recorded) and the text after it is parsed again; with no close at
  all the tag is dropped; a dangling partial prefix is emitted as text;
* no nonce reaches the visible text: tags match in any letter case (``<Milk:Percept:…>``),
  a tag nests inside one of its kind (the inner close does not end the outer tag), a
  stray close (``</milk:need:…>``) is hidden, and so is a prefix followed by a would-be
  nonce that turns out not to be a tag (``<milk:need:abc def``, or cut off by the end);
  a prefix with nothing after it (prose about ``<milk:need:``) is shown as written.

``strip_tags`` (finished text) is this same machine fed the whole text at once.

Hot path: ``feed`` is called once per streamed chunk.  When nothing is pending and the
chunk holds neither ``<`` nor a backtick it is returned unchanged after two C-level scans.
"""

from __future__ import annotations

from collections.abc import Callable

KINDS = ("need", "percept", "escalate")
"""Tag kinds we hide.  ``escalate`` is only meaningful for subprocess primaries but its
markup must never reach the screen either."""

_PREFIXES = tuple(f"<milk:{k}:" for k in KINDS)
_CLOSES = tuple(f"</milk:{k}:" for k in KINDS)
_MAX_PREFIX = max(len(p) for p in _CLOSES)

_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _lower(s: str) -> str:
    """ASCII letters lowered, nothing else: the same length, so positions carry over
    (``str.lower`` can lengthen a string: ``"İ".lower()`` is two characters)."""
    return s.translate(_ASCII_LOWER)


MAX_NONCE_LEN = 32
"""Our nonces are 8 characters (``model.nonce``); 32 leaves room for hand-made ones while stopping prose
that mentions a tag prefix from swallowing the reply."""

TEXT, OPEN, TAG, CODE = 0, 1, 2, 3


def _is_partial_prefix(s: str) -> bool:
    low = _lower(s)
    return any(p.startswith(low) for p in (*_PREFIXES, *_CLOSES))


class TagInterceptor:
    """One per agent slot per turn; ``feed`` returns the visible part of each chunk."""

    def __init__(
        self,
        nonce: str,
        on_need: Callable[[str], None] | None = None,
        on_percept: Callable[[str], None] | None = None,
        on_escalate: Callable[[str], None] | None = None,
    ) -> None:
        self.nonce = nonce
        self._callbacks: dict[str, Callable[[str], None] | None] = {
            "need": on_need, "percept": on_percept, "escalate": on_escalate,
        }  # fmt: skip
        self._mode = TEXT
        self._buf = ""  # TEXT: partial prefix; OPEN: nonce so far; TAG: body so far
        self._kind = ""
        self._prefix = ""  # OPEN: the prefix as written (any case)
        self._closing = False  # OPEN: the prefix is a close's (a stray close)
        self._closes: list[str] = []  # TAG: the closes awaited, innermost last (lower case)
        self._low = ""  # TAG: the body so far, lowered
        self._seen = 0  # TAG: where in the body the search for opens and closes goes on
        self._open_nonce = ""
        self._bt_run = 0  # backticks seen in a row outside a code span (opening run)
        self._code_open = 0  # length of the run that opened the current code span
        self._code_bt = 0  # backticks seen in a row inside the span
        self._prev_nl = False  # last code-span char was a newline (blank-line detection)
        self.plain = True
        """Nothing is held: a chunk without ``<`` or a backtick passes through ``feed``
        unchanged (the stream's hot path checks this itself, saving a call per chunk)."""

    # ----- public ---------------------------------------------------------------------

    def feed(self, chunk: str) -> str:
        if self.plain and "<" not in chunk and "`" not in chunk:
            return chunk
        out: list[str] = []
        self._run(chunk, out)
        self.plain = self._mode == TEXT and not self._buf and not self._bt_run
        return "".join(out)

    def flush(self) -> str:
        """End of stream: the rest of the visible text; the machine is ready for a new stream.

        A tag still open ends at the first close of its kind (any nonce, not recorded) and
        what follows is parsed again; with no such close the tag is dropped.  A dangling
        partial prefix is emitted verbatim.
        """
        out: list[str] = []
        while self._mode == TAG:
            held, low, self._mode, self._buf, self._closes = self._buf, self._low, TEXT, "", []
            close = low.find(f"</milk:{self._kind}:")
            end = held.find(">", close) if close >= 0 else -1
            if end < 0:
                break
            self._run(held[end + 1 :], out)
        if self._mode == TEXT:
            out.append(self._buf)
        elif self._mode == OPEN and not self._buf:
            out.append(self._prefix)  # a bare prefix: prose; with a would-be nonce: hidden
        self._mode, self._buf, self._bt_run, self._code_open, self._code_bt = TEXT, "", 0, 0, 0
        self._prev_nl = False
        self.plain = True
        return "".join(out)

    # ----- state machine --------------------------------------------------------------

    def _run(self, s: str, out: list[str]) -> None:
        i, n = 0, len(s)
        while i < n:
            mode = self._mode
            if mode == CODE:
                i = self._in_code(s, i, n, out)
            elif self._bt_run:
                if s[i] == "`":
                    self._bt_run += 1
                    out.append("`")
                    i += 1
                else:  # first non-backtick after the run opens the span
                    self._mode, self._code_open, self._code_bt, self._bt_run = (
                        CODE,
                        self._bt_run,
                        0,
                        0,
                    )
            elif mode == TEXT:
                if self._buf:
                    s, n, i = self._buf + s[i:], len(self._buf) + n - i, 0
                    self._buf = ""
                i = self._in_text(s, i, n, out)
            elif mode == OPEN:
                i = self._in_open(s, i, n, out)
            else:
                i = self._in_tag(s, i, n)

    def _in_code(self, s: str, i: int, n: int, out: list[str]) -> int:
        j = s.find("`", i)
        end = n if j < 0 else j
        if i < end:
            if self._code_open < 3:  # inline span: a blank line ends it (CommonMark paragraphs)
                if self._prev_nl and s[i] == "\n":
                    brk = i
                else:
                    k = s.find("\n\n", i, end)
                    brk = k + 1 if k >= 0 else -1
                if brk >= 0:
                    out.append(s[i : brk + 1])
                    self._mode, self._code_open, self._code_bt, self._prev_nl = TEXT, 0, 0, False
                    return brk + 1
            out.append(s[i:end])
            self._code_bt = 0
            self._prev_nl = s[end - 1] == "\n"
            if j < 0:
                return n
        k = j
        while k < n and s[k] == "`":
            self._code_bt += 1
            k += 1
            if self._code_bt == self._code_open:
                self._mode, self._code_open, self._code_bt = TEXT, 0, 0
                break
        self._prev_nl = False
        out.append(s[j:k])
        return k

    def _in_text(self, s: str, i: int, n: int, out: list[str]) -> int:
        lt = s.find("<", i)
        bt = s.find("`", i)
        if lt < 0 and bt < 0:
            out.append(s[i:])
            return n
        if bt >= 0 and (lt < 0 or bt < lt):
            out.append(s[i : bt + 1])
            self._bt_run = 1
            return bt + 1
        out.append(s[i:lt])
        head = s[lt : lt + _MAX_PREFIX]
        low = _lower(head)
        for closing, prefixes in ((False, _PREFIXES), (True, _CLOSES)):
            for kind, p in zip(KINDS, prefixes, strict=True):
                if low.startswith(p):
                    self._mode, self._kind, self._buf = OPEN, kind, ""
                    self._prefix, self._closing = head[: len(p)], closing
                    return lt + len(p)
        if lt + len(head) == n and _is_partial_prefix(head):
            self._buf = head  # may complete in the next chunk
            return n
        out.append("<")
        return lt + 1

    def _in_open(self, s: str, i: int, n: int, out: list[str]) -> int:
        j = i
        while j < n:
            c = s[j]
            if c == ">":
                nonce = self._buf + s[i:j]
                if self._closing:  # a stray close: hidden
                    self._mode, self._buf = TEXT, ""
                    return j + 1
                self._mode, self._buf, self._low, self._seen = TAG, "", "", 0
                self._closes = [f"</milk:{self._kind}:{_lower(nonce)}>"]
                self._open_nonce = nonce
                return j + 1
            if c in "`<" or c.isspace() or len(self._buf) + (j - i) >= MAX_NONCE_LEN:
                # Not a tag after all.  A bare prefix is prose, shown; a prefix with a
                # would-be nonce after it may hold the real one: hidden.  Rescan from here.
                if not self._buf and i == j:
                    out.append(self._prefix)
                self._mode, self._buf = TEXT, ""
                return j
            j += 1
        self._buf += s[i:n]
        return n

    def _in_tag(self, s: str, i: int, n: int) -> int:
        old = len(self._buf)
        self._buf += s[i:]
        self._low += _lower(s[i:])
        low, opening, closes = self._low, _PREFIXES[KINDS.index(self._kind)], self._closes
        pos = self._seen
        while True:
            k = low.find(closes[-1], pos)
            o = low.find(opening, pos, k if k >= 0 else len(low))
            if o >= 0:  # a tag of the same kind inside: its close does not end this one
                nonce_end = _nonce_end(low, o + len(opening))
                if nonce_end is None:  # cut off: look again with the next piece
                    self._seen = o
                    return n
                if nonce_end > 0:
                    closes.append(f"</milk:{self._kind}:{low[o + len(opening) : nonce_end]}>")
                    pos = nonce_end + 1
                else:
                    pos = o + 1
                continue
            if k < 0:
                self._seen = max(pos, len(low) - len(closes[-1]) + 1, 0)
                return n
            pos = k + len(closes.pop())
            if not closes:
                break
        body = self._buf[:k]
        self._mode, self._buf, self._low = TEXT, "", ""
        cb = self._callbacks.get(self._kind)
        if cb is not None and _lower(self._open_nonce) == self.nonce:
            # What nested inside is hidden in the fact too.  ``strip_tags`` records nothing,
            # so this recursion is one level deep however deep the nesting.
            body = strip_tags(body)
            if body:
                cb(body)
        return i + pos - old


def _nonce_end(low: str, start: int) -> int | None:
    """Where the ``>`` after a nonce beginning at ``start`` is; 0 when what follows is not
    a nonce (whitespace, a backtick, too long, or empty); None when ``low`` ends first."""
    j, limit = start, start + MAX_NONCE_LEN
    while j < len(low):
        c = low[j]
        if c == ">":
            return j if j > start else 0
        if c in "`<" or c.isspace() or j >= limit:
            return 0
        j += 1
    return None


# ----- finished text ------------------------------------------------------------------


def strip_tags(text: str) -> str:
    """Remove every milk tag (any nonce, any kind) from finished text, trimmed.

    The streaming machine fed the whole text at once, so it equals what a stream of the
    same text shows, however it was chunked.
    """
    low = _lower(text)
    if "<milk:" not in low and "</milk:" not in low:  # the machine would change nothing
        return text.strip()
    machine = TagInterceptor("")
    return (machine.feed(text) + machine.flush()).strip()


# ----- consumer hints (docs/adr/0003-the-primary-writes-facts-and-the-need-fallback.md) --


def consumer_from_hint(body: str, primary_name: str, escalation_name: str) -> tuple[str, str]:
    """``@<name>: `` (exactly one space, names as configured, case-sensitive) → target slot."""
    s = body.strip()
    for consumer, name in (("primary", primary_name), ("escalation", escalation_name)):
        if name:
            hint = f"@{name}: "
            if s.startswith(hint):
                return consumer, s[len(hint) :]
            if s == hint.rstrip():  # a hint and nothing else (the body was trimmed)
                return consumer, ""
    return "all", s


# ----- instructions: how an agent is told to write the tags ----------------------------


def need_instruction(nonce: str) -> str:
    return (
        "[Milk current-need tracking]\n"
        "Keep milk informed of what the user is trying to achieve right now. Whenever the "
        "user moves to a new topic or goal — and on the first message when no goal is known "
        "yet — write one sentence naming that goal inside this tag:\n"
        f"<milk:need:{nonce}>one-sentence description of the user's current goal</milk:need:{nonce}>\n"
        "milk removes the tag from the stream before anything is displayed or stored, so the "
        "user never sees it; do not mention it.\n\n"
    )


def memory_instruction(nonce: str, primary_name: str, escalation_name: str) -> str:
    p, e = primary_name or "primary", escalation_name or "escalation"
    return (
        "[Milk shared memory]\n"
        f"You share a long-term memory with the other agent ({p} is the primary agent, {e} the "
        "escalation agent). To remember something, write exactly one fact per tag:\n"
        f"<milk:percept:{nonce}>the fact</milk:percept:{nonce}>\n"
        "Only record facts that stay useful in later sessions and are not obvious from the code "
        "or the conversation; never record transient task state (current step, files just "
        "opened, what you are about to do). A fact without a prefix is shared by both agents. "
        f"Start the fact with `@{p}: ` to address it only to {p}, or with `@{e}: ` to address "
        f"it only to {e} (one space after the colon).\n"
        "Worth remembering: who the user is and how they work; their stated preferences; "
        "project decisions that cannot be derived from the code; where external resources "
        "live (URLs, dashboards, tickets); corrections the user made and approaches they "
        "confirmed — write the rule together with the reason.\n"
        "Memory precedence: when the user asks you to remember something, use the tag above. "
        "Do not write it to file-based memory such as Claude Code project memory (CLAUDE.md "
        "or memory files); milk's memory is the one both agents read.\n"
    )
