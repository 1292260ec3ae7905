"""How the resources' keyword arguments become a request body."""

from __future__ import annotations

from typing import Any, Dict, Iterable


class NotGiven:
    """The default of an argument the API accepts null for: left out, nothing is sent (None sends null)."""

    _instance = None

    def __new__(cls) -> "NotGiven":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


def body_of(values: Dict[str, Any], nullable: Iterable[str] = ()) -> Dict[str, Any]:
    """The fields given: NOT_GIVEN is left out, and so is None except where the API takes null."""
    kept = set(nullable)
    return {name: value for name, value in values.items() if value is not NOT_GIVEN and (value is not None or name in kept)}
