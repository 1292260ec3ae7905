"""A tiny local HTTP server answering scripted responses in turn, and recording what it was sent."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple


@dataclass
class Scripted:
    """One answer: status, headers, body (a dict is sent as JSON), and a delay before it."""

    status: int = 200
    body: Any = None
    headers: Dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Received:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


class StubServer:
    """Answers each request with the next scripted answer (the last one again once they run out)."""

    def __init__(self, *answers: Scripted) -> None:
        self.answers: List[Scripted] = list(answers)
        self.received: List[Received] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                answer = stub._next(Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if answer.delay and stub._done.wait(answer.delay):
                    return  # stopped while waiting: the client gave up long ago
                data, content_type = _encoded(answer.body)
                self.send_response(answer.status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def _next(self, received: Received) -> Scripted:
        with self._lock:
            self.received.append(received)
            return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]

    def __enter__(self) -> "StubServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Optional[BaseException]) -> None:
        self._done.set()
        self._server.shutdown()
        self._server.server_close()


def _encoded(body: Any) -> Tuple[bytes, str]:
    if body is None:
        return b"", "text/plain"
    if isinstance(body, str):
        return body.encode("utf-8"), "text/plain; charset=utf-8"
    return json.dumps(body).encode("utf-8"), "application/json"
