"""A mind's webhooks (a person's token: they are the owner's), and checking a delivery's signature."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import List, Mapping, Optional

from edgemind._arguments import body_of
from edgemind._minds import _mind_path
from edgemind._transport import Transport, segment
from edgemind.types import Webhook, WebhookAttempt, WebhookWithSecret


class WebhooksResource:
    """``client.webhooks``: where a mind's events go, their signing secrets and delivery log."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def _path(self, mind_id: Optional[str], webhook_id: Optional[str] = None) -> str:
        base = f"{_mind_path(self._t, mind_id)}/webhooks"
        return base if webhook_id is None else f"{base}/{segment(webhook_id)}"

    def create(self, url: str, *, types: Optional[List[str]] = None, mind_id: Optional[str] = None) -> WebhookWithSecret:
        """Subscribes ``url`` (https, a public address) to the mind's events; ``secret`` is in this answer only."""
        return self._t.request("POST", self._path(mind_id), None, body_of(dict(url=url, types=types))).json()

    def list(self, mind_id: Optional[str] = None) -> List[Webhook]:
        """The mind's webhooks, oldest first."""
        return self._t.request("GET", self._path(mind_id)).json()["webhooks"]

    def get(self, webhook_id: str, *, mind_id: Optional[str] = None) -> Webhook:
        return self._t.request("GET", self._path(mind_id, webhook_id)).json()

    def delete(self, webhook_id: str, *, mind_id: Optional[str] = None) -> None:
        """Deletes the webhook and its delivery log."""
        self._t.request("DELETE", self._path(mind_id, webhook_id))

    def rotate(self, webhook_id: str, *, grace_hours: Optional[int] = None, mind_id: Optional[str] = None) -> WebhookWithSecret:
        """A new signing secret (in this answer only); the old one still signs beside it for ``grace_hours`` (24)."""
        return self._t.request("POST", f"{self._path(mind_id, webhook_id)}/rotate", None, body_of(dict(grace_hours=grace_hours))).json()

    def enable(self, webhook_id: str, *, mind_id: Optional[str] = None) -> Webhook:
        """Turns on a webhook delivery disabled: it goes on from the event it stopped at."""
        return self._t.request("POST", f"{self._path(mind_id, webhook_id)}/enable").json()

    def attempts(self, webhook_id: str, *, mind_id: Optional[str] = None) -> List[WebhookAttempt]:
        """The delivery log: the last 100 attempts, newest first."""
        return self._t.request("GET", f"{self._path(mind_id, webhook_id)}/attempts").json()["attempts"]

    def replay(self, webhook_id: str, event_id: str, *, mind_id: Optional[str] = None) -> WebhookAttempt:
        """Sends one event to the webhook again, now."""
        return self._t.request("POST", f"{self._path(mind_id, webhook_id)}/replay", None, {"event_id": event_id}).json()


def verify_webhook(secret: str, headers: Mapping[str, str], body: bytes, *, tolerance_seconds: int = 300, now: Optional[float] = None) -> bool:
    """Whether a delivery is signed with ``secret`` (Standard Webhooks: ``v1,`` + base64 HMAC-SHA256 of
    ``id.timestamp.body``) and was sent within ``tolerance_seconds`` of now. ``headers`` are matched
    without regard to case; ``body`` is the request's body exactly as received."""
    lower = {name.lower(): value for name, value in headers.items()}
    webhook_id, timestamp = lower.get("webhook-id", ""), lower.get("webhook-timestamp", "")
    if not webhook_id or not timestamp.isdigit():
        return False
    if abs((time.time() if now is None else now) - int(timestamp)) > tolerance_seconds:
        return False
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    sent = [s[3:] for s in lower.get("webhook-signature", "").split(" ") if s.startswith("v1,")]
    return any(hmac.compare_digest(expected, s) for s in sent)
