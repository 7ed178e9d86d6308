"""indexer.store.record: a Record is what typing.NamedTuple makes of the same class, typing not imported."""

import pickle
import subprocess
import sys
from typing import NamedTuple

import pytest

from indexer.store.record import Record


class Plain(Record):
    """A record."""

    path: str
    size: int = 0
    names: tuple = ()

    @property
    def empty(self) -> bool:
        return not self.size

    @classmethod
    def of(cls, path: str) -> "Plain":
        return cls(path, 1)


class Typed(NamedTuple):
    """A record."""

    path: str
    size: int = 0
    names: tuple = ()

    @property
    def empty(self) -> bool:
        return not self.size

    @classmethod
    def of(cls, path: str) -> "Typed":
        return cls(path, 1)


def test_a_record_behaves_as_the_same_named_tuple():
    for made, typed in (
        (Plain("a"), Typed("a")),
        (Plain.of("b"), Typed.of("b")),
        (Plain("c", 2, ("x",)), Typed("c", 2, ("x",))),
    ):
        assert made == typed and tuple(made) == tuple(typed) and made.empty == typed.empty
        assert repr(made).removeprefix("Plain") == repr(typed).removeprefix("Typed")
        assert made._replace(size=5) == typed._replace(size=5) and made._asdict() == typed._asdict()
        assert pickle.loads(pickle.dumps(made)) == made
    for attribute in ("_fields", "_field_defaults", "__annotations__", "__doc__", "__match_args__"):
        assert getattr(Plain, attribute) == getattr(Typed, attribute), attribute
    assert isinstance(Plain("a"), tuple) and Plain.__module__ == __name__ and Plain.__qualname__ == "Plain"
    with pytest.raises(TypeError):  # as NamedTuple: a field with no default after one with a default
        type(
            "Bad",
            (Record,),
            {"__module__": __name__, "__qualname__": "Bad", "__annotations__": {"a": int, "b": int}, "a": 1},
        )


def test_making_records_does_not_import_typing():
    code = "import sys, indexer.store.record, indexer.store.walk, indexer.store.git; print('typing' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
