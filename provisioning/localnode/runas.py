"""The node's operating-system user and the distribution's command-line tools run as that user.

Elasticsearch refuses to run as root, so when we are root the node and its tools run as a system
user (config/node.toml `user`, created here) that owns the node's folders.
"""

from __future__ import annotations

import os
import pwd
import subprocess
from pathlib import Path

from provisioning.localnode.distribution import say


class NodeUser:
    def __init__(self, name: str, why: str = "Elasticsearch refuses to run as root") -> None:
        self.name = name
        self.why = why
        self.as_root = os.geteuid() == 0

    def ensure(self) -> None:
        """Create the system user when we are root and it does not exist yet."""
        if not self.as_root:
            return
        try:
            pwd.getpwnam(self.name)
        except KeyError:
            say(f"creating system user {self.name} ({self.why})")
            made = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                                   self.name], capture_output=True, text=True)
            if made.returncode != 0:
                try:
                    pwd.getpwnam(self.name)  # made meanwhile by another start: fine
                except KeyError:
                    raise OSError(f"useradd {self.name} failed: {made.stderr.strip()}") from None

    def wrap(self, cmd: list[str]) -> list[str]:
        return ["runuser", "-u", self.name, "--", *cmd] if self.as_root else cmd

    def chown(self, path: Path) -> None:
        if self.as_root:
            subprocess.run(["chown", "-R", f"{self.name}:", str(path)], check=True)


def tool_env(java_home: Path, conf: Path) -> dict[str, str]:
    """Environment for bin/elasticsearch and its tools: our Java, one node's config folder."""
    return {**os.environ, "ES_JAVA_HOME": str(java_home), "ES_PATH_CONF": str(conf), "ES_JAVA_OPTS": ""}
