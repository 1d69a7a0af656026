"""What Elasticsearch answers, read back as the pages show it: hits → Hit, escaped, with the highlights (hits.py),
the topics' Chinese names (topic_labels.py) and TeX formulas as sanitised MathML (math_html.py). Facets read their
own buckets (webapp/services/facets/faceted.py)."""
