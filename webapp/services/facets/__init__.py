"""Facets: one class per kind (kind.py says what each answers; topics.py, terms.py, numbers.py), each owning its
filter, its aggregation and its reading of the answer, built from config/index.json's facets (plain data); faceted.py
composes them for a request (the post_filter, the aggregations, the known values) and reads the answer back."""
