"""Facets, one class per kind of config/index.json (kinds.py): their filters and aggregations in a request
(queries.py), their buckets read back (buckets.py), topic labels in both languages (labels.py)."""
