"""Exact target ranks on completions servers (issue 13/18): the server's own first token of
" " + word, learned by echo and memoised; a strict prefix rule where nothing echoes; which
rule a run used is in its config."""

from __future__ import annotations

from fake_openai_server import FakeOpenAIServer
from lexbench.models.openai.backend import OpenAIModel
from lexbench.models.openai.options import OpenAIOptions
from lexbench.models.openai.targets import covering_token, exact_ranks, strict_prefix_ranks
from lexbench.run.runner import execute
from lexbench.types import Request


def test_covering_token_skips_lone_space_and_empty_tokens():
    assert covering_token([" air", "port"], [0, 4], 1) == " air"
    assert covering_token(["▁", "air"], [0, 1], 1) == "air"  # SentencePiece's lone space
    assert covering_token(["", " air"], [0, 0], 1) == " air"  # an empty BOS covers nothing
    assert covering_token([" a", "ir"], [0, 2], 1) == " a"
    assert covering_token(["x"], [0, 1], 1) is None  # lengths differ: unusable


def test_exact_and_strict_prefix_rules():
    ranked = [" the", " a", " ai", " air", "air", " nucle"]
    assert exact_ranks(ranked, [" air", " a", " nucleus"]) == (4, 2, None)
    # " a" is never credited for "air", nor " ai"; three letters or the whole word are.
    assert strict_prefix_ranks(ranked, ["air", "a", "nucleus", "ai"], word_start=True) == (
        4,
        2,
        6,
        3,
    )
    # A chat reply's first token carries no space: any token may start the word.
    assert strict_prefix_ranks(["air"], ["air"], word_start=False) == (1,)
    assert strict_prefix_ranks(["air"], ["air"], word_start=True) == (None,)
    assert strict_prefix_ranks(["Ġair", "▁nucle"], ["air", "nucleus"], word_start=True) == (1, 2)


def rank(prompt: str, *targets: str) -> Request:
    return Request(id=prompt, kind="rank", prompt=prompt, top_k=8, targets=targets)


def test_exact_rule_learns_each_word_once_by_echo(tmp_cache):
    asked = [
        rank("sun : planet :: nucleus is like", "large", "larger", "river"),
        rank("hot : cold :: up is like", "river", "stone"),
    ]
    with FakeOpenAIServer(lifetime=60) as server:
        model = OpenAIModel("fake-model", OpenAIOptions(base_url=server.url, max_concurrency=8))
        first, _ = execute(model, asked, cache=tmp_cache, progress=False)
        echoed = sorted(e.prompt for e in server.entries() if e.prompt.startswith(" "))
        more = model.rank([rank("a : b :: c is like", "stone", "green")])[0]
        echoed_again = sorted(e.prompt for e in server.entries() if e.prompt.startswith(" "))
    # One echo request per distinct word, the word after a space; memoised per model.
    assert echoed == [" large", " larger", " river", " stone"]
    assert echoed_again == [" green", " large", " larger", " river", " stone"]
    texts = [t.text for t in first[0].ranked]
    assert first[0].target_ranks == (texts.index(" large") + 1, None, texts.index(" river") + 1)
    assert " larger" not in texts  # the old prefix rule credited " large"
    assert more.target_ranks[1] == [t.text for t in more.ranked].index(" green") + 1
    assert model.describe()["rank_target_rule"].startswith("exact first token")


def test_without_echo_the_strict_prefix_rule_is_used_and_recorded():
    with FakeOpenAIServer(echo_supported=False, lifetime=30) as server:
        model = OpenAIModel("fake-model", OpenAIOptions(base_url=server.url))
        out = model.rank([rank("x is like", "larger", "la", "river")])[0]
        again = model.rank([rank("y is like", "stone")])[0]
        echoes = [e for e in server.entries() if e.prompt.startswith(" ")]
    texts = [t.text for t in out.ranked]
    assert out.error is None and again.error is None
    # " large" is a prefix of "larger" of at least three letters; "la" is no vocabulary token.
    assert out.target_ranks == (texts.index(" large") + 1, None, texts.index(" river") + 1)
    assert len(echoes) == 3  # tried once, never again
    rule = model.describe()["rank_target_rule"]
    assert rule.startswith("strict prefix") and "does not echo" in rule


def test_a_word_whose_tokens_could_not_be_learned_fails_its_request_only(tmp_cache):
    def echo_of_nucleus_fails(prompt: str, attempt: int) -> str | None:
        return "500" if prompt == " nucleus" else None

    asked = [rank("p1 is like", "nucleus", "river"), rank("p2 is like", "river")]
    with FakeOpenAIServer(faults=echo_of_nucleus_fails, lifetime=30) as server:
        model = OpenAIModel(
            "fake-model", OpenAIOptions(base_url=server.url, max_retries=1, max_concurrency=1)
        )
        out, stats = execute(model, asked, cache=tmp_cache, progress=False)
        ranked_prompts = [e.prompt for e in server.entries() if not e.prompt.startswith(" ")]
    assert out[0].error is not None and "'nucleus'" in out[0].error and "HTTP 500" in out[0].error
    assert out[1].error is None
    assert ranked_prompts == ["p2 is like"]  # the failed one was never asked
    assert stats.failed == 1 and tmp_cache.count() == 1  # asked again on a rerun
    assert model.describe()["rank_target_rule"].startswith("exact first token")
