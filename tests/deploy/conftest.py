"""The Docker stack end to end (marker `deploy`): images from package mirrors, `docker compose up`, checks.

The session fixture makes sure a Docker engine answers and Compose v2 is there (scripts/docker-engine.sh,
scripts/compose-v2.sh), builds every image from Debian, PyPI and Maven mirrors (scripts/build-images.sh;
cached layers make a second run take seconds), and brings the stack up under its own compose project
name with random secrets and free loopback ports. Everything it started is removed by that name at the
end: containers, the network and the volumes. Traffic goes only to 127.0.0.1 (the published ports)
and into the containers it started (`docker compose exec`).
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from deploy_support import OUTER_PROXY, RATE_LIMIT, Stack, run
from support import ROOT, compose_binary, free_port


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(item.fspath).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.deploy)


@pytest.fixture(scope="session")
def images(tmp_path_factory: pytest.TempPathFactory) -> float:
    """Builds (or finds cached) every image; the seconds it took, printed."""
    run([str(ROOT / "scripts" / "docker-engine.sh")], timeout=900)
    started = time.monotonic()
    proc = run([str(ROOT / "scripts" / "build-images.sh")], timeout=3600, check=False)
    took = time.monotonic() - started
    assert proc.returncode == 0, f"scripts/build-images.sh failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    print(f"\n[deploy] images built or found cached in {took:.0f} s")
    return took


# Package scope: test_stack.py and test_web_tier.py share one stack, down again before the rest of the suite.
@pytest.fixture(scope="package")
def stack(images: float, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env_file = tmp_path_factory.mktemp("deploy") / "stack.env"
    passwords = {name: secrets.token_urlsafe(18) for name in ("ELASTIC_PASSWORD", "ES_PASSWORD", "ES_WEB_PASSWORD")}
    web_port, es_port = free_port(), free_port()
    settings = {**passwords, "WEB_PORT": str(web_port), "ES_PORT": str(es_port), "ES_HEAP": "512m",
                "PAPERSEARCH_WORKERS": "2", "PAPERSEARCH_RATE_LIMIT": f"{RATE_LIMIT}/minute",
                # The proxy container's own loopback plays a trusted outer proxy (test_web_tier.py).
                "PAPERSEARCH_OUTER_PROXIES": OUTER_PROXY}
    env_file.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
    env_file.chmod(0o600)
    project = f"papersearch-deploytest-{uuid.uuid4().hex[:6]}"
    s = Stack(project=project, env_file=env_file, compose=compose_binary(), passwords=passwords,
              web=f"http://127.0.0.1:{web_port}", es=f"http://127.0.0.1:{es_port}")
    try:
        started = time.monotonic()
        s.up()
        print(f"\n[deploy] {project} up and healthy in {time.monotonic() - started:.0f} s")
        yield s
    finally:
        s.down()
        label = f"label=com.docker.compose.project={project}"
        left = run(["docker", "ps", "-a", "-q", "--filter", label]).stdout
        volumes = run(["docker", "volume", "ls", "-q", "--filter", label]).stdout
        assert not left.strip() and not volumes.strip(), f"{project} left containers {left!r} or volumes {volumes!r}"

