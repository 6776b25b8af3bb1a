"""Reading tool calls out of the text a model wrote (pure functions, no I/O).

Local models often write their calls as markup instead of native ``tool_calls``; the
streaming detector (``text_call_detect``) cuts each block out of the reply and hands its
body here, together with the block's format.  A block is a call only when every call in
it parses and names a tool the request offered; anything else is left as text, so prose
that merely looks like a call is never run.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

GEMMA = "gemma_special"
TOOL_CALL_TAG = "tool_call_tag"
TOOLS_TAG = "tools_tag"
FENCED_JSON = "fenced_json"
TOOL_CODE = "tool_code"
MISTRAL = "bracket_tool_calls"
BARE_JSON = "bare_json"


@dataclass(frozen=True, slots=True)
class TextCall:
    name: str
    arguments: str
    """JSON text of the arguments object, as a native call carries it."""


def extract_calls(fmt: str, body: str, tool_names: Collection[str]) -> list[TextCall] | None:
    """The calls in one block's body (the text between its delimiters), or None when the
    block is not a valid call of an offered tool."""
    if fmt == GEMMA:
        calls = _gemma(body)
    elif fmt == TOOL_CODE:
        calls = _python_calls(body)
    elif fmt == MISTRAL:
        calls = _mistral(body)
    else:
        calls = _json_calls(body)
    if not calls or any(c.name not in tool_names for c in calls):
        return None
    return calls


def _json_values(text: str) -> list[Any] | None:
    """Every JSON value in ``text`` (one, or several separated by whitespace); None unless
    the whole text is JSON."""
    dec = json.JSONDecoder()
    out: list[Any] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i == n:
            return out
        try:
            value, i = dec.raw_decode(text, i)
        except ValueError:
            return None
        out.append(value)


def _json_calls(body: str) -> list[TextCall] | None:
    values = _json_values(body)
    if not values:
        return None
    objs: list[Any] = []
    for v in values:
        objs += v if isinstance(v, list) else [v]
    calls = [_call(o) for o in objs]
    return None if any(c is None for c in calls) else [c for c in calls if c is not None]


def _call(obj: Any) -> TextCall | None:
    """``{"name": …, "arguments": {…}}`` (or ``parameters``, or OpenAI's ``function``
    wrapper); arguments given as a JSON string are passed on for the tool box to judge."""
    if not isinstance(obj, dict):
        return None
    fn = obj.get("function")
    if isinstance(fn, dict):
        obj = fn
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return None
    args = obj.get("arguments", obj.get("parameters", {}))
    if isinstance(args, str):
        return TextCall(name, args or "{}")
    if not isinstance(args, dict):
        return None
    return TextCall(name, json.dumps(args, ensure_ascii=False))


_GEMMA_CALL = re.compile(r"\s*call:([\w.\-]+)\s*(\{.*\})\s*\Z", re.DOTALL)
_GEMMA_QUOTE = '<|"|>'
_BARE_KEY = re.compile(r"([{,]\s*)([A-Za-z_][\w\-]*)\s*:")


def _gemma(body: str) -> list[TextCall] | None:
    """``call:name{key:<|"|>text<|"|>,n:3}``: special-token quotes and unquoted keys."""
    m = _GEMMA_CALL.match(body)
    if m is None:
        return None
    parts = m.group(2).split(_GEMMA_QUOTE)
    # Even parts are outside strings: quote bare keys there only.
    for i in range(0, len(parts), 2):
        parts[i] = _BARE_KEY.sub(r'\1"\2":', parts[i])
    for i in range(1, len(parts), 2):
        parts[i] = json.dumps(parts[i])[1:-1]
    try:
        args = json.loads('"'.join(parts))
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    return [TextCall(m.group(1), json.dumps(args, ensure_ascii=False))]


def _python_calls(body: str) -> list[TextCall] | None:
    """Gemma's ``tool_code``: ``name(key="v", n=3)`` lines, optionally wrapped in
    ``print(…)`` or qualified (``default_api.name``); literal keyword arguments only."""
    try:
        tree = ast.parse(body.strip())
    except SyntaxError:
        return None
    calls: list[TextCall] = []
    for stmt in tree.body:
        node = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(node, ast.Call) and _func_name(node) == "print" and len(node.args) == 1:
            node = node.args[0]
        if not isinstance(node, ast.Call) or node.args:
            return None
        name = _func_name(node)
        try:
            args = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        except ValueError:
            return None
        if not name or len(args) != len(node.keywords):
            return None
        calls.append(TextCall(name, json.dumps(args, ensure_ascii=False)))
    return calls or None


def _func_name(node: ast.Call) -> str:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


_MISTRAL_NAMED = re.compile(r"\s*([\w.\-]+)(?:\[CALL_ID\][\w\-]*)?\[ARGS\](.*)\Z", re.DOTALL)


def _mistral(body: str) -> list[TextCall] | None:
    """After ``[TOOL_CALLS]``: a JSON list of calls, or ``name[ARGS]{…}`` (one per
    ``[TOOL_CALLS]``)."""
    stripped = body.strip()
    if stripped.startswith(("[", "{")):
        return _json_calls(stripped)
    calls: list[TextCall] = []
    for part in stripped.split("[TOOL_CALLS]"):
        m = _MISTRAL_NAMED.match(part)
        values = _json_values(m.group(2)) if m else None
        if m is None or not values or len(values) != 1 or not isinstance(values[0], dict):
            return None
        calls.append(TextCall(m.group(1), json.dumps(values[0], ensure_ascii=False)))
    return calls
