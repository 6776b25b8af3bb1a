"""Errors that cross layers: the UI catches them without importing the layer that raises."""

from __future__ import annotations


class StorageError(Exception):
    """A database problem, worded for the user (path and cause)."""


class CorruptDatabaseError(StorageError):
    """SQLite reported a damaged database file; the message says how to recover."""
