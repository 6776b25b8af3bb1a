"""Tools offered to HTTP agents: validated boxes and the primary's built-ins."""

from milk_tui.agents.tools.box import CompositeToolBox, LocalToolBox, Tool, parse_arguments
from milk_tui.agents.tools.builtin import BuiltinToolBox
from milk_tui.agents.tools.schema import SchemaError, validate

__all__ = [
    "BuiltinToolBox",
    "CompositeToolBox",
    "LocalToolBox",
    "SchemaError",
    "Tool",
    "parse_arguments",
    "validate",
]
