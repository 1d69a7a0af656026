"""A plan's requests → the Elasticsearch bodies they are sent as: the one renderer (render.py) with the builders
only it calls (and the author and topic pages' requests): each clause of the query (clauses.py), the words
together with their concepts (text_query.py); the facets' filters and aggregations are webapp/services/facets/'s."""
