"""Tools offered to HTTP agents: validated boxes and the primary's built-ins."""

from .box import CompositeToolBox, LocalToolBox, Tool, parse_arguments
from .builtin import BuiltinToolBox
from .schema import SchemaError, validate

__all__ = [
    "BuiltinToolBox",
    "CompositeToolBox",
    "LocalToolBox",
    "SchemaError",
    "Tool",
    "parse_arguments",
    "validate",
]
