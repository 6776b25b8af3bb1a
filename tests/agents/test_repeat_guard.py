"""The repeated-prompt guard: the scoring examples it must reproduce."""

from __future__ import annotations

import pytest

from milk_tui.engine.repeat_guard import is_repeated_prompt

Q = "how do I configure the router rules"
OTHER = [
    "what is the weather like",
    "explain the session model",
    "list the open tasks",
    "show me the config file",
    "why did the build fail",
    "summarise the last commit",
    "write a test for the parser",
    "rename the helper function",
    "describe the bus events",
    "where are the themes",
    "check the memory panel",
]


def history_with_matches(distances: list[int], length: int = 10) -> list[str]:
    """Prior prompts (oldest first) where Q sits at the given distances from the end."""
    hist = [OTHER[i % len(OTHER)] for i in range(length)]
    for d in distances:
        hist[length - d] = Q
    return hist


@pytest.mark.parametrize(
    ("distances", "fires"),
    [
        ([1], True),  # immediate repeat: 1.0
        ([2], False),  # 0.5
        ([2, 3], False),  # 0.83
        ([1, 3], True),  # 1.33
        ([2, 3, 10], True),  # 0.5 + 0.333 + 0.1 = 0.933, the 10th is still in the window
        ([3, 4, 5, 6], True),  # 0.333 + 0.25 + 0.2 + 0.167 = 0.95
        ([2, 4, 7], False),  # 0.5 + 0.25 + 0.143 = 0.893, just under
    ],
)
def test_distance_scoring(distances: list[int], fires: bool) -> None:
    assert is_repeated_prompt(history_with_matches(distances), Q, 0) is fires


def test_matches_outside_the_last_ten_do_not_count() -> None:
    hist = history_with_matches([2, 3], length=12)
    hist[0] = Q  # distance 12: outside the window; with it the score would pass 0.9
    assert not is_repeated_prompt(hist, Q, 0)
    hist[-10] = Q  # distance 10: inside
    assert is_repeated_prompt(hist, Q, 0)


@pytest.mark.parametrize(
    ("prompt", "checked"),
    [
        ("ok", False),  # < 20 bytes and < 3 words
        ("fix bug", False),
        ("fix the bug", True),  # 3 words is enough
        ("abcdefghijklmnopqrst", True),  # 20 bytes is enough
        ("abcdefghijklmnopqrs", False),  # 19 bytes, 1 word
    ],
)
def test_short_prompt_skip(prompt: str, checked: bool) -> None:
    assert is_repeated_prompt([prompt], prompt, 0) is checked


def test_normalisation_case_and_whitespace() -> None:
    assert is_repeated_prompt(["How do I   configure\tthe ROUTER rules "], Q, 0)


def test_user_to_label_is_stripped() -> None:
    assert is_repeated_prompt([f"[user to llama] {Q}"], Q, 0)
    assert is_repeated_prompt([f"[user to claude] {Q.upper()}"], Q, 0)


def test_label_only_at_the_start() -> None:
    assert not is_repeated_prompt([f"see [user to llama] {Q}"], Q, 0)


def test_baseline_skips_the_first_user_turns() -> None:
    assert not is_repeated_prompt([Q], Q, 1)
    assert is_repeated_prompt([Q, "something else entirely", Q], Q, 1)
    assert not is_repeated_prompt(["x y z", Q], Q, 5)


def test_current_prompt_left_in_history_fires() -> None:
    """Why the dispatcher must pass answered turns only: the pending prompt scores 1.0."""
    assert is_repeated_prompt(["an unrelated first question", Q], Q, 0)
    assert not is_repeated_prompt(["an unrelated first question"], Q, 0)


def test_empty_history() -> None:
    assert not is_repeated_prompt([], Q, 0)
