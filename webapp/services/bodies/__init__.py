"""A plan's requests → the Elasticsearch bodies they are sent as: the one renderer (render.py) with the clause
builders only it calls: each clause of the query (clauses.py), the words together with their concepts
(text_query.py)."""
