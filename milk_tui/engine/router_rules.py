"""The routing rules: hard limits, keyword lists and the weights of the prompt score.

Configured under ``rules`` in the config file (docs/interfaces.md); the router reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class RouterRules:
    """The ``rules`` object of the config; the defaults list English and Italian words."""

    escalate_above_tokens: int = 2000
    local_below_tokens: int = 30
    escalate_threshold: int = 6
    local_threshold: int = -4
    local_verb_weight: int = -3
    escalate_verb_weight: int = 4
    path_ref_weight: int = -2
    code_block_weight: int = -2
    open_question_weight: int = 3
    classifier_fallback: str = "local"
    difficulty_threshold: int = 3
    """Difficulty signals (engine/router_signals.py) weighing this much escalate at any
    length; 0 turns the signals off (the short-prompt rule and the score alone decide)."""
    classifier_min_probability: float = 0.75
    """A primary verdict less sure than this (its probability between the two answers, where
    the server gives log-probs) escalates."""
    learn_similarity: float = 0.5
    """Word overlap (Jaccard) with a prompt the user escalated after a primary answer from
    which a prompt is escalated too; 0 turns the learning off."""
    escalate_keywords: list[str] = field(
        default_factory=lambda: [
            "refactor entire",
            "context brick",
            "memory panel",
            "panel memory",
        ]
    )
    local_verbs: list[str] = field(
        default_factory=lambda: [
            "grep",
            "find",
            "list",
            "run",
            "read",
            "fix",
            "debug",
            "show",
            "cat",
            "ls",
            "check",
            "print",
            "count",
            "search",
            "add",
            "create",
            "write",
            "implement",
            "rename",
            "delete",
            "move",
            "aggiungi",
            "crea",
            "scrivi",
            "implementa",
            "rinomina",
            "elimina",
            "sposta",
            "cerca",
            "mostra",
            "controlla",
            "esegui",
            "leggi",
        ]
    )
    escalate_verbs: list[str] = field(
        default_factory=lambda: [
            "architect",
            "design",
            "refactor",
            "explain why",
            "compare",
            "evaluate",
            "plan",
            "propose",
            "summarize",
            "review",
            "analyze",
            "describe",
            "progetta",
            "refactorizza",
            "spiega perché",
            "confronta",
            "valuta",
            "pianifica",
            "proponi",
            "riassumi",
            "revisiona",
            "analizza",
            "descrivi",
        ]
    )
    open_question_prefixes: list[str] = field(
        default_factory=lambda: [
            "what",
            "why",
            "how",
            "when",
            "where",
            "who",
            "which",
            "could you",
            "can you",
            "would you",
            "should",
            "is it",
            "are there",
            "do you",
            "does",
            "cosa",
            "come",
            "perché",
            "quando",
            "dove",
            "chi",
            "quale",
            "quali",
            "potresti",
            "puoi",
            "dovresti",
            "è possibile",
            "ci sono",
            "sai",
        ]
    )

    @classmethod
    def from_config(cls, rules: dict[str, Any]) -> RouterRules:
        """Keys present override the defaults (a list replaces the whole list); unknown keys and
        values of the wrong type are ignored, so a Go milk config.json loads unchanged."""
        out = cls()
        for f in fields(cls):
            if f.name not in rules or rules[f.name] is None:
                continue
            value = rules[f.name]
            current = getattr(out, f.name)
            try:
                if isinstance(current, list):
                    value = [str(v) for v in value]
                    if f.name == "open_question_prefixes" and not value:
                        continue  # an empty list keeps the built-in prefixes
                elif isinstance(current, float):
                    value = float(value)
                elif isinstance(current, int):
                    value = int(value)
                else:
                    value = str(value)
            except (TypeError, ValueError):
                continue
            setattr(out, f.name, value)
        return out
