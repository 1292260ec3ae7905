"""How calls are sent, against a local stub server: retries, errors, the bookmark, timeouts."""

from __future__ import annotations

import json
import unittest
from email.utils import formatdate
from typing import List

from stub import Scripted, StubServer

from edgemind import AsyncEdgemind, Edgemind, EdgemindError, Retry
from edgemind.errors import retry_after_seconds

MEMORY = {"id": "mem_1", "key": "tea", "content": "Green tea"}
RATE_LIMITED = {"error": {"code": "rate_limited", "message": "rate limit reached", "requestId": "req_429"}}


class Waits:
    """A client's waits, recorded instead of spent."""

    def __init__(self) -> None:
        self.seconds: List[float] = []

    def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


class RetriesTest(unittest.TestCase):
    def test_429_and_503_with_retry_after_are_sent_again_after_waiting(self) -> None:
        waits = Waits()
        answers = [
            Scripted(429, RATE_LIMITED, {"Retry-After": "2"}),
            Scripted(503, {"error": {"code": "mind_moving", "message": "moving"}}, {"Retry-After": "1"}),
            Scripted(200, MEMORY),
        ]
        with StubServer(*answers) as stub:
            found = Edgemind(stub.url, "emk_test", sleep=waits).memory.get("mem_1")
        self.assertEqual(found["content"], "Green tea")
        self.assertEqual(waits.seconds, [2.0, 1.0])
        self.assertEqual([r.path for r in stub.received], ["/memory/mem_1"] * 3)

    def test_a_write_is_sent_again_with_the_same_body(self) -> None:
        with StubServer(Scripted(429, RATE_LIMITED, {"Retry-After": "1"}), Scripted(201, MEMORY)) as stub:
            stored = Edgemind(stub.url, "emk_test", sleep=Waits()).memory.store(category="fact", key="tea", content="Green tea")
        self.assertTrue(stored["created"])
        self.assertEqual([json.loads(r.body) for r in stub.received], [{"category": "fact", "key": "tea", "content": "Green tea"}] * 2)

    def test_tries_stop_after_the_attempts_and_raise_the_last_answer(self) -> None:
        waits = Waits()
        with StubServer(Scripted(429, RATE_LIMITED, {"Retry-After": "1"})) as stub:
            client = Edgemind(stub.url, "emk_test", retry=Retry(attempts=2), sleep=waits)
            with self.assertRaises(EdgemindError) as raised:
                client.memory.search("tea")
        self.assertEqual(len(stub.received), 2)
        self.assertEqual(waits.seconds, [1.0])
        error = raised.exception
        self.assertEqual((error.status, error.code, error.request_id, error.retry_after), (429, "rate_limited", "req_429", 1.0))

    def test_a_wait_longer_than_the_bound_fails_at_once(self) -> None:
        with StubServer(Scripted(429, RATE_LIMITED, {"Retry-After": "120"})) as stub:
            with self.assertRaises(EdgemindError) as raised:
                Edgemind(stub.url, "emk_test", sleep=Waits()).memory.search("tea")
        self.assertEqual(len(stub.received), 1)
        self.assertEqual(raised.exception.retry_after, 120.0)

    def test_no_retry_without_retry_after_or_when_turned_off(self) -> None:
        for retry, headers in [(True, {}), (False, {"Retry-After": "1"})]:
            with StubServer(Scripted(503, {"error": {"code": "not_configured", "message": "LLM_BASE_URL"}}, headers)) as stub:
                with self.assertRaises(EdgemindError) as raised:
                    Edgemind(stub.url, "emk_test", retry=retry, sleep=Waits()).memory.recall()
            self.assertEqual(len(stub.received), 1)
            self.assertEqual(raised.exception.code, "not_configured")

    def test_retry_after_is_read_as_seconds_or_an_http_date(self) -> None:
        self.assertEqual(retry_after_seconds("7"), 7.0)
        self.assertEqual(retry_after_seconds(formatdate(1_000_030, usegmt=True), now=1_000_000), 30.0)
        self.assertEqual(retry_after_seconds(formatdate(999_000, usegmt=True), now=1_000_000), 0.0)
        for nothing in [None, "", "soon"]:
            self.assertIsNone(retry_after_seconds(nothing))


class ErrorsTest(unittest.TestCase):
    def test_the_error_body_gives_status_code_message_and_request_id(self) -> None:
        body = {"error": {"code": "not_found", "message": "memory not found", "requestId": "req_1"}}
        with StubServer(Scripted(404, body)) as stub:
            with self.assertRaises(EdgemindError) as raised:
                Edgemind(stub.url, "emk_test").memory.get("mem_missing")
        error = raised.exception
        self.assertEqual((error.status, error.code, error.message, error.request_id), (404, "not_found", "memory not found", "req_1"))
        self.assertEqual(str(error), "404 not_found: memory not found, request req_1")

    def test_a_body_of_another_shape_is_named_by_its_status(self) -> None:
        with StubServer(Scripted(502, "Bad gateway", {"X-Request-Id": "req_2"})) as stub:
            with self.assertRaises(EdgemindError) as raised:
                Edgemind(stub.url, "emk_test").memory.get("mem_1")
        error = raised.exception
        self.assertEqual((error.status, error.code, error.message, error.request_id), (502, "http_502", "HTTP 502: Bad gateway", "req_2"))

    def test_no_answer_within_the_timeout_is_an_error_with_status_0(self) -> None:
        with StubServer(Scripted(200, MEMORY, delay=2.0)) as stub:
            with self.assertRaises(EdgemindError) as raised:
                Edgemind(stub.url, "emk_test", timeout=0.2).memory.get("mem_1")
        self.assertEqual((raised.exception.status, raised.exception.code), (0, "timeout"))

    def test_an_unreachable_worker_is_an_error_with_status_0(self) -> None:
        with StubServer(Scripted(200, MEMORY)) as stub:
            url = stub.url
        with self.assertRaises(EdgemindError) as raised:
            Edgemind(url, "emk_test", timeout=2).memory.get("mem_1")
        self.assertEqual((raised.exception.status, raised.exception.code), (0, "unreachable"))


class RequestsTest(unittest.TestCase):
    def test_each_call_carries_the_bookmark_the_last_answer_in_its_mind_handed_back(self) -> None:
        answers = [Scripted(201, MEMORY, {"X-Edgemind-Bookmark": f"mind_a:{n}"}) for n in range(3)]
        with StubServer(*answers) as stub:
            client = Edgemind(stub.url, "emk_test")
            for _ in range(3):
                client.memory.store(category="fact", key="tea", content="Green tea")
        self.assertEqual([r.headers.get("x-edgemind-bookmark") for r in stub.received], [None, "mind_a:0", "mind_a:1"])
        self.assertEqual((client.bookmark(), client.bookmark("mind_a"), client.bookmark("mind_b")), ("mind_a:2", "mind_a:2", None))

    def test_a_persons_token_names_its_mind_and_each_client_keeps_its_own_bookmarks(self) -> None:
        with StubServer(Scripted(200, MEMORY, {"X-Edgemind-Bookmark": "mind_b:9"})) as stub:
            person = Edgemind(stub.url, "jwt", mind_id="mind_b")
            person.memory.get("mem_1")
            person.memory.get("mem 1/2")
            Edgemind(stub.url, "emk_other").memory.get("mem_1")
        first, second, other = stub.received
        self.assertEqual((first.headers["authorization"], first.headers["x-mind-id"]), ("Bearer jwt", "mind_b"))
        self.assertEqual((second.path, second.headers["x-edgemind-bookmark"]), ("/memory/mem%201%2F2", "mind_b:9"))
        self.assertNotIn("x-edgemind-bookmark", other.headers)
        self.assertNotIn("x-mind-id", other.headers)

    def test_queries_leave_out_what_is_not_given_and_write_booleans_as_the_api_does(self) -> None:
        with StubServer(Scripted(200, {"memories": [], "total": 0, "limit": 5, "offset": 0})) as stub:
            Edgemind(stub.url, "emk_test").memory.list(verified=False, limit=5, tag="a b")
        self.assertEqual(stub.received[0].path, "/memory?tag=a+b&verified=false&limit=5")

    def test_null_is_sent_only_where_the_api_takes_it_and_only_when_given(self) -> None:
        with StubServer(Scripted(200, MEMORY)) as stub:
            client = Edgemind(stub.url, "emk_test")
            client.memory.update("mem_1", content="Black tea")
            client.memory.update("mem_1", expires_at=None, tags=None)
        self.assertEqual([json.loads(r.body) for r in stub.received], [{"content": "Black tea"}, {"expires_at": None}])

    def test_the_async_client_awaits_the_same_calls(self) -> None:
        import asyncio

        with StubServer(Scripted(200, "- tea", {"X-Token-Count": "3"})) as stub:
            recalled = asyncio.run(AsyncEdgemind(stub.url, "emk_test").memory.recall(max_tokens=50))
        self.assertEqual(recalled, {"text": "- tea", "tokens": 3})
        self.assertEqual(stub.received[0].path, "/memory/recall?max_tokens=50")


if __name__ == "__main__":
    unittest.main()
