"""A delivery's signature, checked as Standard Webhooks says (the specification's own example)."""

from __future__ import annotations

import unittest

from edgemind import verify_webhook

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
BODY = b'{"test": 2432232314}'
HEADERS = {
    "Webhook-Id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "Webhook-Timestamp": "1614265330",
    "Webhook-Signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
}


class VerifyWebhookTest(unittest.TestCase):
    def test_accepts_the_specifications_example(self) -> None:
        self.assertTrue(verify_webhook(SECRET, HEADERS, BODY, now=1614265330))

    def test_accepts_any_of_several_signatures(self) -> None:
        rotated = {**HEADERS, "Webhook-Signature": "v1,bm90IHRoaXMgb25l " + HEADERS["Webhook-Signature"]}
        self.assertTrue(verify_webhook(SECRET, rotated, BODY, now=1614265330))

    def test_refuses_a_changed_body_an_old_timestamp_and_another_secret(self) -> None:
        self.assertFalse(verify_webhook(SECRET, HEADERS, b'{"test": 2432232315}', now=1614265330))
        self.assertFalse(verify_webhook(SECRET, HEADERS, BODY, now=1614265330 + 301))
        self.assertFalse(verify_webhook("whsec_" + "A" * 32, HEADERS, BODY, now=1614265330))
        self.assertFalse(verify_webhook(SECRET, {**HEADERS, "Webhook-Timestamp": "soon"}, BODY, now=1614265330))


if __name__ == "__main__":
    unittest.main()
