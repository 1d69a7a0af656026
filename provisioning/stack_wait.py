"""Wait for the cluster, then run a command in this process (the Docker stack's one-shot indexer).

    python -m provisioning.stack_wait [--timeout SECONDS] -- COMMAND [ARG...]

Waits until the cluster of the settings (ES_URL, the indexer's identity: ES_USERNAME/ES_PASSWORD or
ES_API_KEY) answers yellow or green, then replaces itself with COMMAND. So a one-shot that compose
starts together with Elasticsearch (`docker compose restart`, a host reboot) waits instead of failing
with "Connection refused". Exit status: COMMAND's; 1 when the cluster did not answer in time.
"""

from __future__ import annotations

import argparse
import os
import sys

from papersearch.es import make_client
from papersearch.settings import Settings
from provisioning.stack_setup import SetupFailed, wait_for_cluster


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m provisioning.stack_wait", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait (default 300)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run once the cluster answers")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (… -- COMMAND [ARG...])")
    settings = Settings()
    try:
        status = wait_for_cluster(make_client("indexer", settings, max_retries=0), settings.url(), args.timeout,
                                  user=settings.es_username or "the indexer",
                                  rejected="check ES_USERNAME and ES_PASSWORD / ES_API_KEY")
    except SetupFailed as exc:
        print(f"stack_wait: FAILED: {exc}", file=sys.stderr)
        return 1
    print(f"stack_wait: cluster at {settings.url()} is {status}; running {' '.join(command)}", flush=True)
    os.execvp(command[0], command)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
