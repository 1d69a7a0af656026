"""The one way to Elasticsearch (access.py: client, time budget, the round sender), its errors as the two the
controllers know (errors.py), and the shape of a query body (query.py)."""
