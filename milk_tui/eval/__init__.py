"""``milk-tui eval``: run scenarios through the configured agents, judge the answers and
report whether routing pays (docs/eval.md)."""
