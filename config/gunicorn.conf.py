"""gunicorn settings for the papersearch webapp.

    gunicorn -c config/gunicorn.conf.py          # serves webapp.wsgi:app on PAPERSEARCH_BIND

Each worker process imports the app itself (no preload), so each has its own Elasticsearch client and,
with the default PAPERSEARCH_RATE_LIMIT_STORAGE=memory://, its own rate-limit counts (webapp/security.py).
"""

import multiprocessing
import os

wsgi_app = "webapp.wsgi:app"
bind = os.environ.get("PAPERSEARCH_BIND", "127.0.0.1:8000")

# 2×CPU+1 is gunicorn's rule of thumb; capped because each worker holds a client and connection pool.
workers = int(os.environ.get("PAPERSEARCH_WORKERS", min(2 * multiprocessing.cpu_count() + 1, 9)))
worker_class = "gthread"
threads = int(os.environ.get("PAPERSEARCH_THREADS", 4))

timeout = 30  # the Elasticsearch timeout is 2 s, so a worker silent for 30 s is stuck: restart it
graceful_timeout = 20
keepalive = 5
max_requests = 2000  # recycle workers now and then, jittered so they do not all restart together
max_requests_jitter = 200
preload_app = False

accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("PAPERSEARCH_LOG_LEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'
forwarded_allow_ips = os.environ.get("PAPERSEARCH_FORWARDED_ALLOW_IPS", "127.0.0.1")
