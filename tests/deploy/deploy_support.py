"""Helpers of the deploy tests: the compose CLI, a stack under its own project name, waiting for states."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests
from support import ROOT, poll_http

SERVICES = ("es", "setup", "indexer", "webapp", "redis", "proxy")
LONG_RUNNING = ("es", "webapp", "redis", "proxy")
# Requests per client address and minute in the test stack: far above what the tests send from the host,
# and reached in seconds by test_web_tier.py's burst from inside the proxy (another client address).
RATE_LIMIT = 1200
OUTER_PROXY = "127.0.0.1"  # PAPERSEARCH_OUTER_PROXIES of the test stack: the proxy container's loopback
REPLICAS = 2  # of the webapp: docker-compose.yml's default (WEB_REPLICAS)
ONE_SHOTS = ("setup", "indexer")


def run(args: list[str], timeout: float = 300, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout, **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {proc.returncode}:\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


@dataclass
class Stack:
    project: str
    env_file: Path
    compose: list[str]
    passwords: dict[str, str]
    web: str  # http://127.0.0.1:<published webapp port>
    es: str  # http://127.0.0.1:<published Elasticsearch port>
    files: list[str] = field(default_factory=lambda: ["docker-compose.yml"])

    def __call__(self, *args: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess:
        files = [a for f in self.files for a in ("-f", f)]
        return run([*self.compose, "-p", self.project, "--env-file", str(self.env_file), *files, *args],
                   timeout=timeout, check=check)

    def up(self, timeout: float = 600) -> None:
        """Until every long-running container is healthy and the one-shots have exited (compose's --wait
        fails when the indexer exits, 0 or not, before the proxy is healthy)."""
        self("up", "-d", timeout=timeout + 60)
        self.wait_healthy(timeout=timeout)
        self.wait_one_shots(timeout)

    def wait_healthy(self, replicas: int = REPLICAS, timeout: float = 600) -> None:
        """Until every long-running service runs healthy, the webapp with `replicas` containers."""
        deadline = time.monotonic() + timeout
        while True:
            rows = [r for r in self.rows() if r["Service"] in LONG_RUNNING]
            counts = {s: sum(r["Service"] == s for r in rows) for s in LONG_RUNNING}
            if counts == {**dict.fromkeys(LONG_RUNNING, 1), "webapp": replicas} and \
                    all(r["State"] == "running" and r["Health"] == "healthy" for r in rows):
                return
            dead = [r for r in rows if r["State"] == "exited"]
            assert not dead and time.monotonic() < deadline, f"not healthy after {timeout} s: {rows}"
            time.sleep(2)

    def down(self, volumes: bool = True) -> None:
        self("down", *(["-v"] if volumes else []), "--remove-orphans", "--timeout", "30", check=False)

    def rows(self) -> list[dict]:
        """{Service, State, ExitCode, Health, Name, ID, …} of every container of the project."""
        out = self("ps", "-a", "--format", "json").stdout
        rows = [json.loads(line) for line in out.splitlines() if line.strip()]
        if len(rows) == 1 and isinstance(rows[0], list):
            rows = rows[0]
        return rows

    def containers(self) -> dict[str, dict]:
        """service → one of its containers (the webapp has several: `replicas`)."""
        return {row["Service"]: row for row in self.rows()}

    def replicas(self, service: str = "webapp") -> list[dict]:
        return sorted((row for row in self.rows() if row["Service"] == service), key=lambda row: row["Name"])

    def wait_one_shots(self, timeout: float = 600) -> dict[str, dict]:
        deadline = time.monotonic() + timeout
        while True:
            states = self.containers()
            if all(states.get(s, {}).get("State") == "exited" for s in ONE_SHOTS):
                return states
            assert time.monotonic() < deadline, f"one-shots still running after {timeout} s: {states}"
            time.sleep(2)

    def wait_ready(self, timeout: float = 300) -> None:
        """Until the webapp answers /readyz 200 through the published port."""
        last = poll_http(self.web + "/readyz", timeout, interval=2)
        assert last is None, f"webapp not ready after {timeout} s: {last}"

    def search(self, q: str, **params: str) -> dict:
        r = requests.get(self.web + "/api/search", params={"q": q, **params}, timeout=30)
        assert r.status_code == 200, r.text
        return r.json()

    def es_get(self, path: str, who: str = "ES_PASSWORD") -> requests.Response:
        user = {"ELASTIC_PASSWORD": "elastic", "ES_PASSWORD": "papersearch_indexer",
                "ES_WEB_PASSWORD": "papersearch_web"}[who]
        return requests.get(self.es + path, auth=(user, self.passwords[who]), timeout=30)
