"""docker-compose.yml end to end, on images built from package mirrors alone (tests/deploy/conftest.py).

The tests run in this order on one stack: what it serves first, then reindex, restart, down + up, and last
the disaster drill (backup, the data volume removed, restore).
"""

from __future__ import annotations

import json
import subprocess
import time

import requests
from deploy_support import LONG_RUNNING, ONE_SHOTS, REPLICAS, SERVICES, Stack, run
from support import FIXTURES

ALIAS = "papers"
SAMPLE_COUNT = 40


def alias_target(stack: Stack) -> str:
    r = stack.es_get(f"/_alias/{ALIAS}")
    assert r.status_code == 200, r.text
    (index,) = r.json()
    return index


def count(stack: Stack) -> int:
    r = stack.es_get(f"/{ALIAS}/_count")
    assert r.status_code == 200, r.text
    return r.json()["count"]


def assert_one_shots_exited_0(stack: Stack) -> None:
    states = stack.wait_one_shots()
    for name in ONE_SHOTS:
        assert states[name]["ExitCode"] == 0, (name, states[name], stack("logs", name).stdout[-3000:])


def test_every_service_is_healthy_and_the_one_shots_exited_0(stack: Stack) -> None:
    states = stack.containers()
    assert set(states) == set(SERVICES)
    for name in LONG_RUNNING:
        for row in stack.replicas(name):
            assert row["State"] == "running" and row["Health"] == "healthy", row
    assert len(stack.replicas("webapp")) == REPLICAS
    assert_one_shots_exited_0(stack)
    setup_log = stack("logs", "setup").stdout
    assert "file realm in /realm" in setup_log and "can log in" in setup_log, setup_log
    assert "signing secret /app/keys/secret-key: generated" in setup_log, setup_log
    webapp_log = stack("logs", "webapp").stdout
    assert "Control server error" not in webapp_log and "Permission denied" not in webapp_log, webapp_log


def test_the_sample_is_loaded_with_the_plugin_profile(stack: Stack) -> None:
    assert count(stack) == SAMPLE_COUNT
    meta = stack.es_get(f"/{ALIAS}/_mapping").json()
    (mapping,) = meta.values()
    assert mapping["mappings"]["_meta"]["analysis_profile"] == "plugin", mapping["mappings"].get("_meta")
    plugins = stack.es_get("/_cat/plugins?format=json", "ELASTIC_PASSWORD").json()
    assert {p["component"] for p in plugins} == {"papersearch-analysis"}


def test_api_search_returns_highlighted_hits_in_english_and_chinese(stack: Stack) -> None:
    english = stack.search("neural networks")
    assert english["total"] >= 3
    assert all("<mark>" in h["snippet_html"] for h in english["hits"][:3]), english["hits"][:3]
    chinese = stack.search("神经网络")  # the glossary's concept: English papers, highlighted
    assert chinese["total"] >= 3
    assert any("neural network" in form.casefold() for e in chinese["expansions"] for form in e["forms"]), \
        chinese["expansions"]
    assert "<mark>" in chinese["hits"][0]["snippet_html"]


def test_the_search_page_renders(stack: Stack) -> None:
    r = requests.get(stack.web + "/", params={"q": "reinforcement learning"}, timeout=30)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
    assert '<ol class="hits"' in r.text and "<mark>" in r.text
    assert "Content-Security-Policy" in r.headers


def test_readyz_and_metrics_behave_as_documented(stack: Stack) -> None:
    assert requests.get(stack.web + "/healthz", timeout=10).status_code == 200
    ready = requests.get(stack.web + "/readyz", timeout=10)
    assert ready.status_code == 200, ready.text
    # From the host the request reaches the proxy through Docker's NAT, from the bridge's gateway, and the proxy
    # names that address: not loopback, so refused (PAPERSEARCH_METRICS_ALLOW); a scraper beside the webapp
    # (here: inside its container) reads it.
    assert requests.get(stack.web + "/metrics", timeout=10).status_code == 404
    scrape = ("import urllib.request; r = urllib.request.urlopen('http://127.0.0.1:8000/metrics', timeout=10); "
              "print(r.headers['Content-Type']); print(r.read().decode())")
    inside = stack("exec", "-T", "webapp", "python3", "-c", scrape).stdout
    assert inside.startswith("text/plain"), inside[:500]
    assert 'papersearch_searches_total{source="api"}' in inside, inside[:2000]


def test_the_web_user_gets_403_on_every_write(stack: Stack) -> None:
    auth = ("papersearch_web", stack.passwords["ES_WEB_PASSWORD"])
    index = alias_target(stack)
    writes = [
        ("PUT", f"/{ALIAS}/_doc/intruder", {"title": "x"}),
        ("POST", f"/{index}/_doc", {"title": "x"}),
        ("POST", f"/{ALIAS}/_update/intruder", {"doc": {"title": "x"}}),
        ("DELETE", f"/{index}/_doc/anything", None),
        ("PUT", "/papers-intruder", None),
        ("DELETE", f"/{index}", None),
        ("POST", "/_aliases", {"actions": [{"remove": {"index": index, "alias": ALIAS}}]}),
        ("PUT", f"/{index}/_settings", {"index": {"number_of_replicas": 0}}),
        ("POST", f"/{index}/_close", None),
        ("PUT", "/_security/user/intruder", {"password": "intruder-password", "roles": ["superuser"]}),
    ]
    for method, path, body in writes:
        r = requests.request(method, stack.es + path, json=body, auth=auth, timeout=30)
        assert r.status_code == 403, (method, path, r.status_code, r.text[:300])
    bulk = requests.post(stack.es + "/_bulk", data='{"index":{"_index":"papers"}}\n{"title":"x"}\n', auth=auth,
                         headers={"Content-Type": "application/x-ndjson"}, timeout=30)
    assert bulk.status_code == 200 and all(i["index"]["status"] == 403 for i in bulk.json()["items"]), bulk.text
    assert count(stack) == SAMPLE_COUNT


def test_every_container_runs_as_a_non_root_user(stack: Stack) -> None:
    for service in LONG_RUNNING:
        uid = stack("exec", "-T", service, "id", "-u").stdout.strip()
        assert uid not in ("", "0"), (service, uid)
    for row in stack.rows():
        name = row["Name"]
        user = inspect(name)["Config"]["User"]
        assert user and user.split(":")[0] not in ("0", "root"), (name, user)


def inspect(name: str) -> dict:
    out = run(["docker", "inspect", name]).stdout
    return json.loads(out)[0]


def test_no_secret_in_any_image_layer_or_docker_inspect(stack: Stack) -> None:
    key = stack("exec", "-T", "webapp", "cat", "/app/keys/secret-key").stdout.strip()
    assert len(key) >= 32
    values = [v.encode() for v in [*stack.passwords.values(), key]]
    for row in stack.rows():
        text = run(["docker", "inspect", row["Name"]]).stdout.encode()
        assert not [v for v in values if v in text], f"a secret is in docker inspect {row['Name']}"
    images = sorted({row["Image"] for row in stack.rows()})
    assert len(images) == 4, images  # es, app, proxy, redis
    for image in images:
        meta = run(["docker", "image", "inspect", image]).stdout
        meta += run(["docker", "history", "--no-trunc", image]).stdout
        assert not [v for v in values if v in meta.encode()], f"a secret is in the metadata of {image}"
        with subprocess.Popen(["docker", "save", image], stdout=subprocess.PIPE) as save:
            assert save.stdout is not None
            tail = b""
            while chunk := save.stdout.read(1 << 20):
                window = tail + chunk
                assert not [v for v in values if v in window], f"a secret is in a layer of {image}"
                tail = window[-64:]
        assert save.returncode == 0


def test_reindex_of_a_mounted_file_swaps_the_alias(stack: Stack) -> None:
    before = alias_target(stack)
    source = FIXTURES / "crosslingual-papers.jsonl"
    papers = sum(1 for line in source.read_text(encoding="utf-8").splitlines() if line.strip())
    proc = stack("run", "--rm", "-T", "-v", f"{source}:/data/papers.jsonl:ro", "indexer",
                 "papersearch-admin", "reindex", "--no-progress", "/data/papers.jsonl", timeout=600)
    after = alias_target(stack)
    assert after != before, proc.stdout
    assert count(stack) == papers
    hits = stack.search("对比学习")["hits"]
    assert "zh-cl" in {h["id"] for h in hits} and any(h["id"].startswith("en-cl") for h in hits), hits
    # The one-shot container of `run --rm` is gone again.
    assert set(stack.containers()) == set(SERVICES) and len(stack.replicas()) == REPLICAS


def test_restart_keeps_the_data_and_leaves_the_one_shots_at_exit_0(stack: Stack) -> None:
    index = alias_target(stack)
    stack("restart", timeout=600)
    stack.wait_ready()
    assert_one_shots_exited_0(stack)
    assert alias_target(stack) == index and count(stack) > 0
    assert stack.containers()["es"]["Health"] in ("healthy", "starting")


def test_down_and_up_without_v_keep_the_data(stack: Stack) -> None:
    index = alias_target(stack)
    papers = count(stack)
    stack.down(volumes=False)
    assert not stack.containers()
    stack.up()
    stack.wait_ready()
    assert_one_shots_exited_0(stack)
    assert alias_target(stack) == index and count(stack) == papers, "the indexer must not reload the sample"
    assert f"alias {ALIAS} exists; nothing loaded (--if-missing)" in stack("logs", "indexer").stdout


def found(stack: Stack, queries: list[str], within: float = 60) -> dict[str, list[str]]:
    """Each query's papers; a node just started (or an index just restored) may be cold: a 503 with
    Retry-After is the site's documented answer then, so such a search is asked again."""
    out = {}
    for q in queries:
        deadline = time.monotonic() + within
        while (r := requests.get(stack.web + "/api/search", params={"q": q, "size": 50}, timeout=30)).status_code \
                == 503 and time.monotonic() < deadline:
            time.sleep(float(r.headers.get("Retry-After", "1")))
        assert r.status_code == 200, r.text
        out[q] = [h["id"] for h in r.json()["hits"]]
    return out


def test_disaster_drill_back_up_lose_the_data_volume_restore(stack: Stack) -> None:
    """docs/operations.md "Backups": the backup in the es-snapshots volume outlives the data volume."""
    queries = ["neural networks", "神经网络", "对比学习", "reinforcement learning"]
    before = found(stack, queries)
    index, papers = alias_target(stack), count(stack)
    made = stack("run", "--rm", "-T", "indexer", "papersearch-admin", "backup", "--no-progress", "--note", "drill")
    assert f"live {index} ({papers} papers)" in made.stdout, made.stdout

    stack.down(volumes=False)
    run(["docker", "volume", "rm", f"{stack.project}_es-data"])  # the disk is lost; the snapshots' is not
    stack.up()
    stack.wait_ready()
    assert alias_target(stack) != index and count(stack) == SAMPLE_COUNT  # the first start loaded the sample

    restored = stack("run", "--rm", "-T", "indexer", "papersearch-admin", "restore", "--yes", "--no-progress",
                     "--json")
    report = json.loads(restored.stdout)
    assert report["live"] == index == alias_target(stack) and report["papers"][index] == papers
    assert count(stack) == papers
    assert found(stack, queries) == before
