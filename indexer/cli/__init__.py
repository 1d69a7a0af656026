"""What every papersearch-admin command shares once parsed: how it runs (runner.py), the exit codes, and a
refused request said in words (refusals.py). Light to import, like the parser (DECISIONS.md D-011)."""
