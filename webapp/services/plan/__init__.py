"""The plan of a search, plain data with no Elasticsearch syntax: every decision, its rounds and what each
answer decides next (ladder.py), the requests it sends and what answers are read into (requests.py), the words
they carry (words.py), all of it in words (describe.py)."""
