"""gunicorn settings for the papersearch webapp.

    gunicorn -c config/gunicorn.conf.py          # serves webapp.wsgi:app on PAPERSEARCH_BIND

Each worker process imports the app itself (no preload), so each has its own Elasticsearch client and,
with the default PAPERSEARCH_RATE_LIMIT_STORAGE=memory://, its own rate-limit counts (webapp/headers_and_limits.py).
"""

import multiprocessing
import os
import shutil
import sys

# Read through the app's own settings: PAPERSEARCH_BIND also gives the default public address (the app's
# redirects and absolute URLs), and "off", "false", "0" mean the same here as in the app.
from papersearch.logs import formatter_config
from papersearch.settings import Settings
from webapp import server

_settings = Settings()

wsgi_app = "webapp.wsgi:app"
bind = _settings.bind

# 2×CPU+1 is gunicorn's rule of thumb; capped because each worker holds a client and connection pool.
workers = _settings.workers or min(2 * multiprocessing.cpu_count() + 1, 9)
# gunicorn's gevent worker (webapp/server.py): every connection a greenlet, so clients that trickle their
# request or never read their answer hold no thread; socket deadlines; 414 and 431 as the API's JSON error.
worker_class = "webapp.server.SiteWorker"
# Connections one worker holds at once (gunicorn's default); past it, new ones wait in the listen backlog.
worker_connections = 1000

timeout = 30  # the Elasticsearch timeout is 2 s, so a worker silent for 30 s is stuck: restart it
graceful_timeout = 20
keepalive = 5
# 414 and 431 (our JSON error) past these; why these values: webapp/server.py.
limit_request_line = server.LIMIT_REQUEST_LINE
limit_request_fields = server.LIMIT_REQUEST_FIELDS
limit_request_field_size = server.LIMIT_REQUEST_FIELD_SIZE
max_requests = 2000  # recycle workers now and then, jittered so they do not all restart together
max_requests_jitter = 200
preload_app = False
# No control socket: gunicorn's default, ~/.gunicorn/gunicorn.ctl, is one path for every instance a user starts,
# so `gunicornc` reached whichever started last (issue 45.11). Nothing here uses it; signals manage the server.
control_socket_disable = True

accesslog = "-"
errorlog = "-"
loglevel = _settings.log_level
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'
# Forwarded headers (X-Forwarded-Proto, X-Forwarded-For, Forwarded) are trusted in one place, the app, for as
# many proxies as PAPERSEARCH_TRUSTED_PROXIES says (webapp/headers_and_limits.py): gunicorn itself trusts them from no
# address. Its default, 127.0.0.1, let `X-Forwarded-Proto: https` from loopback make a request https although
# no proxy was trusted (DECISIONS.md D-116).
forwarded_allow_ips = ""

# --- per-address connections and the whole-request deadline (webapp/server.py; DECISIONS.md D-191, D-192) ------
# Each worker counts its own connections: one address may hold PAPERSEARCH_CONNECTIONS_PER_ADDRESS in every worker
# (keep it well under worker_connections). Behind trusted proxies there is no cap here: every connection comes from
# the proxy, which caps per client address itself (docker/haproxy.cfg).
server.SiteWorker.configured = server.limits(_settings)

# --- metrics and log lines (docs/operations.md "Metrics" and "Logs") -----------------------------------
# A second address that serves /metrics alone, to whoever reaches it (webapp/metrics.py; docs/operations.md).
if _settings.metrics and _settings.metrics_bind:
    bind = [bind, _settings.metrics_bind]

# prometheus_client's multiprocess mode: every worker keeps its values in files in this directory and
# /metrics adds them up. It must be in the environment before a worker imports prometheus_client; a
# directory given in PROMETHEUS_MULTIPROC_DIR is used (and emptied at start) as is, else one is made
# here and removed at exit.
_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or ""
_own_metrics_dir = False
if _settings.metrics and not _metrics_dir:
    import tempfile

    _metrics_dir = tempfile.mkdtemp(prefix="papersearch-metrics-")
    _own_metrics_dir = True
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_dir


# --- not root (issue 53.10, DECISIONS.md D-189) ------------------------------------------------------------
# Started as root, the workers run as the system user papersearch-web: in the master, before the first fork, their
# identity is handed over in the environment and their import paths made reachable (provisioning/webuser.py);
# each worker drops root right after its fork. Done by gunicorn's hooks, not on import (tests read this file).
_drop: list = []


def _not_root(server):
    from pathlib import Path

    from provisioning import webuser

    webuser.run_from_reachable_copy(sys.argv, before_exec=_forget_metrics_dir)  # returns unless it must
    drop = webuser.prepare(_settings)
    if drop is None:
        return
    _drop.append(drop)
    server.cfg.set("user", drop.uid)
    server.cfg.set("group", drop.gid)
    if _settings.metrics:  # the workers write their values there
        webuser.hand_over(Path(_metrics_dir), drop, "PROMETHEUS_MULTIPROC_DIR")


def _forget_metrics_dir():
    # gunicorn starts again (from a copy of a closed checkout): that run makes its own folder
    if _own_metrics_dir:
        shutil.rmtree(_metrics_dir, ignore_errors=True)
        os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)


def post_fork(server, worker):
    if _drop:
        from provisioning import webuser

        webuser.enter(_drop[0])


# --- end of the not-root block -----------------------------------------------------------------------------


def post_worker_init(worker):
    server.warm()  # the sentence encoder and CC-CEDICT before the worker serves (webapp/server.py)


def on_starting(server):
    _not_root(server)
    if _settings.metrics:  # values of an earlier run would be added to this one's
        os.makedirs(_metrics_dir, exist_ok=True)
        for name in os.listdir(_metrics_dir):
            if name.endswith(".db"):
                os.remove(os.path.join(_metrics_dir, name))


def child_exit(server, worker):
    if _settings.metrics:
        from webapp.metrics import archive_dead_worker

        archive_dead_worker(worker.pid, _metrics_dir)


def on_exit(server):
    if _own_metrics_dir:
        shutil.rmtree(_metrics_dir, ignore_errors=True)


if _settings.log_format == "json":
    # Replaces gunicorn's logging defaults section by section: its handlers use the formatter "generic";
    # its loggers must not also propagate to the root's handler (every line would appear twice).
    logconfig_dict = {
        "formatters": {"generic": formatter_config("json")},
        "loggers": {name: {"level": loglevel.upper(), "handlers": [handler], "propagate": False}
                    for name, handler in (("gunicorn.error", "error_console"), ("gunicorn.access", "console"))},
    }
