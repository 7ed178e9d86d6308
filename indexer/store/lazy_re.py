"""Regular expressions compiled when first used: left only for indexer/gardener/wording.py, until the gardener
compiles its patterns as every other module does (`re.compile` at its top; issue 37). Use `re.compile`.

It is not a `re.Pattern`: call its methods, never pass it to `re.sub()` and the like (to a type checker it is
one, so its callers keep their types).
"""

import functools
import re
from typing import TYPE_CHECKING, Any


class LazyPattern:
    """`re.compile(pattern, flags)`, done the first time one of its attributes is read."""

    def __init__(self, pattern: str | bytes, flags: int = 0):
        self._arguments = (pattern, flags)

    @functools.cached_property
    def _compiled(self) -> re.Pattern:
        return re.compile(*self._arguments)

    def __getattr__(self, name: str) -> "Any":
        # reached only for what the object does not hold yet: each attribute is looked up once, then kept
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self._compiled, name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"lazy_re.compile{self._arguments!r}"


if TYPE_CHECKING:
    from re import compile
else:
    compile = LazyPattern
