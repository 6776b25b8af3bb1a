"""What a Go milk config.json holds by default: a key written with its default value asks
for nothing, so it is never reported as unsupported (docs/adr/0021-configuration-that-follows-the-user.md).

Go's ``Save`` writes the whole struct — ``rules`` and ``otel`` always, ``colorization``,
the update keys — so a file the user never edited still carries them.  A value asks for
something only when it is set (not empty, false or zero), differs from the default below,
and is not an object switched off with ``enabled: false``.
"""

from __future__ import annotations

from typing import Any

GO_DEFAULTS: dict[str, Any] = {
    "colorization": "balanced",
    "update_check": True,
    "update_channel": "pre",
    "default_route": "local",
    "system_prompt_tier": "standard",
    "api_format": "chat_completions",
    "aws_service": "bedrock",
    "action_type": "code",
    "model_type": "OpenAIModel",
    "max_steps": 15,
}
"""Top-level and per-agent keys whose Go default is not an empty value."""


def asks_for_something(key: str, value: Any) -> bool:
    """Whether ``key: value`` asks for behaviour (False for an empty or default value)."""
    if not value or GO_DEFAULTS.get(key, object()) == value:
        return False
    return not (isinstance(value, dict) and value.get("enabled") is False)


RULES_KEYS: dict[str, type] = {
    "escalate_above_tokens": int, "local_below_tokens": int, "escalate_threshold": int,
    "local_threshold": int, "local_verb_weight": int, "escalate_verb_weight": int,
    "path_ref_weight": int, "code_block_weight": int, "open_question_weight": int,
    "classifier_fallback": str, "escalate_keywords": list, "local_verbs": list,
    "escalate_verbs": list, "open_question_prefixes": list,
    # ours (docs/adr/0039-routing-signals-verdict-and-learning.md)
    "difficulty_threshold": int, "classifier_min_probability": float, "learn_similarity": float,
}  # fmt: skip
"""The keys of ``rules`` and their types, read by ``RouterRules.from_config``
(engine/router_rules.py, a layer above this one; tests/config/test_go_config.py checks that
the two agree)."""
