"""The config's error, importable without the config models (the CLI names it before the
TUI's first frame; ``config/settings.py`` builds pydantic schemas when imported)."""


class ConfigError(Exception):
    """One message naming the file, the key and what was expected."""
