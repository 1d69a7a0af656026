"""WSGI entry point: gunicorn -c config/gunicorn.conf.py (which names webapp.wsgi:app)."""

from webapp import create_app

app = create_app()
