"""One serializer module per output format: json.py for the API (and the autocomplete script). HTML is
rendered by the templates, with URL and label helpers from webapp/views/."""
