"""The one way model or server text reaches a terminal: control characters made visible,
and credentials taken out of URLs.

    >>> terminal_text("clear\\x1b[2J")
    'clear\\\\x1b[2J'
    >>> strip_url_credentials("see http://user:pw@127.0.0.1:8000/v1")
    'see http://127.0.0.1:8000/v1'
"""

from __future__ import annotations

import re

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
