"""The API's docstring is an example a reader copies: the lines that run offline run."""

from __future__ import annotations

import doctest

from lexbench import api


def test_the_api_docstring_examples_run() -> None:
    result = doctest.testmod(api, verbose=False)
    assert result.attempted >= 2, "the docstring lost its runnable examples"
    assert result.failed == 0
