"""`--option KEY=VALUE` given to a benchmark's builder: a key it does not take, or a value
of the wrong type, is one line naming the option (exit 2), not a TypeError or a bare
"invalid literal for int()".

    with option_errors("lambda", {"seed": "x"}):
        build(...)       # ValueError: --option seed='x': ... (invalid literal for int() ...)
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping
from typing import Any

_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'")
# Python's own messages for a value of the wrong type, which name no option.
_CONVERSION = re.compile(
    r"invalid literal for int\(\)|could not convert string to float|"
    r"must be a string or a (real )?number|not supported between instances of"
)


@contextlib.contextmanager
def option_errors(benchmark: str, options: Mapping[str, Any]) -> Iterator[None]:
    """Turn a builder's refusal of the user's `--option`s into a ValueError naming one."""
    try:
        yield
    except TypeError as error:
        found = _UNEXPECTED.search(str(error))
        if found and found.group(1) in options:
            raise ValueError(
                f"--option {found.group(1)}: {benchmark} has no option of that name"
            ) from None
        _name_the_value(error, options)
        raise
    except ValueError as error:
        _name_the_value(error, options)
        raise


def _name_the_value(error: Exception, options: Mapping[str, Any]) -> None:
    message = str(error)
    if not _CONVERSION.search(message):
        return
    named = [
        key for key, value in options.items() if repr(value) in message or str(value) in message
    ]
    key = named[0] if named else next(iter(options), None)
    if key is not None:
        raise ValueError(
            f"--option {key}={options[key]!r}: a value of the wrong type ({message})"
        ) from None


class ReadOptions(dict[str, Any]):
    """The options, remembering which keys a reader looked at: a key never read was not
    used, and is refused rather than ignored."""

    def __init__(self, options: Mapping[str, Any]):
        super().__init__(options)
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self.read.add(str(key))
        return super().__contains__(key)

    def unread(self) -> list[str]:
        return sorted(set(self) - self.read)
