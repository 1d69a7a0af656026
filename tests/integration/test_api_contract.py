"""Schemathesis, an independent checker: property-based requests generated from our own /api/openapi.json,
sent to the real stack (gunicorn with config/gunicorn.conf.py, the real node, the sample papers), with
Schemathesis's standard checks (no server error, documented status codes and content types, response
schemas, valid data accepted, invalid data rejected; schemathesis.toml, schemathesis_hooks.py). Any
finding fails the test; its output names the failing request and the seed. To reproduce against
`make serve`:

    SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH=tests/integration .venv/bin/schemathesis \
        --config-file tests/integration/schemathesis.toml run http://127.0.0.1:8000/api/openapi.json \
        --url http://127.0.0.1:8000 --seed N --max-examples 40 --generation-database none
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from support import BIN, gunicorn

HERE = Path(__file__).resolve().parent
SEED = int(os.environ.get("PAPERSEARCH_SCHEMATHESIS_SEED", "20261130"))
MAX_EXAMPLES = int(os.environ.get("PAPERSEARCH_SCHEMATHESIS_EXAMPLES", "40"))  # per operation and phase


def test_api_keeps_its_openapi_contract(cluster, sample_alias, tmp_path):
    with gunicorn(cluster, sample_alias, tmp_path / "gunicorn.log", workers=2) as (_, base):
        command = [str(BIN / "schemathesis"), "--no-color", "--config-file", str(HERE / "schemathesis.toml"), "run",
                   f"{base}/api/openapi.json", "--url", base, "--seed", str(SEED), "--max-examples", str(MAX_EXAMPLES),
                   "--workers", "2", "--request-timeout", "10", "--generation-database", "none"]
        print("schemathesis:", " ".join(command))  # the seed, for reproducing a finding
        env = os.environ | {"SCHEMATHESIS_HOOKS": "schemathesis_hooks", "PYTHONPATH": str(HERE)}
        run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        log = (tmp_path / "gunicorn.log").read_text()
    print(run.stdout[-3000:])
    assert run.returncode == 0, f"seed {SEED}\n{run.stdout[-30000:]}\n{run.stderr[-3000:]}"
    assert "Traceback" not in log, log[-5000:]
