"""Plain typed data: sessions, turns, percepts, bus events and the tag grammar.

Nothing here imports any other part of milk_tui (an import-linter contract in
pyproject.toml keeps it so).
"""
