"""What each slash command does, one module per group of commands.  Commands only talk to
the application facade; the screen shows the outcome.

Adding a command: list it in ``tui/commands.py`` (name, help, busy-safety), write its
``cmd_<name>`` in the group it belongs to (or a new ``SlashGroup`` module added to
``GROUPS`` in ``handler.py``).

Nothing is imported here: the main screen loads the groups (and the config and engine
modules some of them need) when the first command runs, not before its first frame."""
