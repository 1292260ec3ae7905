"""Answers made compact for a model, which pays for every token: only what it can use."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Dict, Mapping, Optional

from edgemind.results import Recall, StoredMemory
from edgemind.types import Context, MemorySearchResults

_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})")


def short_date(value: Optional[str]) -> Optional[str]:
    """An ISO 8601 time to the minute, in UTC as the service gives it: ``2026-12-06T10:11Z``."""
    found = _DATE.match(value) if value else None
    return f"{found.group(1)}T{found.group(2)}Z" if found else value


def rounded(score: float) -> float:
    """A score to three significant digits (``1.2999999787653283e-06`` → ``1.3e-06``)."""
    return float(f"{score:.3g}")


def compact_memory(memory: Mapping[str, Any]) -> Dict[str, Any]:
    """A memory as a model reads it: what it says and how far to trust it; no mind, namespace or writer."""
    out: Dict[str, Any] = {"id": memory["id"], "category": memory["category"], "key": memory["key"], "content": memory["content"]}
    if memory.get("tags"):
        out["tags"] = memory["tags"]
    if memory.get("priority") not in (None, "normal"):
        out["priority"] = memory["priority"]
    out["verified"] = memory["verified"]
    if "score" in memory:
        out["score"] = rounded(memory["score"])
    if memory.get("expires_at"):
        out["expires"] = short_date(memory["expires_at"])
    out["updated"] = short_date(memory.get("updated_at"))
    if memory.get("observed_at") and memory.get("observed_at") != memory.get("created_at"):
        out["stated"] = short_date(memory["observed_at"])
    if memory.get("superseded_by"):
        out["replaced"] = short_date(memory.get("valid_until"))
        out["superseded_by"] = memory["superseded_by"]
    return out


def compact_search(found: MemorySearchResults) -> Dict[str, Any]:
    return {"results": [compact_memory(hit) for hit in found["results"]]}


def compact_stored(stored: StoredMemory) -> Dict[str, Any]:
    return {"created": stored["created"], "memory": compact_memory(stored["memory"])}


def compact_recall(recall: Recall) -> Dict[str, Any]:
    return {"tokens": recall["tokens"], "text": recall["text"]}


def compact_context(context: Context) -> Dict[str, Any]:
    """The text to answer with and its cost; the parts' own texts (already in it) are left out, counted when dropped."""
    out: Dict[str, Any] = {"system": context["system"], "prompt": context["prompt"], "tokens": context["tokens"], "budget": context["budget"]}
    dropped = Counter(part["reason"] for part in context["parts"] if not part["included"])
    if dropped:
        out["left_out"] = dict(sorted(dropped.items()))
    return out
