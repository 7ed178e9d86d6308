"""`Record`: a base class that makes a class a `collections.namedtuple`, as `typing.NamedTuple` does, without
importing `typing` (2-3 ms of every command's start-up, docs/performance.md, "Start-up").

    class Folder(Record):
        path: str
        names: list[str] = []

is `typing.NamedTuple`'s syntax, and to a type checker it is `typing.NamedTuple`: fields in order from the
annotations, defaults from the values after them, methods and properties kept. The annotations are evaluated as
the class is made, as with NamedTuple (no `from __future__ import annotations` in a module defining records).
"""

import collections

TYPE_CHECKING = False  # typing.TYPE_CHECKING, which a type checker reads as True, without importing typing

if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    _CLASS_KEYS = {"__module__", "__qualname__", "__annotations__", "__doc__", "__orig_bases__"}

    class _RecordMeta(type):
        def __new__(mcls, name, bases, namespace):
            if namespace.get("_base"):
                return super().__new__(mcls, name, bases, namespace)
            fields = dict(namespace.get("__annotations__", {}))
            defaults = [namespace[field] for field in fields if field in namespace]
            if any(field not in namespace for field in list(fields)[len(fields) - len(defaults) :]):
                raise TypeError(f"{name}: a field without a default follows one with a default")
            made = collections.namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])
            made.__annotations__ = fields
            made.__doc__ = namespace.get("__doc__") or made.__doc__
            made.__qualname__ = namespace["__qualname__"]
            for key, value in namespace.items():
                if key not in _CLASS_KEYS and key not in fields:
                    setattr(made, key, value)
            return made

    class Record(metaclass=_RecordMeta):
        _base = True
