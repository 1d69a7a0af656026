"""Schemathesis, an independent checker: property-based requests generated from our own /api/openapi.json,
sent to the real stack (gunicorn with config/gunicorn.conf.py, the real node, the sample papers, the query log
on), with every check and every phase, the stateful one included (schemathesis.toml, schemathesis_hooks.py).
Any finding fails the test; its output names the failing request and the seed. The seed is new on every run
(printed; PAPERSEARCH_SCHEMATHESIS_SEED replays one), so each run explores other requests. Why these
settings — what it took to find the page-number overflow on the unfixed code — is in DECISIONS.md
D-079.

A scripted visitor searches on the page before the fuzzing starts: afterwards `papersearch-admin report` still
shows the visitor's searches as the top queries and the visitor's clicks only — the fuzzer's thousands of API
searches and forged beacons do not drown them.

To reproduce a finding against `make serve`:

    SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH=tests/integration .venv/bin/schemathesis \
        --config-file tests/integration/schemathesis.toml run http://127.0.0.1:8000/api/openapi.json \
        --url http://127.0.0.1:8000 --checks all --seed N --max-examples 40 --generation-database none
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families
from support import BIN, delete_alias_indices, gunicorn, visit

from indexer.querylog.report import Report, build
from papersearch.querylog_schema import DEFAULT_BASE, prepare_days

HERE = Path(__file__).resolve().parent
SEED = int(os.environ.get("PAPERSEARCH_SCHEMATHESIS_SEED") or random.SystemRandom().randrange(2**31))
MAX_EXAMPLES = int(os.environ.get("PAPERSEARCH_SCHEMATHESIS_EXAMPLES", "40"))  # per operation and phase
# The visitor's page searches (query → how often) and the position clicked after each.
VISITOR = {"graph neural networks": 4, "大语言模型": 3, "diffusion": 2}
CLICKS = [1, 2, 1, 3, 1, 1, 2, 1, 2]


@dataclass
class Fuzzed:
    command: list[str]
    run: subprocess.CompletedProcess
    log: str
    rejected_beacons: float
    page: Report
    everything: Report


def rejected(metrics: str) -> float:
    return sum(s.value for family in text_string_to_metric_families(metrics) for s in family.samples
               if s.name == "papersearch_events_rejected_total")


@pytest.fixture(scope="module")
def fuzzed(cluster, sample_alias, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    tmp = tmp_path_factory.mktemp("contract")
    log_base = f"{DEFAULT_BASE}-t{uuid.uuid4().hex[:8]}"
    prepare_days(cluster.client("admin"), log_base, ahead=1, template=False)  # the web user appends to days made
    try:
        with gunicorn(cluster, sample_alias, tmp / "gunicorn.log", workers=2, PAPERSEARCH_QUERY_LOG="on",
                      PAPERSEARCH_QUERY_LOG_INDEX=log_base) as (_, base):
            assert visit(base, VISITOR, CLICKS) == len(CLICKS)
            command = [str(BIN / "schemathesis"), "--no-color", "--config-file", str(HERE / "schemathesis.toml"),
                       "run", f"{base}/api/openapi.json", "--url", base, "--checks", "all", "--seed", str(SEED),
                       "--max-examples", str(MAX_EXAMPLES), "--workers", "2", "--request-timeout", "10",
                       "--generation-database", "none"]
            print("schemathesis:", " ".join(command))  # the seed, for replaying a finding
            env = os.environ | {"SCHEMATHESIS_HOOKS": "schemathesis_hooks", "PYTHONPATH": str(HERE)}
            run = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
            metrics = requests.get(f"{base}/metrics", timeout=10).text
        # gunicorn has stopped: every worker has sent what its query log held.
        admin = cluster.client("admin")
        admin.indices.refresh(index=f"{log_base}-*")
        reader = cluster.client("indexer")
        yield Fuzzed(command, run, (tmp / "gunicorn.log").read_text(), rejected(metrics),
                     build(reader, log_base, timedelta(hours=1), source="page"),
                     build(reader, log_base, timedelta(hours=1), source="all"))
    finally:
        delete_alias_indices(cluster.client("admin"), log_base)


def test_api_keeps_its_openapi_contract(fuzzed: Fuzzed):
    print(fuzzed.run.stdout[-3000:])
    assert fuzzed.run.returncode == 0, f"seed {SEED}\n{fuzzed.run.stdout[-30000:]}\n{fuzzed.run.stderr[-3000:]}"
    assert "Stateful" in fuzzed.run.stdout and "API Links" in fuzzed.run.stdout  # the stateful phase ran
    assert "Traceback" not in fuzzed.log, fuzzed.log[-5000:]


def test_after_the_fuzzing_the_report_still_shows_the_visitor(fuzzed: Fuzzed):
    """The fuzzer searched through the API many times and sent beacons of its own making; the report (page
    searches by default) shows the scripted visitor's searches and clicks, and nothing of the fuzzer's."""
    page, everything = fuzzed.page, fuzzed.everything
    assert everything.searches > page.searches + 100  # the fuzzer's searches are in the log…
    assert page.searches == sum(VISITOR.values())  # …but not in the page report
    assert [(row.query, row.searches) for row in page.top_queries] == list(VISITOR.items())
    assert page.top_zero_result_queries == []
    # The visitor's clicks, and only theirs: beacons the fuzzer made up were refused (and counted); those it
    # sent with the query ids of its own searches (the stateful phase's links) count under the API.
    assert page.clicks == len(CLICKS) and page.median_click_position == statistics.median(CLICKS)
    assert fuzzed.rejected_beacons > 0 and everything.clicks >= page.clicks
