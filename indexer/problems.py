"""A problem found in one file of the store, and how it is printed."""

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True, order=True)
class Problem:
    """One row of the `problems` table: a fault at a line of a store file."""

    path: str
    line: int
    severity: str
    code: str
    message: str

    def format(self, prefix: str = "") -> str:
        """`path:line: severity code: message`, the path optionally under `prefix`."""
        path = f"{prefix.rstrip('/')}/{self.path}" if prefix else self.path
        return f"{path}:{self.line}: {self.severity} {self.code}: {self.message}"


def error(path: str, line: int, code: str, message: str) -> Problem:
    return Problem(path, line, ERROR, code, message)


def warning(path: str, line: int, code: str, message: str) -> Problem:
    return Problem(path, line, WARNING, code, message)
