"""The one progress display of the admin's long commands (loading, backup, restore): bytes done on stderr, with
a rate and an ETA when the total is known (tqdm), or nothing at all when switched off (--no-progress, a pipe)."""

from __future__ import annotations

import sys
from typing import Any


class Progress:
    def __init__(self, desc: str, enabled: bool = True, total: int = 0) -> None:
        self.bar: Any = None
        if enabled:
            from tqdm import tqdm  # imported only when shown: the admin's start-up stays short

            self.bar = tqdm(total=total, unit="B", unit_scale=True, desc=desc, file=sys.stderr, dynamic_ncols=True,
                            mininterval=0.5)

    def show(self, done: int, total: int | None = None, **counts: object) -> None:
        """`done` bytes of `total` (None: as set before), with counts beside them; never moves backwards (two
        bulk threads may report out of order)."""
        if self.bar is None:
            return
        if total is not None:
            self.bar.total = total
        if counts:
            self.bar.set_postfix(counts, refresh=False)
        if done > self.bar.n:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def size_text(num: int) -> str:
    """A byte count as people read it (3.50GB), in the units the progress display uses."""
    from tqdm import tqdm

    return tqdm.format_sizeof(num, "B")
