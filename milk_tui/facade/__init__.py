"""The application facade: the one API the TUI and the CLI use."""
