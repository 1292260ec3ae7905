"""Answers made compact for a model, which pays for every token: only what it can use.

The shape is the MCP and AI SDK tools' (packages/client/src/compact.ts): a memory's fields follow
the generated MEMORY_FOR_MODELS, and tests/compact_cases.json holds answers the TypeScript made
compact, which these functions must match.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Dict, Mapping, Optional

from edgemind._compact_fields import MEMORY_FOR_MODELS
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
    out: Dict[str, Any] = {}
    for rule in MEMORY_FOR_MODELS:
        value = memory.get(rule["field"])
        if value is None or value in rule.get("left_out_when", []):
            continue
        if "left_out_when_same_as" in rule and memory.get(rule["left_out_when_same_as"]) == value:
            continue
        shown = rule.get("as")
        out[rule.get("to", rule["field"])] = short_date(value) if shown == "date" else rounded(value) if shown == "score" else value
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
