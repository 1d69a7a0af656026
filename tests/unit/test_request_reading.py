"""webapp/request_reading.py: from the bytes received so far, whether a request is whole, still coming, or refused
(the worker of webapp/server.py hands it to a thread only when whole)."""

from __future__ import annotations

import pytest

from webapp.request_reading import MAX_BODY, MAX_HEAD, Progress, progress, without_expect

LINE = 8190
GET = b"GET /api/search?q=x HTTP/1.1\r\nHost: a\r\n\r\n"
POST = b"POST /api/events HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n"


@pytest.mark.parametrize(("data", "expected"), [
    (b"", Progress()),
    (GET[:-2], Progress()),  # the head is not over yet
    (GET, Progress(complete=True, head_done=True)),
    (GET + b"GET /next", Progress(complete=True, head_done=True)),  # pipelined: the first one is whole
    (POST, Progress(head_done=True)),
    (POST + b"1234", Progress(head_done=True)),
    (POST + b"12345", Progress(complete=True, head_done=True)),
    (POST.replace(b"Content-Length", b"content-length"), Progress(head_done=True)),
    (POST.replace(b"Host: a\r\n", b"Host: a\r\nExpect: 100-Continue\r\n"), Progress(head_done=True,
                                                                                    expects_continue=True)),
    (POST.replace(b": 5", b": 5x"), Progress(complete=True, head_done=True)),  # malformed: gunicorn answers 400
    (POST.replace(b"Content-Length: 5", b"Transfer-Encoding: chunked"), Progress(head_done=True, refuse=411)),
    (POST.replace(b": 5", f": {MAX_BODY + 1}".encode()), Progress(head_done=True, refuse=413)),
    (b"GET / HTTP/1.1\r\nX: " + b"a" * MAX_HEAD, Progress(refuse=431)),
    (b"GET /" + b"a" * (LINE + 10), Progress(complete=True)),  # an over-long line: gunicorn's JSON 414
])
def test_progress(data: bytes, expected: Progress) -> None:
    assert progress(data, LINE) == expected


def test_an_expectation_answered_is_taken_out_of_the_head():
    data = POST.replace(b"Host: a\r\n", b"Host: a\r\nExpect: 100-continue\r\n") + b"12"
    assert without_expect(data) == POST + b"12"
