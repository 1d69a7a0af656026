"""Facets: one class per kind of config/index.json (kinds.py), each writing its own filter and aggregation and
reading its own buckets, which bodies/facets.py and results/facets.py put together; the topic facet's Chinese
labels (labels.py)."""
