"""What `papersearch-node status` reports: every node's process, the elected master, health, the
plugins, and where the shards of the live index are."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from elasticsearch import Elasticsearch

from papersearch.settings import get_settings
from provisioning.localnode.process import NodeProcess


@dataclass
class NodeStatus:
    running: bool
    url: str | None
    pid: int | None
    health: str | None = None
    version: str | None = None
    plugins: list[str] | None = None
    # A cluster: every node (name, number, pid, url, roles, master), the elected master, and where the
    # shards of the live index are.
    nodes: list[dict] = field(default_factory=list)
    master: str | None = None
    live_index: str | None = None
    shards: list[dict] = field(default_factory=list)


def describe(procs: list[NodeProcess], host: str, url: Callable[[], str],
             connect: Callable[[], Elasticsearch]) -> NodeStatus:
    """The status of the nodes `procs` on `host`. `url` (the first node's) and `connect` (an admin client)
    are asked only once a node runs: connecting reads the credentials. The node passes these in, so this
    module needs nothing of node.py (which imports it)."""
    rows = [{"number": p.number, "name": p.name, "pid": p.pid(), "url": p.url(host) if p.http_port else None}
            for p in procs]
    up = [r for r in rows if r["pid"]]
    if not up:
        return NodeStatus(running=False, url=None, pid=None, nodes=rows)
    status = NodeStatus(running=True, url=url(), pid=rows[0]["pid"], nodes=rows)
    if not any(r["url"] for r in up):  # ports are recorded once the nodes answer
        status.url, status.health = None, "starting"
        return status
    try:
        client = connect()
        status.health = client.cluster.health()["status"]
        info = client.nodes.info(node_id="_local")["nodes"]
        status.version = next(iter(info.values()))["version"]
        status.plugins = sorted({p["component"] for p in client.cat.plugins(format="json")})
        joined = {n["name"]: n for n in client.cat.nodes(format="json", h="name,node.role,master")}
        for row in rows:
            member = joined.get(row["name"])
            row["roles"] = member["node.role"] if member else None
            row["master"] = bool(member and member["master"] == "*")
        status.master = next((name for name, n in joined.items() if n["master"] == "*"), None)
        alias = get_settings().alias
        aliases = client.options(ignore_status=404).indices.get_alias(name=alias)
        status.live_index = next(iter(aliases), None) if aliases.meta.status == 200 else None
        if status.live_index:
            status.shards = [
                {"shard": int(s["shard"]), "primary": s["prirep"] == "p", "state": s["state"], "node": s["node"]}
                for s in client.cat.shards(index=status.live_index, format="json", h="shard,prirep,state,node")
            ]
    except Exception as exc:
        status.health = f"unreachable ({type(exc).__name__})"
    return status


def lines(status: NodeStatus) -> list[str]:
    """Human-readable status; the first line as before clusters existed."""
    if not status.running:
        return ["stopped"]
    out = [f"running  pid {status.pid}  {status.url}  Elasticsearch {status.version}  health {status.health}  "
           f"plugins {', '.join(status.plugins or []) or '-'}"]
    if len(status.nodes) > 1:
        out.append(f"elected master: {status.master or '(none)'}")
        for row in status.nodes:
            where = f"pid {row['pid']}  {row['url']}  roles {row.get('roles') or '-'}" if row["pid"] else "STOPPED"
            out.append(f"  node {row['number']}  {row['name']}{'  *master' if row.get('master') else ''}  {where}")
    if status.live_index:
        out.append(f"live index {status.live_index}:")
        for s in status.shards:
            out.append(f"  shard {s['shard']} {'primary' if s['primary'] else 'replica'}  {s['state']}  "
                       f"{s['node'] or '-'}")
    return out
