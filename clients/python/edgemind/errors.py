"""The one error every failed call raises, and how it is read from an answer."""

from __future__ import annotations

import json
import math
import time
from email.utils import parsedate_to_datetime
from typing import Any, Dict, Mapping, Optional, cast


class EdgemindError(Exception):
    """A failed call: the HTTP status, the API's error code and message, and the request's id.

    ``status`` is 0 when no answer came (``code`` ``timeout`` or ``unreachable``). Codes are the
    API's: ``invalid_request``, ``unauthorized``, ``forbidden``, ``not_found``, ``conflict``,
    ``memory_changed``, ``payload_too_large``, ``rate_limited``, ``mind_moving``, ``not_configured``, …
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        #: The id the service's logs carry for this request (its X-Request-Id).
        self.request_id = request_id
        #: Seconds the service asked to wait before trying again (429, 503), or None.
        self.retry_after = retry_after

    def __str__(self) -> str:
        where = f", request {self.request_id}" if self.request_id else ""
        return f"{self.status} {self.code}: {self.message}{where}"

    def __repr__(self) -> str:
        return f"EdgemindError(status={self.status!r}, code={self.code!r}, message={self.message!r}, request_id={self.request_id!r})"


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds from a Retry-After header (seconds or an HTTP date), or None when it says nothing usable."""
    if value is None or value.strip() == "":
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = None
    if seconds is not None:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        at = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, float(math.ceil(at - (time.time() if now is None else now))))


def _error_field(body: bytes) -> Dict[str, Any]:
    """The `error` object of an API error body, or {} for any other body."""
    try:
        parsed: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}
    error: Any = cast(Dict[str, Any], parsed).get("error") if isinstance(parsed, dict) else None
    return cast(Dict[str, Any], error) if isinstance(error, dict) else {}


def error_of(status: int, headers: Mapping[str, str], body: bytes) -> EdgemindError:
    """The error a failed answer stands for, read from its body when it has the API's error shape.

    ``headers`` are named in lower case.
    """
    retry_after = retry_after_seconds(headers.get("retry-after"))
    header_id = headers.get("x-request-id")
    error = _error_field(body)
    code, message, request_id = error.get("code"), error.get("message"), error.get("requestId")
    if isinstance(code, str):
        return EdgemindError(
            status,
            code,
            message if isinstance(message, str) else code,
            request_id if isinstance(request_id, str) else header_id,
            retry_after,
        )
    text = body.decode("utf-8", "replace").strip()
    return EdgemindError(status, f"http_{status}", f"HTTP {status}" + (f": {text[:200]}" if text else ""), header_id, retry_after)
