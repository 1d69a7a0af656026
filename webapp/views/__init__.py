"""What pages need besides the data: URLs that carry the search state (links.py) and the labels of
facets and filter chips in the UI language (facets.py). JSON output is in webapp/serializers/."""
