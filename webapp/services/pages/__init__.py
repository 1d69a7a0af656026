"""Pages built on the search service: author and topic pages (profiles.py with its requests in
profile_queries.py, author_groups.py), and lists longer than a page for exports and sitemaps (long_lists.py)."""
