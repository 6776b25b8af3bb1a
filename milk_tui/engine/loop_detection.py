"""Loop detection: a reply that keeps repeating one passage, and replies that repeat each
other or burn tokens without showing anything (config key ``loop_detection``,
docs/adr/0012-text-tool-calls-and-loop-detection.md).

``RepetitionWatch`` looks at a reply's visible text while it streams.  Small models at
temperature 0 repeat whole sentences (or stanzas), not identical chunks, so it asks of
the text itself: is its tail the same passage, ``repeats`` times in a row?  It checks once
every ``CHECK_EVERY`` new characters, over the last ``WINDOW`` characters: one ``rfind``
of the tail's last characters finds the candidate period, one string comparison confirms
it, so the cost per chunk is a length addition in the reader and, amortised, a few C-level
scans (bench/text_calls_and_loops.py).

``ReplyWatch`` runs after each answered turn and only warns.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable

from milk_tui.config.loop_detection import LoopDetection
from milk_tui.memory.dedup import jaccard

MIN_PASSAGE = 16
"""Shorter periods are rules, separators and tables (``-----``, ``| 0 | 0 |``), not loops."""
NEEDLE = 16
WINDOW = 8192
"""Characters kept: passages up to WINDOW / repeats long are seen (1,638 at 5 repeats)."""
CHECK_EVERY = 128
"""Characters between checks: the cut comes at most this much after the loop is certain."""
CANDIDATES = 8
"""Earlier occurrences of the needle tried per check before giving up."""
NOTICE_PASSAGE_CHARS = 60
TRIGRAM_SAMPLE = 2048
"""Characters from each end of a reply compared across turns."""


class RepetitionWatch:
    """``check`` is called by the stream's reader every ``CHECK_EVERY`` new characters with
    the reply's visible parts so far (it reads only the new ones); ``repeats`` 0 never
    fires (``next_check`` stays infinite)."""

    def __init__(self, repeats: int) -> None:
        self.repeats = max(2, repeats) if repeats > 0 else 0
        self.next_check: float = CHECK_EVERY if repeats > 0 else math.inf
        self._read = 0
        self._tail = ""
        self.period = 0
        """Length of the repeated passage once found."""

    def check(self, parts: list[str], chars: int) -> bool:
        """``parts``: the visible text so far; ``chars``: its length.  True once looping."""
        self.next_check = chars + CHECK_EVERY
        tail, self._tail = self._tail, ""  # one reference left, so += can grow it in place
        tail += "".join(parts[self._read :])
        self._read = len(parts)
        if len(tail) > 2 * WINDOW:
            tail = tail[-WINDOW:]
        self._tail = tail
        n, k = len(tail), self.repeats
        if n < k * MIN_PASSAGE:
            return False
        needle = tail[n - NEEDLE :]
        q = (needle + needle).find(needle, 1)
        if q < NEEDLE and tail[q:] == tail[:-q]:
            # The whole window repeats a unit shorter than a passage (a rule, a table, one
            # token over and over): any longer period inside it would be a power of that
            # unit too, so no passage can loop here.  One C comparison instead of every
            # candidate.
            return False
        end = n - MIN_PASSAGE  # an occurrence ending by here is at least MIN_PASSAGE back
        lo = max(0, n - min(n, WINDOW) // k - NEEDLE)  # the period is at most WINDOW / k
        for _ in range(CANDIDATES):
            j = tail.rfind(needle, lo, end)
            if j < 0:
                return False
            p = n - NEEDLE - j
            if tail[n - k * p : n - p] == tail[n - (k - 1) * p :] and _is_passage(tail[n - p :]):
                self.period = p
                return True
            end = j + NEEDLE - 1
        return False

    def cut(self, text: str) -> tuple[str, str]:
        """(the reply up to the loop with the passage kept once, the passage) for ``text``,
        the whole visible reply when ``feed`` said True."""
        p = self.period
        s = len(text) - self.repeats * p
        while s > 0 and text[s - 1] == text[s - 1 + p]:
            s -= 1
        s = _passage_start(text, s, p)
        return text[: s + p], text[s : s + p]


def _passage_start(text: str, s: int, p: int) -> int:
    """Any start in ``[s, s + p)`` repeats; prefer a line start, then a sentence start, then
    a word start, so the copy kept reads as written."""
    for starts_here in (
        lambda i: text[i - 1] == "\n",
        lambda i: text[i - 1].isspace() and i >= 2 and text[i - 2] in ".!?",
        lambda i: text[i - 1].isspace(),
    ):
        for i in range(max(s, 1), s + p):
            if starts_here(i) and not text[i].isspace():
                return i
    return s


def _is_passage(p: str) -> bool:
    """Words, not a short pattern repeated: ``p`` is no power of a shorter string and has
    letters."""
    if (p + p).find(p, 1) != len(p):
        return False
    return sum(c.isalpha() for c in p) >= MIN_PASSAGE // 2


def loop_notice(passage: str) -> str:
    """The one line that tells the user why the reply stopped."""
    s = " ".join(passage.split())
    if len(s) > NOTICE_PASSAGE_CHARS:
        s = s[:NOTICE_PASSAGE_CHARS].rstrip() + "…"
    return f"stopped: the reply kept repeating “{s}”"


class ReplyWatch:
    """Across turns: near-identical consecutive replies, tokens burnt without visible text,
    and a token rate above the threshold each produce a warning; nothing is stopped."""

    def __init__(self, cfg: LoopDetection, clock: Callable[[], float] = time.monotonic) -> None:
        self.cfg = cfg
        self._clock = clock
        self._last: frozenset[str] | None = None
        self._similar = 1
        self._silent = 0
        self._recent: deque[tuple[float, int]] = deque()

    def after_turn(self, text: str, completion_tokens: int) -> list[str]:
        cfg = self.cfg
        if not cfg.enabled:
            return []
        out: list[str] = []
        grams = _trigrams(text)
        if (
            self._last is not None
            and jaccard(grams, self._last) >= cfg.response_similarity_threshold
        ):
            self._similar += 1
        else:
            self._similar = 1
        self._last = grams
        n = cfg.max_consecutive_similar_responses
        if n > 1 and self._similar >= n:
            out.append(
                f"the last {self._similar} replies are nearly identical: the model may be looping"
            )
            self._similar = 1
        self._silent = self._silent + completion_tokens if not text.strip() else 0
        if 0 < cfg.max_silent_burn_tokens <= self._silent:
            out.append(f"{self._silent} tokens spent without a visible reply")
            self._silent = 0
        now = self._clock()
        recent = self._recent
        recent.append((now, completion_tokens))
        while recent and recent[0][0] < now - cfg.token_velocity_window_seconds:
            recent.popleft()
        used = sum(t for _, t in recent)
        if 0 < cfg.token_velocity_threshold <= used:
            out.append(
                f"{used} tokens in the last {cfg.token_velocity_window_seconds:g}s: "
                "unusually fast token use"
            )
            recent.clear()
        return out


def _trigrams(text: str) -> frozenset[str]:
    """Character trigrams of the reply's head and tail: two near-identical replies agree
    there, and a bounded sample keeps the check off a long turn's critical path (a
    20,000-chunk reply would otherwise cost milliseconds per turn)."""
    s = " ".join(text[:TRIGRAM_SAMPLE].lower().split())
    if len(text) > 2 * TRIGRAM_SAMPLE:
        s += " " + " ".join(text[-TRIGRAM_SAMPLE:].lower().split())
    elif len(text) > TRIGRAM_SAMPLE:
        s = " ".join(text.lower().split())
    return frozenset(s[i : i + 3] for i in range(len(s) - 2))
