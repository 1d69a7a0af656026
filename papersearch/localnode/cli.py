"""papersearch-node: start | stop | status | logs | reset the project's own Elasticsearch node."""

from __future__ import annotations

import argparse
import json
import sys

from papersearch.localnode.distribution import ProvisionError
from papersearch.localnode.java import JavaNotFound
from papersearch.localnode.node import LocalNode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="papersearch-node", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("start", help="provision if needed and start (reuses a running node)")
    sub.add_parser("stop", help="stop the node; data is kept")
    status = sub.add_parser("status", help="is it running, where, how healthy (exit 3 when stopped)")
    status.add_argument("--json", action="store_true")
    logs = sub.add_parser("logs", help="show the node's log")
    logs.add_argument("-n", "--lines", type=int, default=50)
    logs.add_argument("-f", "--follow", action="store_true")
    reset = sub.add_parser("reset", help="stop and wipe the node's data and logs")
    reset.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    args = parser.parse_args(argv)

    node = LocalNode()
    try:
        if args.command == "start":
            node.start()
        elif args.command == "stop":
            node.stop()
        elif args.command == "status":
            st = node.status()
            if args.json:
                print(json.dumps(st.__dict__))
            elif st.running:
                print(f"running  pid {st.pid}  {st.url}  Elasticsearch {st.version}  health {st.health}  "
                      f"plugins {', '.join(st.plugins or []) or '-'}")
            else:
                print("stopped")
            return 0 if st.running else 3
        elif args.command == "logs":
            return node.logs_command(args.lines, args.follow)
        elif args.command == "reset":
            if not args.yes and input(f"wipe all data under {node.home}? [y/N] ").strip().lower() != "y":
                print("aborted")
                return 1
            node.reset()
    except (ProvisionError, JavaNotFound) as exc:
        print(f"papersearch-node: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
