"""Search relevance evaluation, against the webapp's own search and a plain multi_match baseline:

- the hand-made query set over the shipped sample papers (queries.json, evaluate.py)
      .venv/bin/python -m relevance.evaluate [--profile auto|plugin|core] [--baseline]
- the real corpora: the cross-lingual concept set (crosslingual.json) and generated known-item queries,
  through /api/search (real.py; results in RESULTS.md)
      .venv/bin/python -m relevance.real --corpora ../shared/corpora [--api URL]
"""
