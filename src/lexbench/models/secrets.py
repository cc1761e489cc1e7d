"""Secrets in a server's text: the API key and a URL's credentials, masked in every form in
which a server may echo them, in everything the OpenAI-compatible backend stores or prints:
its error text, and its answers (completion and chat text, top log-probability tokens).

Error text masks every form (`credential_secrets`, the user name included). Answers mask
the key, the password, `user:password` and its Basic token, but not the user name alone
(`answer_secrets`): it is not secret, and a short one (`admin`, `user`) masked in every
answer would change ordinary words. Masking leaves text that holds no secret as it is, so
the answers of a server that echoes nothing are stored byte for byte as before.
"""

from __future__ import annotations

import base64
import dataclasses
import re
from collections.abc import Sequence
from urllib.parse import unquote, urlsplit, urlunsplit

from lexbench.types import RankedToken, Response

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


def answer_secrets(api_key: str | None, url_credentials: tuple[str, str] | None) -> list[str]:
    """The forms masked in a server's answers: `credential_secrets` without the user name
    alone (see the module docstring); `user:password` still goes whole."""
    forms = [api_key or ""]
    if url_credentials is not None:
        token = basic_token(url_credentials)
        forms += [url_credentials[1], ":".join(url_credentials), token, token.rstrip("=")]
    return sorted({form for form in forms if len(form) >= 3}, key=len, reverse=True)


class SecretMask:
    """Masks `secrets` in texts: each secret, and every stretch of `min_piece` or more
    characters of one, becomes `***` (a secret shorter than `min_piece` is masked whole).
    Built once per model, then applied to every text. Linear in the text: each window of
    `min_piece` characters is looked up among the secrets' own. False when it has nothing
    to mask (no key, no URL credentials)."""

    def __init__(self, secrets: Sequence[str], min_piece: int = MIN_SECRET_PIECE):
        self.min_piece = min_piece
        self._pieces: frozenset[str] = frozenset(
            secret[i : i + min_piece]
            for secret in secrets
            if len(secret) >= min_piece
            for i in range(len(secret) - min_piece + 1)
        )
        self._whole = [secret for secret in secrets if secret and len(secret) < min_piece]
        # A first look in C (a tenth of the window loop's time): most texts hold no piece.
        self._finder = re.compile("|".join(re.escape(piece) for piece in sorted(self._pieces)))

    def __bool__(self) -> bool:
        return bool(self._pieces or self._whole)

    def __call__(self, text: str) -> str:
        for secret in self._whole:
            if secret in text:
                text = text.replace(secret, "***")
        size = self.min_piece
        if not self._pieces or len(text) < size or self._finder.search(text) is None:
            return text
        pieces = self._pieces
        masked = bytearray(len(text))
        for start in range(len(text) - size + 1):
            if text[start : start + size] in pieces:
                masked[start : start + size] = b"\x01" * size
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

    def response(self, response: Response) -> Response:
        """`response` with its text, ranked token strings and error masked (the same object
        when none holds a secret: the answers of a server that echoes nothing are stored
        as they came). Ranks were found on the server's own tokens, before masking."""
        if not self:
            return response
        text = self(response.text)
        error = None if response.error is None else self(response.error)
        ranked = tuple(
            token
            if (masked := self(token.text)) == token.text
            else RankedToken(token.token_id, masked, token.logprob)
            for token in response.ranked
        )
        if text == response.text and error == response.error and ranked == response.ranked:
            return response
        return dataclasses.replace(response, text=text, error=error, ranked=ranked)


def mask_secrets(text: str, secrets: Sequence[str], min_piece: int = MIN_SECRET_PIECE) -> str:
    """`text` with every secret, and every stretch of `min_piece` or more characters of
    one, replaced by `***` (see `SecretMask`, which keeps its tables for many texts)."""
    return SecretMask([s for s in secrets if s], min_piece)(text)


def excerpt(text: str, limit: int) -> str:
    """At most `limit` characters of `text` (cut only after secrets were masked)."""
    return text if len(text) <= limit else text[:limit] + "…"
