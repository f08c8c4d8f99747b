"""How an ObjectMessage's object becomes its body's bytes, and back: JSON by default, pickle
only when asked for (unpickling runs the sender's code)."""

from __future__ import annotations

import json
import pickle
from typing import Any, Protocol

from .errors import MessageFormatException

__all__ = ["JsonSerializer", "PickleSerializer", "Serializer"]


class Serializer(Protocol):
    """How an ObjectMessage's object becomes its body's bytes, and back."""

    def dumps(self, obj: Any) -> bytes: ...

    def loads(self, data: bytes) -> Any: ...


class JsonSerializer:
    """The default: JSON in UTF-8 (dicts, lists, strings, numbers, booleans, None)."""

    def dumps(self, obj: Any) -> bytes:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False).encode("utf-8")

    def loads(self, data: bytes) -> Any:
        return json.loads(data.decode("utf-8"))


class PickleSerializer:
    """Python objects as pickles, for producers and consumers that trust each other only.
    Unpickling runs code the sender chose, so `loads` refuses unless the serializer was made
    with allow_unpickling=True; pgaq never uses this unless it is passed explicitly."""

    def __init__(self, *, allow_unpickling: bool = False, protocol: int = pickle.HIGHEST_PROTOCOL) -> None:
        self.allow_unpickling = allow_unpickling
        self.protocol = protocol

    def dumps(self, obj: Any) -> bytes:
        return pickle.dumps(obj, protocol=self.protocol)

    def loads(self, data: bytes) -> Any:
        if not self.allow_unpickling:
            raise MessageFormatException("refusing to unpickle: make the serializer with "
                                         "PickleSerializer(allow_unpickling=True) if the sender "
                                         "is trusted", "JMS-161")
        return pickle.loads(data)
