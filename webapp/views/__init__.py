"""What pages need besides the data: URLs that carry the search state (links.py), facet values named in both
languages (facet_labels.py) and the labels of filter chips in the UI language (facets.py). JSON output is in
webapp/serializers/."""
