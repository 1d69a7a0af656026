"""The local node's life cycle — one node or a cluster of N on loopback: start (idempotent), stop,
status, reset; one node of a cluster can be stopped and started on its own (the failover tests)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import shutil
from pathlib import Path

from elasticsearch import Elasticsearch

from papersearch import credentials
from papersearch.paths import credentials_file
from provisioning.localnode import certs, distribution, plugin, readiness, realm, runtime_fit, topology
from provisioning.localnode.cluster_status import NodeStatus, describe
from provisioning.localnode.config import NodeConfig, world_traversable
from provisioning.localnode.distribution import ProvisionError, say
from provisioning.localnode.java import ensure_java, reachable_copy
from provisioning.localnode.process import NodeProcess, any_free_port, port_free
from provisioning.localnode.runas import NodeUser, tool_env


class LocalNode:
    """`nodes`: the cluster's size for start(); None keeps the recorded size (1 when none is)."""

    def __init__(self, cfg: NodeConfig | None = None, nodes: int | None = None) -> None:
        self.cfg = cfg or NodeConfig()
        self.home = self.cfg.resolved_home()
        self.es_home = self.home / f"elasticsearch-{self.cfg.version}"
        self.user = NodeUser(self.cfg.user)
        if nodes is not None and nodes < 1:
            raise ProvisionError("--nodes must be at least 1")
        self.size = nodes or len(self._state().get("nodes") or [None])
        self._lock_depth = 0

    # -- state and layout ----------------------------------------------------------------------
    def _state(self) -> dict:
        path = self.cfg.state_file()
        return json.loads(path.read_text()) if path.exists() else {}

    def _save_state(self, procs: list[NodeProcess], digest: str | None) -> None:
        path = self.cfg.state_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        host = self.cfg.host
        state = {
            **self._state(),
            # port and url: the first node, as before clusters existed; urls: every node.
            "port": procs[0].http_port, "url": procs[0].url(host), "urls": [p.url(host) for p in procs],
            "version": self.cfg.version, "home": str(self.home), "plugin": digest,
            "nodes": [{"name": p.name, "http_port": p.http_port, "transport_port": p.transport_port,
                       "data": str(p.data), "logs": str(p.logs)} for p in procs],
        }
        path.write_text(json.dumps(state, indent=2))

    def _cluster_dir(self) -> Path:
        return self.home / ("cluster" + (f"-{self.cfg.instance}" if self.cfg.instance else ""))

    def processes(self, size: int | None = None) -> list[NodeProcess]:
        """The nodes of a cluster of `size` (default: this one's), with their recorded ports."""
        size = size or self.size
        state = self._state()
        recorded = state.get("nodes") or ([{"http_port": state["port"]}] if "port" in state else [])
        if len(recorded) != size:
            recorded = []
        log_name = f"{self.cfg.cluster_name}.log"
        procs = []
        for number in range(1, size + 1):
            if size == 1 and not self.cfg.instance:  # the single node keeps the folders it always had
                conf, data, logs = self.es_home / "config", self.home / "data", self.home / "logs"
            else:
                base = self._cluster_dir() / f"node-{number}"
                conf, data, logs = base / "config", base / "data", base / "logs"
            ports = recorded[number - 1] if recorded else {}
            procs.append(NodeProcess(number, f"{self.cfg.cluster_name}-{number}", self.es_home, conf, data, logs,
                                     log_name, int(ports.get("http_port") or 0), ports.get("transport_port")))
        return procs

    def pid(self) -> int | None:
        """The first node's process."""
        return self.processes()[0].pid()

    def url(self) -> str:
        procs = self.processes()
        port = procs[0].http_port or self.cfg.port
        return f"http://{self.cfg.host}:{port}"

    def urls(self) -> list[str]:
        return [p.url(self.cfg.host) for p in self.processes() if p.http_port] or [self.url()]

    def admin_client(self, **kwargs) -> Elasticsearch:
        password = credentials.ensure()[credentials.ELASTIC]
        return Elasticsearch(self.urls(), basic_auth=(credentials.ELASTIC, password), **kwargs)

    @contextlib.contextmanager
    def _exclusive(self):
        """One start/stop at a time across processes (test sessions may call start() concurrently)."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        path = self.cfg.lock_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0
                fcntl.flock(handle, fcntl.LOCK_UN)

    # -- preparation ---------------------------------------------------------------------------
    def prepare(self) -> Path:
        """Everything short of starting: user, download, unpack, Java (the distribution fitted to it).
        Returns the Java home."""
        self.user.ensure()
        zip_path = distribution.download(self.cfg)
        self.home.mkdir(parents=True, exist_ok=True)
        if not (self.es_home / ".unpacked").exists():
            say(f"unpacking into {self.es_home}")
        distribution.unpack(zip_path, self.es_home)
        java = ensure_java(self.cfg.minimum_java)
        java = reachable_copy(java, self.home, not self.user.as_root or world_traversable(java.home))
        runtime_fit.fit(self.es_home, java)
        self.user.chown(self.home)
        return java.home

    def _choose_port(self, proc: NodeProcess | None = None, taken: set[int] | None = None) -> int:
        """The recorded port if free, else (first node) the configured one if free, else any free port."""
        proc = proc or self.processes()[0]
        taken = taken or set()
        if proc.number > 1 and not proc.http_port:  # a new cluster's further nodes: any free port
            return any_free_port(self.cfg.host, taken)
        wanted = proc.http_port or self.cfg.port
        if wanted not in taken and port_free(self.cfg.host, wanted):
            return wanted
        if proc.number == 1 and wanted != self.cfg.port and port_free(self.cfg.host, self.cfg.port):
            return self.cfg.port
        port = any_free_port(self.cfg.host, taken)
        say(f"port {wanted} is taken by another program; using free port {port} "
            f"(recorded in {self.cfg.state_file()})")
        return port

    def _configure(self, procs: list[NodeProcess], starting: list[NodeProcess], java_home: Path) -> None:
        """Ports, elasticsearch.yml, heap, security material for the nodes about to start."""
        env = tool_env(java_home, self.es_home / "config")
        realm.ensure(self.es_home, self.user, env)
        cluster = len(procs) > 1 or bool(self.cfg.instance)
        numbers = {p.number for p in starting}
        taken = {p.http_port for p in procs if p.number not in numbers}
        taken |= {p.transport_port for p in procs if p.transport_port}
        for proc in starting:
            proc.http_port = self._choose_port(proc, taken)
            taken.add(proc.http_port)
            if cluster and not (proc.transport_port and port_free(self.cfg.host, proc.transport_port)):
                proc.transport_port = any_free_port(self.cfg.host, taken)
            taken.add(proc.transport_port or 0)
        node_cert = certs.ensure(self.es_home, env) if cluster else None
        fresh = not any(p.data.exists() and any(p.data.iterdir()) for p in procs)
        repo = self.cfg.snapshots_dir()
        repo.mkdir(parents=True, exist_ok=True)
        if not repo.is_relative_to(self.home):
            self.user.chown(repo)
        for proc in starting:
            for folder in (proc.conf, proc.data, proc.logs):
                folder.mkdir(parents=True, exist_ok=True)
            if proc.conf != self.es_home / "config":
                shutil.copytree(self.es_home / "config", proc.conf, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("elasticsearch.yml", "jvm.options.d", realm.MARKER))
            if node_cert:
                certs.install(node_cert, proc.conf)
            seeds = [f"{self.cfg.host}:{p.transport_port}" for p in procs] if cluster else None
            settings = topology.node_settings(
                cluster_name=self.cfg.cluster_name, node_name=proc.name, host=self.cfg.host,
                http_port=proc.http_port, transport_port=proc.transport_port, data=proc.data, logs=proc.logs,
                repo=repo, seed_hosts=seeds,
                initial_masters=[p.name for p in procs] if cluster and fresh else None)
            settings["thread_pool.search.size"] = self.cfg.search_threads_for(len(procs))
            (proc.conf / "elasticsearch.yml").write_text(topology.render(settings))
            proc.write_jvm_options(self.cfg.heap_for(len(procs)))
        self.user.chown(self.home)

    # -- life cycle ----------------------------------------------------------------------------
    def start(self, only: int | None = None) -> NodeStatus:
        """Start every node (or node `only`), reusing running ones; returns when the cluster is ready."""
        with self._exclusive():
            return self._start(only)

    def _start(self, only: int | None) -> NodeStatus:
        self._leave_other_layout()
        procs = self.processes()
        if only is not None and not 1 <= only <= len(procs):
            raise ProvisionError(f"--node {only}: the cluster has nodes 1 to {len(procs)}")
        if only is not None and len(self._state().get("nodes") or []) != len(procs):
            raise ProvisionError(f"--node {only}: start the whole cluster first (papersearch-node start --nodes N)")
        wanted = [p for p in procs if only in (None, p.number)]
        for proc in wanted:
            if proc.pid() and not readiness.answers(proc.url(self.cfg.host)):
                try:  # still starting up, or just busy: give it time before deciding it hangs
                    readiness.wait_ready(self._running(procs), [proc], self.cfg.host, self.cfg.startup_timeout)
                except ProvisionError as exc:
                    say(f"{proc.name} (pid {proc.pid()}) does not answer ({exc}); restarting it")
                    self._stop_procs([proc])
        running = [p for p in procs if p.pid()]
        if running and self.cfg.install_plugin and plugin.is_stale(
                self.es_home, self.cfg.version, self.cfg.minimum_java, self._state().get("plugin")):
            say("the analysis plugin changed: restarting")
            self._stop_procs(running)
        starting = [p for p in wanted if not p.pid()]
        if not starting:
            say(f"{self._describe()} already running (pid {', '.join(str(p.pid()) for p in wanted)}) "
                f"at {', '.join(p.url(self.cfg.host) for p in wanted)}")
            for path in realm.refresh_roles([p.conf for p in procs]):
                say(f"roles updated in {path} (the node reloads them)")
            readiness.check_users(wanted, self.cfg.host)
            return self.status()
        java_home = self.prepare()
        digest = (plugin.install(self.es_home, self.cfg.version, self.cfg.minimum_java, self.user,
                                 tool_env(java_home, self.es_home / "config"))
                  if self.cfg.install_plugin else None)
        self._configure(procs, starting, java_home)
        heap = self.cfg.heap_for(len(procs))
        for proc in starting:
            say(f"starting {proc.name} (Elasticsearch {self.cfg.version}) on {proc.url(self.cfg.host)} "
                f"(heap {heap}, Java at {java_home})")
        launched = [(p, p.launch(self.user, tool_env(java_home, p.conf))) for p in starting]
        for proc, handle in launched:
            proc.finish_launch(handle)
        readiness.wait_ready(self._running(procs), starting, self.cfg.host, self.cfg.startup_timeout)
        # Only nodes that answered are recorded, so a failed start never sends every client to a dead port.
        self._save_state(procs, digest)
        readiness.check_users(starting, self.cfg.host)
        status = self.status()
        say(f"ready: {', '.join(p.url(self.cfg.host) for p in procs)} (Elasticsearch {status.version}, "
            f"{len(procs)} node{'s' if len(procs) > 1 else ''}, health {status.health})")
        say(f"credentials: {credentials_file()} (users elastic, {credentials.INDEXER}, {credentials.WEB})")
        return status

    @staticmethod
    def _running(procs: list[NodeProcess]) -> int:
        return sum(1 for p in procs if p.pid())

    def _describe(self) -> str:
        return "node" if self.size == 1 else f"cluster of {self.size} nodes"

    def _leave_other_layout(self) -> None:
        """Switching between one node and a cluster stops the other layout (its data is kept); a cluster
        does not shrink or grow in place (its voting configuration would not follow)."""
        recorded = len(self._state().get("nodes") or [None])
        if recorded == self.size:
            return
        if recorded > 1 and self.size > 1:
            raise ProvisionError(f"a cluster of {recorded} nodes is recorded; `papersearch-node reset` first "
                                 f"to make one of {self.size}")
        running = [p for p in self.processes(recorded) if p.pid()]
        if running:
            say(f"stopping the {recorded}-node layout first (its data is kept)")
            self._stop_procs(running)

    def stop(self, timeout: float = 60, only: int | None = None) -> bool:
        with self._exclusive():
            procs = [p for p in self.processes() if only in (None, p.number)]
            running = [p for p in procs if p.pid()]
            if not running:
                say(f"{self._describe() if only is None else f'node {only}'} is not running")
                return False
            say(f"stopping {', '.join(f'{p.name} (pid {p.pid()})' for p in running)}; data is kept")
            self._stop_procs(running, timeout)
            return True

    def _stop_procs(self, procs: list[NodeProcess], timeout: float = 60) -> None:
        signalled = [(p, p.terminate()) for p in procs]
        for proc, pid in signalled:
            if pid:
                proc.wait_gone(pid, timeout)

    def status(self) -> NodeStatus:
        return describe(self.processes(), self.cfg.host, self.url, lambda: self.admin_client(request_timeout=5))

    def reset(self) -> None:
        """Stop and wipe data, logs and state of every node (one node and cluster layouts alike); the
        download, unpacked distribution, certificates and credentials stay."""
        with self._exclusive():
            for size in {1, self.size}:
                self._stop_procs([p for p in self.processes(size) if p.pid()])
            wiped = [self.home / "data", self.home / "logs", self._cluster_dir()]
            if self.cfg.instance:
                wiped = wiped[2:]
            for path in wiped:
                shutil.rmtree(path, ignore_errors=True)
            self.cfg.state_file().unlink(missing_ok=True)
            say(f"wiped {', '.join(str(p) for p in wiped)}")
