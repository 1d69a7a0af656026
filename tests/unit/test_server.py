"""The webapp's own serving limits (webapp/server.py, issue 53.9): the per-address cap is the direct peer's and off
behind trusted proxies, config/gunicorn.conf.py hands the settings to the worker, and a request's receives share one
deadline from its first byte. (Against a real gunicorn: tests/integration/test_connection_limits.py.)"""

from __future__ import annotations

import runpy
import socket
from types import SimpleNamespace

import pytest
from deploy_files import ROOT

from papersearch.settings import Settings
from webapp import server


def test_the_cap_is_off_behind_trusted_proxies() -> None:
    assert server.limits(Settings()) == server.Limits(per_address=200, request_timeout=20.0)
    direct = Settings(PAPERSEARCH_CONNECTIONS_PER_ADDRESS=50, PAPERSEARCH_REQUEST_TIMEOUT=7)
    assert server.limits(direct) == server.Limits(per_address=50, request_timeout=7.0)
    # Behind a proxy every connection is the proxy's: a cap here would throttle it (the proxy caps per address).
    proxied = Settings(PAPERSEARCH_CONNECTIONS_PER_ADDRESS=50, PAPERSEARCH_TRUSTED_PROXIES=1)
    assert server.limits(proxied).per_address == 0


def test_gunicorn_conf_gives_the_worker_its_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERSEARCH_METRICS", "off")  # no metrics directory made by the config
    monkeypatch.setenv("PAPERSEARCH_CONNECTIONS_PER_ADDRESS", "33")
    monkeypatch.setenv("PAPERSEARCH_REQUEST_TIMEOUT", "9")
    monkeypatch.setattr(server.SiteWorker, "configured", None)  # restored afterwards
    runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))
    assert server.SiteWorker.configured == server.Limits(per_address=33, request_timeout=9.0)


def test_a_requests_receives_share_one_deadline() -> None:
    ours, peer = socket.socketpair()
    with ours, peer:
        ours.settimeout(server.IO_TIMEOUT)
        conn = server.TimedConnection(ours, 0.2)
        peer.sendall(b"P")
        assert conn.recv(10) == b"P"  # the request's first byte starts its clock
        request = SimpleNamespace(must_close=False)
        conn.serving(request)
        with pytest.raises(server.RequestDeadline):  # the app reading the body: 408, and the connection closes
            conn.recv(10)
        assert request.must_close and ours.gettimeout() == server.IO_TIMEOUT
        conn.served()
        peer.sendall(b"Q")
        assert conn.recv(10) == b"Q"  # the next request: a clock of its own
        with pytest.raises(TimeoutError):  # not for the app (a head, an unread body drained): closed quietly
            conn.recv(10)
        assert conn.fileno() == ours.fileno()  # everything else is the socket's
