"""The one way to Elasticsearch (access.py: client, time budget, the round sender) and its errors as the two
the controllers know (errors.py)."""
