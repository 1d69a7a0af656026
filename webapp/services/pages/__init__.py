"""The look-ups besides the results page: papers (papers.py, completion.py, concept_suggest.py), author and
topic pages (profiles.py with its requests in profile_queries.py, author_groups.py), and lists longer than a
page for exports and sitemaps (long_lists.py)."""
