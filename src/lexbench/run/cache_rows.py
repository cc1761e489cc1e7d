"""A stored answer, checked against its schema before it is used.

A cache row is JSON written by `Response.to_dict`. A row damaged by hand, by another tool
or by a bug can still be valid JSON of the wrong shape (`[1, 2]`, or `"text": 12345`):
such a row must neither crash `lexbench cache check|repair` nor reach a scorer, where it
fails far from its cause. `parse_stored_response` accepts exactly the shapes `to_dict`
writes and raises `BadRow`, saying what is wrong, for anything else.

The schema bounds a row: at most `MAX_ROW_CHARS` characters of JSON, only the fields
`to_dict` writes, hence nested at most three deep (an object, `ranked`, one ranked token).
A longer row is refused before it is parsed, and one nested too deep for the parser (a
response 1,200 levels deep) is a `BadRow` like any other, never a RecursionError.

>>> parse_stored_response('{"request_id": "a", "text": "yes"}').text
'yes'
>>> parse_stored_response('[1, 2]')
Traceback (most recent call last):
...
lexbench.run.cache_rows.BadRow: not a JSON object but list
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lexbench.types import Failure, Response

# The longest answer a row may hold: far above any real one (a 10^5-token generation, or
# 10^4 ranked tokens, is under 2 MB), far below what would exhaust memory to parse.
MAX_ROW_CHARS = 32 * 1024 * 1024


class BadRow(ValueError):
    """A stored answer that is not a Response this version can read."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    # Log-probabilities may be -inf (a token the model rules out): any float is a number.
    return _is_int(value) or isinstance(value, float)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_rank(value: Any) -> bool:
    return value is None or _is_int(value)


def _is_ranked_token(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 3
        and _is_int(value[0])
        and _is_str(value[1])
        and _is_number(value[2])
    )


# Field -> (check of each element, or of the value itself; is it a list of such).
_FIELDS: dict[str, tuple[Callable[[Any], bool], bool]] = {
    "request_id": (_is_str, False),
    "text": (_is_str, False),
    "ranked": (_is_ranked_token, True),
    "loglikelihoods": (_is_number, True),
    "continuation_tokens": (_is_int, True),
    "generated_tokens": (_is_int, False),
    "target_ranks": (_is_rank, True),
    "target_known": (_is_bool, True),
    "choice_scores": (_is_number, True),
}
_FAILURES = frozenset(f.value for f in Failure)
_KNOWN = frozenset({*_FIELDS, "error", "failure"})


def _short(value: Any) -> str:
    """A value for a message, never recursing into it (it may be nested without bound)."""
    if isinstance(value, (list, dict)):
        return f"{type(value).__name__} of {len(value)}"
    return f"{type(value).__name__} {value!r:.40}"


def check_stored_response(data: Any) -> None:
    """Raise `BadRow` unless `data` has the shape `Response.to_dict` writes."""
    if not isinstance(data, dict):
        raise BadRow(f"not a JSON object but {type(data).__name__}")
    if "request_id" not in data:
        raise BadRow("no request_id")
    unknown = sorted(str(name) for name in data if name not in _KNOWN)
    if unknown:
        raise BadRow(f"unknown field {unknown[0]!r:.40}")
    for name, (check, is_list) in _FIELDS.items():
        if name not in data:
            continue
        value = data[name]
        if is_list:
            if not isinstance(value, list):
                raise BadRow(f"{name} is {type(value).__name__}, not a list")
            for element in value:
                if not check(element):
                    raise BadRow(f"{name} holds {_short(element)}")
        elif not check(value):
            raise BadRow(f"{name} is {_short(value)}")
    error = data.get("error")
    if error is not None and not _is_str(error):
        raise BadRow(f"error is {type(error).__name__}, not text")
    failure = data.get("failure")
    if failure is not None and (not _is_str(failure) or failure not in _FAILURES):
        raise BadRow(f"failure {_short(failure)} is not one of {sorted(_FAILURES)}")


def parse_stored_response(text: Any) -> Response:
    """The Response stored as `text`, or `BadRow` saying why it cannot be one."""
    if not isinstance(text, str):
        raise BadRow(f"stored as {type(text).__name__}, not JSON text")
    if len(text) > MAX_ROW_CHARS:
        raise BadRow(f"{len(text):,} characters, more than a row may hold ({MAX_ROW_CHARS:,})")
    try:
        data = json.loads(text)
    except ValueError as error:
        raise BadRow(f"not JSON ({error})") from None
    except RecursionError:
        raise BadRow("nested deeper than the parser goes (a row is three levels deep)") from None
    check_stored_response(data)
    return Response.from_dict(data)
