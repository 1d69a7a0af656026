"""Benchmarks (scripts, not tests): corpus generation, indexing, search, and the suite runner.

    .venv/bin/python -m bench.run --sizes 13033,100000 [--skip-search]

Everything here uses its own aliases (papersbench_*) and deletes its indices when done.
"""
