"""papersearch-admin held at a point a fault test chooses: right after Elasticsearch has answered the build's
first bulk request, the process stops itself (SIGSTOP, as a suspended host would be) and goes on when the
test resumes it (SIGCONT). The test waits for that stopped state, puts its fault in place and resumes, so
the fault lands in the middle of the build whatever the machine's speed (DECISIONS.md D-130).

    python tests/integration/paused_admin.py ARGS…   (papersearch-admin's own arguments)

Nothing else changes: the same entry point, the same client, the same cluster; the pause is one wrapper
around the client's `bulk`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import psutil


def command(args: tuple[object, ...] | list[object]) -> list[str]:
    """The command line that runs papersearch-admin ARGS… paused after its first written chunk."""
    return [sys.executable, str(Path(__file__).resolve()), *(str(a) for a in args)]


def wait_paused(proc: subprocess.Popen, timeout: float = 120) -> psutil.Process:
    """The build once it has stopped itself after its first bulk request (its first chunk is in its new
    version); fails with its output when it ended instead."""
    from support import wait_for  # here: this file also runs as the admin itself, without tests/ on its path

    build = psutil.Process(proc.pid)
    wait_for(lambda: proc.poll() is not None or build.status() == psutil.STATUS_STOPPED, timeout,
             "the build's first chunk", interval=0.05)
    if proc.poll() is not None:
        out, err = proc.communicate()
        raise AssertionError(f"the build ended (exit {proc.returncode}) before its first chunk was written:\n"
                             f"{out or ''}{err or ''}")
    return build


def _stop_after_the_first_bulk() -> None:
    from elasticsearch import Elasticsearch

    bulk = Elasticsearch.bulk
    first = threading.Lock()  # taken once, never released: only the first answered bulk stops the process

    def bulk_then_stop(self: Elasticsearch, *args: object, **kwargs: object) -> object:
        answer = bulk(self, *args, **kwargs)
        if first.acquire(blocking=False):
            os.kill(os.getpid(), signal.SIGSTOP)  # every thread stops here, until SIGCONT
        return answer

    Elasticsearch.bulk = bulk_then_stop  # type: ignore[method-assign]


if __name__ == "__main__":
    _stop_after_the_first_bulk()
    from indexer.admin import main

    sys.exit(main())
