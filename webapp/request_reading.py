"""How far a request that is still arriving has come: what webapp/server.py's worker needs to decide, from the
bytes received so far, whether to wait for more, hand the request to a thread, or refuse it.

Only the framing is looked at (the end of the head, Content-Length, Transfer-Encoding); everything else is left
to gunicorn's own parser, which gets these same bytes once the request is complete.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_HEAD = 64 * 1024  # bytes of request line and headers; gunicorn's own limits allow ~800 KB
MAX_BODY = 64 * 1024  # the largest body any route takes is a 2 KB beacon
END_OF_HEAD = b"\r\n\r\n"
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


@dataclass(frozen=True)
class Progress:
    complete: bool = False  # the whole request (head and body) is here: a thread may take it
    head_done: bool = False  # the head is here (the body's own deadline starts)
    refuse: int | None = None  # answer this status and close instead
    expects_continue: bool = False  # the client waits for "100 Continue" before it sends the body


def progress(data: bytes, line_limit: int) -> Progress:
    """What the bytes received so far (one request, possibly followed by the next) amount to."""
    end = data.find(END_OF_HEAD)
    if end < 0:
        if data.find(b"\r\n", 0, line_limit + 2) < 0 and len(data) > line_limit + 2:
            return Progress(complete=True)  # an over-long request line: gunicorn's parser answers it (414)
        return Progress(refuse=431) if len(data) > MAX_HEAD else Progress()
    if end > MAX_HEAD:
        return Progress(refuse=431)
    length, expects = 0, False
    for line in data[:end].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name, value = name.strip().lower(), value.strip()
        if name == b"transfer-encoding":
            return Progress(head_done=True, refuse=411)  # no route takes a body of unknown length
        if name == b"content-length":
            if not value.isdigit():
                return Progress(complete=True, head_done=True)  # malformed: gunicorn's parser refuses it (400)
            length = max(length, int(value))
        elif name == b"expect" and value.lower() == b"100-continue":
            expects = True
    if length > MAX_BODY:
        return Progress(head_done=True, refuse=413)
    received = len(data) - end - len(END_OF_HEAD)
    return Progress(complete=received >= length, head_done=True, expects_continue=expects and received < length)


def without_expect(data: bytes) -> bytes:
    """The request with its `Expect: 100-continue` removed, once the worker has answered it itself (so that
    gunicorn does not send a second "100 Continue" after the body has come)."""
    end = data.find(END_OF_HEAD)
    lines = data[:end].split(b"\r\n")
    kept = [lines[0]] + [line for line in lines[1:] if line.partition(b":")[0].strip().lower() != b"expect"]
    return b"\r\n".join(kept) + data[end:]
