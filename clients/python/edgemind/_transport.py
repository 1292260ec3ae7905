"""How every call of a client is sent: retries of 429 and 503, the bookmark, timeouts."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

from edgemind._version import __version__
from edgemind.errors import EdgemindError, error_of, retry_after_seconds

#: The header in which the service hands back, and takes, a client's bookmark of one mind.
BOOKMARK_HEADER = "X-Edgemind-Bookmark"

RETRIED_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class Retry:
    """Retries of answers 429 and 503 that carry Retry-After (the service refused them before writing anything)."""

    #: Tries in all, the first included.
    attempts: int = 3
    #: The longest Retry-After waited out; a longer one fails at once.
    max_wait_seconds: float = 30.0


@dataclass(frozen=True)
class Answer:
    """A successful answer: its status, headers (names in lower case) and body."""

    status: int
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8")) if self.body else None

    def text(self) -> str:
        return self.body.decode("utf-8")


Query = Mapping[str, Union[str, int, float, bool, None]]


class Transport:
    """Sends the calls of one client: one key, one base URL, the bookmark of each mind it wrote to.

    Waits out 429 and 503 answers within a bound, and carries the bookmark each answer hands back
    to the next call in the same mind, so the client reads its own writes from any replica.
    """

    def __init__(
        self,
        url: str,
        key: str,
        mind_id: Optional[str] = None,
        timeout: float = 30.0,
        retry: Union[Retry, bool] = True,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = url.rstrip("/")
        self.mind_id = mind_id
        self.timeout = timeout
        chosen = Retry() if retry is True else retry
        self.attempts = 1 if chosen is False else max(1, int(chosen.attempts))
        self.max_wait_seconds = 0.0 if chosen is False else chosen.max_wait_seconds
        self.sleep = sleep
        self._headers = {"Authorization": f"Bearer {key}", "User-Agent": f"edgemind-python/{__version__}"}
        if mind_id:
            self._headers["X-Mind-Id"] = mind_id
        self._lock = threading.Lock()
        self._bookmarks: Dict[str, str] = {}
        self._latest: Optional[str] = None

    def bookmark(self, mind_id: Optional[str] = None) -> Optional[str]:
        """The last bookmark an answer handed back for a mind (for any mind when none is named)."""
        with self._lock:
            return self._latest if mind_id is None else self._bookmarks.get(mind_id)

    def request(
        self,
        method: str,
        path: str,
        query: Optional[Query] = None,
        json_body: Any = None,
        data: Optional[bytes] = None,
        content_type: Optional[str] = None,
    ) -> Answer:
        """Sends one call, retried within the bound; a failure raises EdgemindError."""
        headers = dict(self._headers)
        bookmark = self.bookmark(self.mind_id)
        if bookmark is not None:
            headers[BOOKMARK_HEADER] = bookmark
        if json_body is not None:
            data = json.dumps(json_body, ensure_ascii=False).encode("utf-8")
            content_type = "application/json"
        if content_type is not None:
            headers["Content-Type"] = content_type
        url = self.base_url + path + _query_string(query)
        attempt = 1
        while True:
            status, answer_headers, body = self._send(method, url, headers, data)
            self._keep(answer_headers.get(BOOKMARK_HEADER.lower()))
            if 200 <= status < 300:
                return Answer(status, answer_headers, body)
            wait = retry_after_seconds(answer_headers.get("retry-after")) if status in RETRIED_STATUSES else None
            if attempt >= self.attempts or wait is None or wait > self.max_wait_seconds:
                raise error_of(status, answer_headers, body)
            self.sleep(wait)
            attempt += 1

    def _send(self, method: str, url: str, headers: Dict[str, str], data: Optional[bytes]) -> Tuple[int, Dict[str, str], bytes]:
        """One exchange: the status, the headers (names in lower case) and the body; no answer raises."""
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, _lower(response.headers), response.read()
        except urllib.error.HTTPError as failed:
            with failed:
                return failed.code, _lower(failed.headers), failed.read()
        except (socket.timeout, TimeoutError) as late:
            raise EdgemindError(0, "timeout", f"{method} {url}: no answer within {self.timeout} s") from late
        except urllib.error.URLError as unreachable:
            if isinstance(unreachable.reason, (socket.timeout, TimeoutError)):
                raise EdgemindError(0, "timeout", f"{method} {url}: no answer within {self.timeout} s") from unreachable
            raise EdgemindError(0, "unreachable", f"{method} {url}: {unreachable.reason}") from unreachable

    def _keep(self, bookmark: Optional[str]) -> None:
        mind_id = bookmark.split(":")[0] if bookmark else ""
        if not bookmark or not mind_id:
            return
        with self._lock:
            self._bookmarks[mind_id] = bookmark
            self._latest = bookmark


def _lower(headers: Message) -> Dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def _query_string(query: Optional[Query]) -> str:
    """`?a=1&b=true` of the values given; None means not given."""
    if not query:
        return ""
    pairs = [(name, _query_value(value)) for name, value in query.items() if value is not None]
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def _query_value(value: Union[str, int, float, bool]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def segment(value: Union[str, int]) -> str:
    """A path segment, escaped."""
    return urllib.parse.quote(str(value), safe="")
