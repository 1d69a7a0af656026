"""The look-ups besides search, sent through the search service's Elasticsearch access: single and similar papers
(papers.py), title and author completions (completion.py), concept completions from the glossary
(concept_suggest.py)."""
