"""Headless core. Nothing under here may import Textual (enforced by tests/test_layering.py)."""
