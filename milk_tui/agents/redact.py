"""Secret masking for every agent backend, every log and everything stored.

Secrets (API keys, ``token_cmd`` output, AWS keys, secret environment values — an MCP
server's too — auth headers)
must never reach an error message, the wire log, an event or the database.  Each backend
owns one ``Redactor``, registers every secret it learns, and passes every outgoing string
through it, backend error excerpts included, since a proxy may echo our own headers back.

Every value a ``Redactor`` learns is also entered in one process-wide list of known
secrets: a key learned by one backend (``token_cmd`` output) must be masked wherever it
shows up, including in the other agent's reply.  ``StreamMasker`` masks that list in a
stream of text pieces (a reply), holding back only a tail that could still begin a
secret; ``SplitSecrets`` does the same for a log whose records each carry a piece of the
text (SSE events, stream-json lines).  Design: docs/adr/0015-no-secret-on-disk.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from milk_tui.config.secrets import (
    SECRET_AGENT_KEYS,
    env_secrets,
    header_secrets,
    is_credential_header,
)

if TYPE_CHECKING:
    from milk_tui.config.settings import MilkConfig

MASK = "***"
MIN_SECRET_CHARS = 4
"""Shorter values would mangle ordinary text and are no real secret anyway."""

_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)[^\s\"',]+"),
    re.compile(
        r"(?i)(\"?(?:authorization|api[_-]?key|x-api-key|access[_-]?token|token|secret)\"?"
        r"\s*[:=]\s*\"?)(?!\*\*\*)[^\s\"',}]+"
    ),
)
"""Secret-looking ``key: value`` pairs and bearer tokens we were never told about."""

_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^\s/?#@\"'<>]+@")
"""The ``user:password@`` of a URL (RFC 3986 section 3.2.1): an agent's ``url`` may carry
one, and every line that quotes the URL (the wire log, an error) would show it."""


def mask_url_userinfo(text: str) -> str:
    """``text`` with the user and password of every URL in it written ``***``:
    ``http://u:pw@host/v1`` → ``http://***@host/v1``."""
    if "@" not in text or "://" not in text:
        return text
    return _URL_USERINFO.sub(r"\1***@", text)


_KNOWN: list[str] = []
"""Every secret value any ``Redactor`` learned in this process, longest first.  Mutated in
place only, so a ``StreamMasker`` created before a ``token_cmd`` ran still sees its output."""


SHARED_SECRET_CHARS = 8


def looks_like_a_credential(value: str) -> bool:
    """Whether a value is masked in every text (replies, stored turns, every log): at least
    8 characters, and not a short plain word.  Local servers take placeholder keys such as
    ``ollama``, ``dummy`` or ``EMPTY``; masking those in every reply would hide ordinary
    words, and they protect nothing.  A backend still masks them in its own errors."""
    return len(value) >= SHARED_SECRET_CHARS and not (value.isalpha() and len(value) < 16)


def register(*secrets: str) -> None:
    """Enter secret values in the process-wide list (placeholders are skipped)."""
    for s in secrets:
        if s and looks_like_a_credential(s) and s not in _KNOWN:
            _KNOWN.append(s)
            _KNOWN.sort(key=len, reverse=True)


REGEX_PREFIX_CHARS = 64
"""Beginnings of a secret up to this long are matched by one nested regex (deeper nesting
would exhaust the regex parser's recursion); a longer tail is found by ``find``."""


class _Plan:
    """What ``StreamMasker`` needs of the known secrets, built once per list of secrets:
    the shortest length (a shorter piece cannot hold one), the longest (how far back a
    split secret can begin), their first characters (a tail without one cannot begin a
    secret) and one regex matching a short proper beginning of any secret at the end of a
    text; secrets longer than that regex reaches are also kept with their first characters."""

    __slots__ = ("secrets", "shortest", "window", "first", "inner", "tail_rx", "long")

    def __init__(self, secrets: list[str]) -> None:
        self.secrets = tuple(secrets)
        self.shortest = min(map(len, secrets))
        self.window = max(map(len, secrets)) - 1
        self.first = frozenset(s[0] for s in secrets)
        self.inner = frozenset("".join(s[:-1] for s in secrets))
        """Characters a proper beginning of a secret can end with: a text ending otherwise
        (a space, most punctuation) holds nothing back."""
        short = (_prefix_pattern(s[: REGEX_PREFIX_CHARS + 1]) for s in secrets)
        self.tail_rx = re.compile("(?:" + "|".join(short) + r")\Z")
        self.long = tuple(
            (s, s[:REGEX_PREFIX_CHARS]) for s in secrets if len(s) > REGEX_PREFIX_CHARS + 1
        )

    def held_from(self, text: str, lo: int) -> int:
        """Where the longest tail of ``text`` that begins a secret starts (len when none)."""
        n = len(text)
        m = self.tail_rx.search(text, lo)
        cut = m.start() if m is not None else n
        for secret, head in self.long:  # tails longer than the regex reaches
            i = text.find(head, max(0, n - len(secret) + 1))
            while i != -1 and n - i > REGEX_PREFIX_CHARS:
                if secret.startswith(text[i:]):
                    cut = min(cut, i)
                    break
                i = text.find(head, i + 1)
        return cut


def _prefix_pattern(secret: str) -> str:
    """``abcd`` → ``a(?:b(?:c)?)?``: any proper non-empty beginning of the secret."""
    p = ""
    for ch in reversed(secret[:-1]):
        p = re.escape(ch) + (f"(?:{p})?" if p else "")
    return p


_plan_cache: list[_Plan] = []


def _plan() -> _Plan:
    """The plan of the current secrets (the list only grows, so its length tells a change)."""
    if not _plan_cache or len(_plan_cache[0].secrets) != len(_KNOWN):
        _plan_cache[:] = [_Plan(_KNOWN)]
    return _plan_cache[0]


def known_secrets() -> list[str]:
    return _KNOWN


def config_secrets(cfg: MilkConfig) -> list[str]:
    """Every secret written in a configuration: keys, AWS credentials, auth header values,
    and each MCP server's key and credential environment values."""
    out = []
    for a in cfg.agents:
        out += [getattr(a, k) for k in SECRET_AGENT_KEYS]
        out += header_secrets(a.headers)
    for m in cfg.mcp_servers:
        out += [m.api_key, *env_secrets(m.env)]  # ``register`` skips words such as ``none``
    out.append(cfg.remote_oversight.telegram.token)
    return [s for s in out if s]


class Redactor:
    """Replaces known secret values, and secret-looking pairs, with ``***``."""

    def __init__(self, *secrets: str) -> None:
        self._secrets: list[str] = []
        for s in secrets:
            self.add(s)

    def add(self, secret: str) -> None:
        if secret and len(secret) >= MIN_SECRET_CHARS and secret not in self._secrets:
            self._secrets.append(secret)
            # Longest first, so a secret that contains another is masked whole.
            self._secrets.sort(key=len, reverse=True)
            register(secret)

    def add_headers(self, headers: dict[str, str]) -> None:
        """Register the values of configured headers that carry credentials."""
        for v in header_secrets(headers):
            self.add(v)

    @property
    def secrets(self) -> list[str]:
        return self._secrets

    def __call__(self, text: str) -> str:
        """Known values and secret-looking pairs: for errors and the wire log."""
        text = mask_url_userinfo(self.values(text))
        for rx in _PATTERNS:
            text = rx.sub(_keep_key, text)
        return text

    def values(self, text: str) -> str:
        """Known values only: for tool results, which are file or command output where the
        pattern rules would mangle ordinary code such as ``token = x``.  Every secret known
        in the process, not only this backend's: another agent's key is no less secret."""
        return mask_values(mask_values(text, self._secrets), _KNOWN)

    def headers(self, headers: dict[str, str]) -> dict[str, str]:
        return {k: (MASK if is_credential_header(k) else self(v)) for k, v in headers.items()}


def _keep_key(m: re.Match[str]) -> str:
    return m.group(1) + MASK


def mask_values(text: str, secrets: Iterable[str]) -> str:
    for s in secrets:
        if s in text:
            text = text.replace(s, MASK)
    return text


def _held_from(buf: str, secrets: list[str]) -> int:
    """Where the longest tail of ``buf`` that could still begin a secret starts (len(buf)
    when none could).  One ``find`` per secret in the usual case: a tail is only a candidate
    where the secret's first character occurs."""
    n = len(buf)
    cut = n
    for s in secrets:
        i = buf.find(s[0], max(0, n - len(s) + 1))
        while i != -1 and i < cut:
            if s.startswith(buf[i:]):
                cut = i
                break
            i = buf.find(s[0], i + 1)
    return cut


class StreamMasker:
    """Known secrets masked in a stream of text pieces, a secret split across pieces too.

    ``feed`` returns what is safe to show now and keeps back only a tail that is the
    beginning of some secret (shorter than the longest secret); ``flush`` returns that tail
    at the end of the stream.  With no secret known a piece passes through untouched.
    """

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held = ""
        """The tail kept back: the beginning of some secret, or empty."""

    def feed(self, text: str) -> str:
        if self.held:
            text = self.held + text
            self.held = ""
        if not _KNOWN:
            return text
        plan = _plan()
        n = len(text)
        if n >= plan.shortest:
            for s in plan.secrets:
                if s in text:
                    text = text.replace(s, MASK)
            n = len(text)
        if not n or text[-1] not in plan.inner:
            return text
        lo = n - plan.window if n > plan.window else 0
        if plan.first.isdisjoint(text[lo:]):
            return text
        if plan.long:
            cut = plan.held_from(text, lo)
        else:
            m = plan.tail_rx.search(text, lo)
            cut = m.start() if m is not None else n
        if cut == n:
            return text
        self.held = text[cut:]
        return text[:cut]

    def flush(self) -> str:
        tail, self.held = self.held, ""
        return tail


_JSON_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


class SplitSecrets:
    """Masks a known secret spelled out across consecutive log records.

    A reply that echoes a key arrives as many small deltas, one per SSE event or stream-json
    line, so no single record holds the key.  This follows each JSON string of a record:
    one that ends with the beginning of a secret opens a candidate, later strings that
    continue it extend it, and one that finishes it masks every piece.  Records that take
    part in an open candidate are held back (``feed`` returns the records now safe to
    write); a candidate not continued by the next record that has strings is dropped.
    """

    def __init__(self) -> None:
        self._held: list[str] = []
        self._open: list[tuple[str, int, list[tuple[int, int, int]]]] = []
        """(secret, characters matched so far, pieces as (held index, start, end))."""
        self._spans: list[tuple[int, int, int]] = []
        """Pieces of completed secrets, masked when their records are written."""

    def feed(self, record: str) -> list[str]:
        secrets = _KNOWN
        if not secrets or (not self._held and '"' not in record):
            return [record] if not self._held else [*self._release(force=True), record]
        n = len(self._held)
        self._held.append(record)
        strings = [(m.start(1), m.end(1), m.group(1)) for m in _JSON_STRING.finditer(record)]
        if not strings:
            return self._release()
        still: list[tuple[str, int, list[tuple[int, int, int]]]] = []
        for secret, k, pieces in self._open:
            rest = secret[k:]
            for a, b, t in strings:
                if t.startswith(rest):
                    self._spans += [*pieces, (n, a, a + len(rest))]
                    break
                if t and rest.startswith(t):
                    still.append((secret, k + len(t), [*pieces, (n, a, b)]))
                    break
        for a, b, t in strings:
            for secret in secrets:
                start = _held_from(t, [secret])
                if start < len(t):
                    still.append((secret, len(t) - start, [(n, a + start, b)]))
        # Two candidates at the same point of the same secret continue alike: keep the one
        # that began last (``"choices"`` ending in ``s`` must not claim a key's ``s``).
        latest: dict[tuple[str, int], tuple[str, int, list[tuple[int, int, int]]]] = {}
        for c in still:
            old = latest.get((c[0], c[1]))
            if old is None or old[2][0][:2] < c[2][0][:2]:
                latest[(c[0], c[1])] = c
        self._open = list(latest.values())
        return self._release()

    def flush(self) -> list[str]:
        return self._release(force=True)

    def _release(self, *, force: bool = False) -> list[str]:
        if force:
            self._open = []
        keep = min((p[0][0] for _, _, p in self._open), default=len(self._held))
        out = [self._masked(i, rec) for i, rec in enumerate(self._held[:keep])]
        if keep:
            self._held = self._held[keep:]
            self._spans = [(i - keep, a, b) for i, a, b in self._spans if i >= keep]
            self._open = [(s, k, [(i - keep, a, b) for i, a, b in p]) for s, k, p in self._open]
        return out

    def _masked(self, index: int, record: str) -> str:
        merged: list[list[int]] = []
        for a, b in sorted((a, b) for i, a, b in self._spans if i == index):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        for a, b in reversed(merged):
            record = record[:a] + MASK + record[b:]
        return record
