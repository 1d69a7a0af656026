"""One Elasticsearch process of the local cluster: its folders and ports, finding, launching and
stopping it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from provisioning.localnode.distribution import ProvisionError
from provisioning.localnode.runas import NodeUser

MAIN_CLASS = b"org.elasticsearch.bootstrap.Elasticsearch"
# A JVM option that tells the processes of several nodes sharing one distribution apart.
MARKER_PROPERTY = "-Dpapersearch.node.conf="


@dataclass
class NodeProcess:
    number: int  # 1-based
    name: str
    es_home: Path
    conf: Path
    data: Path
    logs: Path
    log_name: str  # <cluster.name>.log
    http_port: int = 0
    transport_port: int | None = None
    pidfile: Path = field(init=False)

    def __post_init__(self) -> None:
        self.pidfile = self.logs / "node.pid"

    @property
    def log_file(self) -> Path:
        return self.logs / self.log_name

    def url(self, host: str) -> str:
        return f"http://{host}:{self.http_port}"

    def pid(self) -> int | None:
        try:
            pid = int(self.pidfile.read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError):
            return self._find_process()
        return pid if b"org.elasticsearch" in cmdline else self._find_process()

    def _find_process(self) -> int | None:
        """The oldest server process of this node, for when the pid file is gone (a start that lost a race
        for the data folder deletes it on exit)."""
        home_arg = f"-Des.path.home={self.es_home}".encode()
        mine = f"{MARKER_PROPERTY}{self.conf}".encode()
        legacy = self.conf == self.es_home / "config"  # a single node started before the marker existed
        found: list[tuple[int, int]] = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                args = (entry / "cmdline").read_bytes().split(b"\0")
                started = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[19])
            except (OSError, ValueError, IndexError):
                continue
            if home_arg not in args or not any(a.endswith(MAIN_CLASS) for a in args):
                continue
            marked = [a for a in args if a.startswith(MARKER_PROPERTY.encode())]
            if mine in marked or (legacy and not marked):
                found.append((started, int(entry.name)))
        return min(found)[1] if found else None

    def write_jvm_options(self, heap: str) -> None:
        folder = self.conf / "jvm.options.d"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "heap.options").write_text(f"-Xms{heap}\n-Xmx{heap}\n{MARKER_PROPERTY}{self.conf}\n")

    def launch(self, user: NodeUser, env: dict[str, str]) -> subprocess.Popen:
        """Start the daemon (bin/elasticsearch -d); wait for the returned process to learn the outcome."""
        out = open(self.logs / "startup.out", "w")  # noqa: SIM115 - closed by finish_launch
        proc = subprocess.Popen(
            user.wrap([str(self.es_home / "bin" / "elasticsearch"), "-d", "-p", str(self.pidfile)]),
            env=env, stdout=out, stderr=subprocess.STDOUT, cwd=self.logs,
            # Its own session: the daemon must not die with the starter's process group (a shell job,
            # a test run) when that group is signalled.
            start_new_session=True,
        )
        out.close()
        return proc

    def finish_launch(self, proc: subprocess.Popen) -> None:
        code = proc.wait()
        if code != 0:
            raise ProvisionError(f"{self.name} failed to start (exit {code}):\n{self.log_tail(30)}")

    def terminate(self) -> int | None:
        """SIGTERM (a clean shutdown); returns the pid signalled."""
        pid = self.pid()
        if pid:
            os.kill(pid, signal.SIGTERM)
        return pid

    def wait_gone(self, pid: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.3)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
            time.sleep(1)

    def log_tail(self, lines: int) -> str:
        return tail(self.log_file, lines) or tail(self.logs / "startup.out", lines)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def port_free(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def any_free_port(host: str, taken: set[int]) -> int:
    while True:
        with socket.socket() as s:
            s.bind((host, 0))
            port = s.getsockname()[1]
        if port not in taken:
            return port


def tail(path: Path, lines: int) -> str:
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
