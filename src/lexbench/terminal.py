"""The one way model or server text reaches a terminal: control characters made visible,
and credentials taken out of URLs; `safe_warnings` sends library warnings and log records
the same way.

    >>> terminal_text("clear\\x1b[2J")
    'clear\\\\x1b[2J'
    >>> strip_url_credentials("see http://user:pw@127.0.0.1:8000/v1")
    'see http://127.0.0.1:8000/v1'
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import warnings
from collections.abc import Iterator
from typing import Any

# C0 controls but newline and tab, DEL, C1 controls, lone surrogates, and the bidirectional
# overrides that make text display in another order than it reads.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
_CREDENTIALS = re.compile(r"(?i)\b(https?://)[^/\s@]+@")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """`text` safe to print: escape sequences (clear screen, window title), other control
    characters, lone surrogates and bidi overrides become visible escapes (`\\x1b`);
    newlines and tabs stay. Every place that prints model or server text uses this."""
    return UNSAFE.sub(_escape, str(text))


def strip_url_credentials(text: str) -> str:
    """`http://user:pw@host/v1` -> `http://host/v1`, anywhere in `text`."""
    return _CREDENTIALS.sub(r"\1", text)


@contextlib.contextmanager
def safe_warnings() -> Iterator[None]:
    """Warnings and log records (a library's too: matplotlib's "Glyph 27 (\\x1b) missing"
    repeats a model name) reach stderr through `terminal_text`, as every other line lexbench
    prints: an escape sequence in a name cannot clear the screen or retitle the window."""
    previous = warnings.showwarning
    previous_factory = logging.getLogRecordFactory()

    def safe_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous_factory(*args, **kwargs)
        try:
            text = record.getMessage()
        except Exception:  # a library's malformed format: left to logging to report
            return record
        safe = terminal_text(text)
        if safe != text:
            record.msg, record.args = safe, None
        return record

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        text = warnings.formatwarning(message, category, filename, lineno, line)
        stream = file if file is not None else sys.stderr
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):  # a closed or broken stream
                stream.write(terminal_text(text))

    warnings.showwarning = show
    logging.setLogRecordFactory(safe_record)
    try:
        yield
    finally:
        if warnings.showwarning is show:
            warnings.showwarning = previous
        if logging.getLogRecordFactory() is safe_record:
            logging.setLogRecordFactory(previous_factory)
