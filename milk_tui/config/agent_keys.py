"""Per-agent keys that only one kind of backend reads: set on another, each is named once.

A Go milk config often carries keys copied between entries (``extra_args`` on an HTTP
agent, ``settings`` on an aider entry); they are harmless, but silently ignoring them
would hide a typo in ``provider``.
"""

from __future__ import annotations

import os
import ssl

from milk_tui.config.settings import AgentConfig

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
