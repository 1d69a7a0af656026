"""The real corpora (../shared/corpora, or any files in the project's JSON Lines schema) behind the real-corpus
evaluation: reading them, the title-less copy, and loading them behind our own aliases with the real indexer.

Aliases are loaded with `papersearch-admin --alias NAME reindex FILE…` (exactly what an admin runs); an alias
that already holds exactly the corpus' papers is reused unless reload is asked for.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench.common import DATA_DIR, ROOT, VENV_BIN, log

EN_FILE = "ml-papers-iclr.jsonl.gz"  # English papers with titles (ICLR)
ZH_FILE = "csl-zh-dev.jsonl.gz"  # Chinese papers with keywords (CSL)
ALIAS_PREFIX = "papersbench_real_"  # the indexer's role covers papers*; everything we create starts with this
TITLE_FIELDS = ("title", "title_zh")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every record of a JSON Lines file (.gz or plain); a broken line stops with file:line and the reason."""
    opener = gzip.open if path.suffix == ".gz" else open
    out = []
    with opener(path, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from exc
            if not isinstance(record, dict) or not record.get("id"):
                raise ValueError(f"{path}:{number}: field id: every paper needs an id to be judged by")
            out.append(record)
    return out


def locate(corpora: Path | None, explicit: Path | None, name: str) -> Path | None:
    """The file to use for one corpus: the explicit path, else corpora/name; None (skip) when absent."""
    path = explicit or (corpora / name if corpora else None)
    if path is None:
        return None
    if not path.is_file():
        log(f"skipping {path}: not found")
        return None
    return path


def write_without_titles(src: Path, papers: Iterable[dict[str, Any]]) -> Path:
    """A copy of the corpus with empty titles (as listing pages come), cached under .local/bench/."""
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    dst = DATA_DIR / f"notitle-{src.name.removesuffix('.gz').removesuffix('.jsonl')}-{src.stat().st_size}.jsonl"
    if not dst.exists():
        tmp = dst.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            for paper in papers:
                f.write(json.dumps({k: v for k, v in paper.items() if k not in TITLE_FIELDS}, ensure_ascii=False))
                f.write("\n")
        tmp.replace(dst)
    return dst


def alias_count(alias: str) -> int | None:
    """Papers behind the alias, None when it does not exist."""
    from elasticsearch import NotFoundError

    from papersearch.es import make_client

    try:
        return make_client("indexer").count(index=alias).body["count"]
    except NotFoundError:
        return None


def ensure_loaded(alias: str, sources: list[Path], expected: int, profile: str, reload: bool = False) -> None:
    """Load sources behind alias with papersearch-admin unless it already holds `expected` papers."""
    if not alias.startswith(ALIAS_PREFIX):
        raise ValueError(f"refusing to load into {alias!r}: the evaluation only writes {ALIAS_PREFIX}* aliases")
    have = alias_count(alias)
    if have == expected and not reload:
        log(f"{alias}: {have} papers already loaded (--reload to rebuild)")
        return
    if have is not None and not reload:
        log(f"{alias} holds {have} papers, the corpus has {expected}: rebuilding")
    cmd = [str(VENV_BIN / "papersearch-admin"), "--alias", alias, "reindex", "--no-progress",
           *map(str, sources)]
    env = {**os.environ, "PAPERSEARCH_ANALYSIS_PROFILE": profile}
    log(f"loading {', '.join(s.name for s in sources)} into {alias} (profile {profile})")
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
        raise RuntimeError(f"papersearch-admin reindex into {alias} failed (exit {done.returncode})")
    have = alias_count(alias)
    if have != expected:
        raise RuntimeError(f"{alias} holds {have} papers after loading, the corpus has {expected}")


def heading(paper: dict[str, Any], width: int = 90) -> str:
    """What a result list would show for a paper: its title, else the start of its abstract."""
    text = (paper.get("title") or paper.get("title_zh") or paper.get("abstract") or paper.get("abstract_zh")
            or paper["id"])
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"
