"""Secrets in a server's text: the API key and a URL's credentials, masked in every form in
which a server may echo them (the OpenAI-compatible backend's errors, stored and printed)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from urllib.parse import unquote, urlsplit, urlunsplit

# The shortest part of the API key that is masked wherever it appears.
MIN_SECRET_PIECE = 6


def split_url_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """(the URL without `user:password@`, (user, password) or None).

    >>> split_url_credentials("http://me:pw@127.0.0.1:8000/v1")
    ('http://127.0.0.1:8000/v1', ('me', 'pw'))
    """
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    clean = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return clean, (unquote(user), unquote(password))


def basic_token(credentials: tuple[str, str]) -> str:
    """The HTTP Basic token of (user, password), as the Authorization header carries it."""
    return base64.b64encode(":".join(credentials).encode("utf-8")).decode("ascii")


def credential_secrets(api_key: str | None, url_credentials: tuple[str, str] | None) -> list[str]:
    """Every form in which the credentials can come back in a server's text (an error that
    echoes the request's Authorization header, a proxy's page): the key, and the URL's
    user, password, `user:password` and its Basic token (with and without its `=` padding),
    so none of them is stored or printed. Pieces shorter than 3 characters are left: masked
    whole, they would mask ordinary text."""
    forms = [api_key or ""]
    if url_credentials is not None:
        token = basic_token(url_credentials)
        forms += [*url_credentials, ":".join(url_credentials), token, token.rstrip("=")]
    return sorted({form for form in forms if len(form) >= 3}, key=len, reverse=True)


def mask_secrets(text: str, secrets: Sequence[str], min_piece: int = MIN_SECRET_PIECE) -> str:
    """`text` with every secret, and every stretch of `min_piece` or more characters of
    one, replaced by `***` (a secret shorter than `min_piece` is masked whole). Linear in
    the text: each window of `min_piece` characters is looked up among the secrets' own."""
    pieces: set[str] = set()
    whole: list[str] = []
    for secret in secrets:
        if not secret:
            continue
        if len(secret) < min_piece:
            whole.append(secret)
        else:
            pieces.update(secret[i : i + min_piece] for i in range(len(secret) - min_piece + 1))
    for secret in whole:
        text = text.replace(secret, "***")
    if not pieces or len(text) < min_piece:
        return text
    masked = bytearray(len(text))
    for start in range(len(text) - min_piece + 1):
        if text[start : start + min_piece] in pieces:
            masked[start : start + min_piece] = b"\x01" * min_piece
    if not any(masked):
        return text
    out: list[str] = []
    position = 0
    while position < len(text):
        if masked[position]:
            end = position
            while end < len(text) and masked[end]:
                end += 1
            out.append("***")
            position = end
        else:
            end = masked.find(b"\x01", position)
            end = len(text) if end < 0 else end
            out.append(text[position:end])
            position = end
    return "".join(out)


def excerpt(text: str, limit: int) -> str:
    """At most `limit` characters of `text` (cut only after secrets were masked)."""
    return text if len(text) <= limit else text[:limit] + "…"
