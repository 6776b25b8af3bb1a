"""Many SSE events of one learned shape decoded in a row (the hot path of ``openai_sse``).

A skeleton (``SSEParser._learn``) is the text of one event around its delta string:
``head`` ("data: " and the JSON up to the string's opening quote) and ``tail`` (the JSON
after its closing quote, and the blank line).  What ``read_ahead`` hands over is hundreds
of such events in a row: each is read with a prefix comparison, the C string decoder and
a suffix comparison, up to the first event of another shape, where the caller's general
parser takes over.  (Reading a whole run with ``str.count``/``replace`` or one regex
``findall`` was tried: no faster at these sizes, docs/performance.md "The hot path,
round 7".)
"""

from __future__ import annotations

from _json import scanstring  # the C string decoder json.decoder itself uses

Hot = tuple[str, int, str, int]
"""(head, its length, tail, its length)."""
TEXT, THINK = 1, 2


def decode_run(
    s: str, pos: int, text: Hot | None, think: Hot | None
) -> tuple[list[tuple[int, str]], int]:
    """The (kind, text) runs of the events of either shape from ``s[pos:]`` on, coalesced
    by kind, and the position after the last one decoded."""
    runs: list[tuple[int, str]] = []
    run: list[str] = []
    kind = TEXT
    n = len(s)
    while pos < n:
        if text is not None and s.startswith(text[0], pos):
            hot, k = text, TEXT
        elif think is not None and s.startswith(think[0], pos):
            hot, k = think, THINK
        else:
            break
        try:
            t, end = scanstring(s, pos + hot[1])
        except ValueError:
            break
        if not s.startswith(hot[2], end):
            break
        pos = end + hot[3]
        if t:
            if k != kind and run:
                runs.append((kind, "".join(run)))
                run = []
            kind = k
            run.append(t)
    if run:
        runs.append((kind, "".join(run)))
    return runs, pos
