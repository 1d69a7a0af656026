"""The loading pipeline: sources (readers/) → validated papers (models.py, authors.py; rejects.py for the rest)
→ documents (documents.py) → bulk request bodies in chunks (prepare.py, the producer) → Elasticsearch
(loader.py, which keeps each paper's first-added date: added_dates.py)."""
