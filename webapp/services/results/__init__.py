"""Hits as the pages show them: Elasticsearch hits → Hit, escaped, with the highlights (hits.py) and TeX
formulas as sanitised MathML (math_html.py)."""
