"""`python -m milk_tui.cli`: the same entry point as the `milk-tui` script."""

from milk_tui.cli import main

raise SystemExit(main())
