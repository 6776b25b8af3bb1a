"""The application facade: the one door from the TUI and the CLI to everything below.

Import from the submodules (``application``, ``sessions``, ``facts``, ``views``,
``errors``): this package module stays empty so that naming a light one (``errors``) does
not load the engine before the TUI's first frame.
"""
