"""Provision and run the project's own single Elasticsearch node (no Docker needed)."""
