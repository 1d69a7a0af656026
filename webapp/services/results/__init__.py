"""What Elasticsearch answers, read back as the pages show it: hits → Hit, escaped, with the highlights (hits.py)
and TeX formulas as sanitised MathML (math_html.py); aggregation buckets → Facet (facets.py)."""
