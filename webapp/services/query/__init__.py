"""What was typed, understood: the search box parsed (parser.py), the glossary concepts found in it
(expansion.py), an author's name → the indexed name keys of that person (author_names.py)."""
