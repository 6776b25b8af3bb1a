"""The keys of an agent entry: which ones there are (read off ``AgentConfig``, the one
agent model, so a key added there is settable everywhere), how a typed ``key=value`` becomes
the value the model takes, what a new entry may not be — and, for keys only one kind of
backend reads, a line naming each one set on another kind.

A Go milk config often carries keys copied between entries (``extra_args`` on an HTTP
agent, ``settings`` on an aider entry); they are harmless, but silently ignoring them
would hide a typo in ``provider``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import ssl
from typing import Any, get_origin

from pydantic import TypeAdapter, ValidationError

from milk_tui.config.settings import AgentConfig

AGENT_KEYS: tuple[str, ...] = tuple(AgentConfig.model_fields)
"""Every key an agent entry takes, in the model's order."""

KNOWN_KINDS = ("local", "openai", "openrouter", "bedrock", "claude-cli", "aider-cli", "subprocess")
"""Providers named in the help; any other name is an OpenAI-compatible service with a key."""

_PROVIDER_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")


def provider_problem(provider: str) -> str:
    """One line when ``provider`` cannot be a provider name (a URL typed in the wrong
    field is the usual case); "" when it can."""
    p = provider.strip().lower()
    if not p or _PROVIDER_NAME.fullmatch(p):
        return ""
    if "://" in p or "/" in p or ":" in p:
        return f"provider: '{provider}' looks like an address; it goes in url (provider is a name)"
    return f"provider: '{provider}' is not a provider name (e.g. {', '.join(KNOWN_KINDS)})"


def unknown_keys(keys: list[str]) -> str:
    """One line naming the keys no agent entry has ("" when all are known)."""
    bad = [k for k in keys if k not in AGENT_KEYS]
    if not bad:
        return ""
    return f"unknown agent key{'s' if len(bad) > 1 else ''} {', '.join(bad)} (keys: {', '.join(AGENT_KEYS)})"


def parse_pairs(words: str) -> dict[str, str]:
    """``key=value …`` (shell quoting for a value with spaces) → the raw values; a
    ``ValueError`` with one line for a word that is no ``key=value`` or an unknown key."""
    try:
        pairs = [w.partition("=") for w in shlex.split(words)]
    except ValueError as e:
        raise ValueError(f'{e} (quote a value with spaces: key="a b")') from None
    for key, eq, _ in pairs:
        if not eq:
            raise ValueError(f"'{key}': expected key=value")
    problem = unknown_keys([key for key, _, _ in pairs])
    if problem:
        raise ValueError(problem)
    return {key: value for key, _, value in pairs}


def typed_value(key: str, text: str) -> Any:
    """``text`` as ``key`` takes it: JSON for a list or table (``[…]``, ``{…}``), a list
    key given plain text split at commas, a number or a boolean converted; text that is
    none of what the key takes is returned as it is, for the model to say what is wrong."""
    text = text.strip()
    if text[:1] in ("[", "{"):
        try:
            return json.loads(text)
        except ValueError:
            return text  # the model says what it expected
    field = AgentConfig.model_fields.get(key)
    if field is None or field.annotation is None or key == "extra_args":
        return text  # extra_args: the model splits a string like a shell
    if get_origin(field.annotation) is list:
        return [part.strip() for part in text.split(",") if part.strip()]
    try:  # "512" → 512, "yes" → True: the file then holds the value, not its text
        return TypeAdapter(field.annotation).validate_python(text)
    except ValidationError:
        return text  # the model says what it expected


KEY_KINDS: dict[str, frozenset[str]] = {
    "settings": frozenset({"claude-cli"}),
    "extra_args": frozenset({"claude-cli", "aider-cli"}),
    "tls_ca_cert": frozenset({"openai"}),
    "tls_skip_verify": frozenset({"openai"}),
    "aws_service": frozenset({"bedrock"}),
    "prompt_caching": frozenset({"bedrock"}),
    "system_prompt_tier": frozenset({"openai", "bedrock", "subprocess", "aider-cli"}),
    "action_type": frozenset({"subprocess"}),
    "model_type": frozenset({"subprocess"}),
    "smolagent_tools": frozenset({"subprocess"}),
    "max_steps": frozenset({"subprocess"}),
    "authorized_imports": frozenset({"subprocess"}),
}
"""Key → the adapter kinds (``AgentConfig.kind``) that read it."""


def misplaced_key_warnings(agents: list[AgentConfig]) -> list[str]:
    out = [w for a in agents if (w := ca_cert_problem(a))]
    for ac in agents:
        if ac.kind == "demo":
            continue
        misplaced = [k for k in KEY_KINDS if ac.kind not in KEY_KINDS[k] and _set(ac, k)]
        for key in misplaced:
            kinds = " or ".join(sorted(KEY_KINDS[key])).replace("openai", "an HTTP provider")
            out.append(
                f"agent '{ac.name}': key '{key}' applies only to {kinds}, not to provider "
                f"'{ac.provider or 'local'}'; ignored"
            )
    return out


def _set(ac: AgentConfig, key: str) -> bool:
    """Given a value other than the default: a Go config that writes every field with its
    zero value (``"tls_skip_verify": false``) must not be warned about."""
    value = getattr(ac, key)
    default = AgentConfig.model_fields[key].get_default(call_default_factory=True)
    return key in ac.model_fields_set and bool(value) and value != default


def ca_cert_problem(ac: AgentConfig) -> str:
    """One line when an HTTP agent's ``tls_ca_cert`` cannot be loaded: the agent then
    verifies with the default CA bundle only (agents/openai_compat.py ``tls_verify``)."""
    if not ac.tls_ca_cert or ac.kind != "openai" or ac.tls_skip_verify:
        return ""
    path = os.path.expanduser(ac.tls_ca_cert)
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=path)
    except FileNotFoundError:
        why = "not found"
    except PermissionError:
        why = "permission denied"
    except (OSError, ssl.SSLError) as e:
        why = f"not a PEM certificate file ({getattr(e, 'reason', None) or e})"
    else:
        return ""
    return f"agent '{ac.name}': tls_ca_cert {path}: {why}; verifying with the default CA bundle"
