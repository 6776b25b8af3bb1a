"""The built-in eval suite: scenario files shipped as package data (milk_tui/eval/scenarios.py)."""
