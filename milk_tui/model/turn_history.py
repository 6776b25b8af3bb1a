"""A session's turns with only the newest ones in memory: older ones are read on demand.

A session of 100,000 turns takes ~0.35 s to read whole, while a turn needs only the tail its
context budget holds and the screen only the turns it shows.  ``History`` is the session's
turn list: indexes, ``len`` and slices are over the WHOLE history (so turn positions, the
need's position and the escalation boundaries mean what they mean for a list), but only a
suffix is held; reaching before it reads the older turns from the store in pages
(``load_older``, given by storage) and keeps them.  Turns are only appended or dropped from
the end, so the suffix held stays the session's last rows.  A plain ``list`` is a whole
history too: everything that reads a history works on either.

It subclasses ``list`` so that it is one to every reader; the list's own storage is the
held suffix, which is why ``append``/``extend`` need no override (they add at the end).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, SupportsIndex, overload

if TYPE_CHECKING:
    from milk_tui.model.session import Turn

PAGE = 1000
"""Older turns read per trip to the store: one page of ~1,000 rows is a few ms."""

LoadOlder = Callable[[int], "list[Turn]"]
"""Given ``n``: the ``n`` turns (or fewer, at the start) just before the held suffix, oldest
first.  The store keeps its own position (the first held turn's row id)."""


OLDER_COUNTS = (
    "user",
    "primary_answers",
    "escalation_answers",
    "escalation_tagged",
    "last_primary_answer",
    "last_escalation_answer",
    "primary_since_escalation_answer",
)
"""What ``OlderCounts`` gives, each the store's answer to its own question:

* ``user``, ``primary_answers``, ``escalation_answers``: user turns, answers of each agent;
* ``escalation_tagged``: 1 when any of those turns is tagged escalation, else 0
  (``Session.escalation_ever_active``);
* ``last_primary_answer``, ``last_escalation_answer``: the index of the last answer of
  that agent (-1: none);
* ``primary_since_escalation_answer``: primary answers after ``last_escalation_answer``
  (all when -1)."""


class OlderCounts:
    """Counts over the turns a ``History`` did not hold when it was made, asked of the store
    one at a time when a reader first needs it (each an index seek or range, no turn's text
    read) and kept: a turn that only builds its context asks for none of the counts."""

    def __init__(self, ask: Callable[[str], int], key: int = 0) -> None:
        self._ask = ask
        self._got: dict[str, int] = {}
        self.key = key
        """The store's mark of where the counted turns end (its first held row id)."""

    def get(self, name: str) -> int:
        """One of ``OLDER_COUNTS``."""
        if name not in OLDER_COUNTS:
            raise KeyError(name)
        if name not in self._got:
            self._got[name] = self._ask(name)
        return self._got[name]


class History(list["Turn"]):
    def __init__(
        self,
        held: Iterable[Turn] = (),
        unloaded: int = 0,
        load_older: LoadOlder | None = None,
        count_older: Callable[[], OlderCounts] | None = None,
    ) -> None:
        super().__init__(held)
        self.unloaded = unloaded if load_older is not None else 0
        """Turns before the held suffix, not read yet."""
        self.base = self.unloaded if count_older is not None else 0
        """The turns ``count_older`` counts are ``self[:base]`` (0: no such counts)."""
        self._load_older = load_older
        self._count_older = count_older
        self._older: OlderCounts | None = None
        # The UI reads pages on the loop while a worker thread may reach the same history
        # (the agents being built): one reader at a time, or a page would go in twice.
        self._lock = threading.RLock()
        self.pages_read = 0
        """Trips to the store so far (tests and benchmarks look at it)."""

    # ----- paging -----------------------------------------------------------------------

    def _reach(self, index: int) -> None:
        """Hold every turn from absolute ``index`` on."""
        if not self.unloaded or index >= self.unloaded:
            return
        with self._lock:
            while self.unloaded and index < self.unloaded and self._load_older is not None:
                n = min(self.unloaded, max(PAGE, self.unloaded - index))
                older = self._load_older(n)
                self.pages_read += 1
                if not older:  # the store has fewer rows than counted (deleted meanwhile)
                    self._changed_before(0)
                    self.unloaded = 0
                    break
                super().__setitem__(slice(0, 0), older)
                self.unloaded -= len(older)

    def _changed_before(self, index: int) -> None:
        """Turns from absolute ``index`` on change: the store's counts no longer hold when
        that is among the turns they count (the history is counted here from then on)."""
        if index < self.base:
            self.base = 0
            self._older = None

    def load_all(self) -> None:
        self._reach(0)

    def older_counts(self) -> OlderCounts | None:
        """Counts over ``self[:base]`` without reading those turns (None: none to give)."""
        if not self.base or self._count_older is None or len(self) < self.base:
            return None
        if self._older is None:
            self._older = self._count_older()  # asks nothing yet: each count when first read
        return self._older

    def _abs(self, i: SupportsIndex) -> int:
        n = len(self)
        k = i.__index__()
        k = k + n if k < 0 else k
        if not 0 <= k < n:
            raise IndexError("history index out of range")
        return k

    def _held_slice(self, s: slice) -> slice:
        start, stop, step = s.indices(len(self))
        if step != 1:
            self.load_all()
            return slice(start, stop, step)
        self._reach(start if start < stop else stop)
        u = self.unloaded
        return slice(start - u, stop - u)

    # ----- the list, over the whole history ---------------------------------------------

    def __len__(self) -> int:
        return self.unloaded + super().__len__()

    def __bool__(self) -> bool:
        return len(self) > 0

    @overload
    def __getitem__(self, i: SupportsIndex) -> Turn: ...
    @overload
    def __getitem__(self, i: slice) -> list[Turn]: ...
    def __getitem__(self, i: SupportsIndex | slice) -> Turn | list[Turn]:
        if isinstance(i, slice):
            return list(super().__getitem__(self._held_slice(i)))
        k = self._abs(i)
        self._reach(k)
        return super().__getitem__(k - self.unloaded)

    @overload
    def __setitem__(self, i: SupportsIndex, v: Turn) -> None: ...
    @overload
    def __setitem__(self, i: slice, v: Iterable[Turn]) -> None: ...
    def __setitem__(self, i: SupportsIndex | slice, v: Any) -> None:
        if isinstance(i, slice):
            self._changed_before(min(i.indices(len(self))[:2]))
            super().__setitem__(self._held_slice(i), v)
            return
        k = self._abs(i)
        self._reach(k)
        self._changed_before(k)
        super().__setitem__(k - self.unloaded, v)

    def __delitem__(self, i: SupportsIndex | slice) -> None:
        if isinstance(i, slice):
            self._changed_before(min(i.indices(len(self))[:2]))
            super().__delitem__(self._held_slice(i))
            return
        k = self._abs(i)
        self._reach(k)
        self._changed_before(k)
        super().__delitem__(k - self.unloaded)

    def __iter__(self) -> Iterator[Turn]:
        self.load_all()  # a reader from the first turn on reads them all
        return super().__iter__()

    def __reversed__(self) -> Iterator[Turn]:
        # Newest first, paging older turns in only as far as the reader goes.
        for k in range(len(self) - 1, -1, -1):
            yield self[k]

    def __contains__(self, t: object) -> bool:
        return any(x == t for x in self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            self.load_all()
            if isinstance(other, History):  # list's own comparison reads only what is held
                other.load_all()
            return super().__eq__(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def _whole(self, other: object) -> Any:
        """``other`` as list's comparisons and concatenation may read it (their C code
        reads a list's held items, not through ``__iter__``)."""
        return list(other) if isinstance(other, History) else other

    def __lt__(self, other: object) -> bool:
        return list(self) < self._whole(other)

    def __le__(self, other: object) -> bool:
        return list(self) <= self._whole(other)

    def __gt__(self, other: object) -> bool:
        return list(self) > self._whole(other)

    def __ge__(self, other: object) -> bool:
        return list(self) >= self._whole(other)

    __hash__ = None  # mutable, as a list

    def __repr__(self) -> str:
        return f"History({self.unloaded} unread + {super().__len__()} held)"

    def copy(self) -> list[Turn]:
        return list(self)

    def insert(self, i: SupportsIndex, t: Turn) -> None:
        n = len(self)
        k = i.__index__()
        k = min(max(k + n if k < 0 else k, 0), n)  # as list.insert clamps
        self._reach(k)
        self._changed_before(k)
        super().insert(k - self.unloaded, t)

    def pop(self, i: SupportsIndex = -1) -> Turn:
        k = self._abs(i)
        self._reach(k)
        self._changed_before(k)
        return super().pop(k - self.unloaded)

    def index(self, t: Turn, start: SupportsIndex = 0, stop: SupportsIndex = 2**62) -> int:
        self.load_all()
        return super().index(t, start, stop)

    def count(self, t: Turn) -> int:
        self.load_all()
        return super().count(t)

    def remove(self, t: Turn) -> None:
        self.load_all()
        self._changed_before(0)
        super().remove(t)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self.load_all()
        self._changed_before(0)
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        self.load_all()
        self._changed_before(0)
        super().reverse()

    def __add__(self, other: list[Turn]) -> list[Turn]:  # type: ignore[override]  # list's own overloads
        return list(self) + list(other)

    def __radd__(self, other: list[Turn]) -> list[Turn]:
        return list(other) + list(self)

    def __mul__(self, n: SupportsIndex) -> list[Turn]:
        return list(self) * n

    __rmul__ = __mul__

    def __imul__(self, n: SupportsIndex) -> History:
        self.load_all()
        self._changed_before(0)
        super().__imul__(n)
        return self

    def clear(self) -> None:
        self._changed_before(0)
        self.unloaded = 0
        super().clear()

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        # A copy (deepcopy, pickle) is a plain, whole list: it does not share the store.
        return (list, (list(self),))
