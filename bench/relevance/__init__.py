"""Search relevance evaluation: a hand-made query set over the shipped sample papers (queries.json),
run through the webapp's own SearchService and compared with a plain multi_match baseline.

    .venv/bin/python -m bench.relevance.evaluate [--profile auto|plugin|core] [--baseline]
"""
