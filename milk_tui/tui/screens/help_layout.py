"""Two-column help rows whose descriptions wrap under themselves, not back to column 0."""

from __future__ import annotations

import re

from rich.console import Group
from rich.table import Table
from rich.text import Text

ROW = re.compile(r"^(\S.{0,38}?\S) {2,}(?=\S)")
"""``name  description``: a name of at most 40 cells, then two or more spaces (the padding
every help table uses).  Longer heads are prose, left as they are."""


def hanging_rows(text: Text) -> Group:
    """``text`` line by line; each ``name  description`` line becomes a two-column row."""
    lines: list[Text | Table] = []
    for line in text.split("\n", allow_blank=True):
        m = ROW.match(line.plain)
        if m is None:
            lines.append(line)
            continue
        head, body = line[: m.end()], line[m.end() :]
        row = Table.grid()
        row.add_column(width=head.cell_len, no_wrap=True)
        row.add_column(ratio=1)
        row.add_row(head, body)
        lines.append(row)
    return Group(*lines)
