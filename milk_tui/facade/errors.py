"""The errors a front end reports, importable without loading the engine."""

from milk_tui.config.errors import ConfigError
from milk_tui.model.errors import StorageError

__all__ = ["ConfigError", "StorageError"]
