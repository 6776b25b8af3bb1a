"""The one spinner of the app: the status line and running tool calls turn the same wheel."""

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
SPIN_S = 0.08
"""80 ms per frame: visibly alive without costing a repaint every frame."""
