"""Cache keys and cache rows are pinned: values computed by the code that wrote every cache
so far (before the request path was made cheaper), so answers cached before are still
found and read. Each case below is one the fast paths must get exactly right (an int
temperature, -0.0, NaN, control characters, lone surrogates, non-ASCII text, chat, every
request kind, every optional answer field)."""

from __future__ import annotations

import pytest

from lexbench.run.cache import request_keys, storable
from lexbench.types import (
    AnalogyQuery,
    Decoding,
    Failure,
    PairChoiceQuery,
    RankedToken,
    Request,
    Response,
    canonical_json,
)

FINGERPRINT = {
    "backend": "openai",
    "model": "m",
    "base_url": "http://127.0.0.1:1/v1",
    "api": "completions",
    "rank_targets": "first-token-v2",
}


def gen(id_, prompt, **decoding):
    return Request(id=id_, kind="generate", prompt=prompt, decoding=Decoding(**decoding))


REQUESTS = [
    gen("a", "p"),
    gen("b", "Set A is (9, 7).\n<task> Print </task>\n\n", max_new_tokens=256),
    gen("c", 'quote " backslash \\ tab \t nul \x00 bell \x07 del \x7f', temperature=0),
    gen("d", "é ü 漢字 😀 \u2028 \u2029", temperature=-0.0, top_p=1),
    gen("e", "lone \udcff surrogate", stop=("\n", "</answer>"), seed=7),
    gen("f", "x", temperature=0.7, top_p=0.9, top_k=40, seed=0, stop_at_word_end=True),
    gen("g", "x", temperature=False, max_new_tokens=True),
    gen("h", "x", temperature=1e-7, top_p=float("nan")),
    gen("i", "", stop=("é", "\udcff")),
    Request(
        id="j",
        kind="generate",
        prompt="",
        chat=True,
        messages=(("user", "hi é"), ("assistant", "ok")),
    ),
    Request(
        id="k",
        kind="generate",
        prompt="p",
        chat=True,
        messages=(("user", "p"),),
        decoding=Decoding(max_new_tokens=3),
    ),
    Request(
        id="l", kind="rank", prompt="If a is like b, then c is like", top_k=10, targets=("d", "é")
    ),
    Request(id="m", kind="rank", prompt="x [MASK] y", targets=("d",), answer_suffix="."),
    Request(id="n", kind="loglikelihood", prompt="ctx ", continuations=("a", " b é")),
    Request(id="o", kind="analogy", query=AnalogyQuery("man", "king", "woman"), targets=("queen",)),
    Request(id="p", kind="analogy", query=PairChoiceQuery("a", "b", (("c", "d"), ("e", "f")))),
]

RESPONSES = [
    Response(request_id="a", text=" dog", generated_tokens=1),
    Response(request_id="b", text="<answer>{2, 4}</answer>\n", generated_tokens=12),
    Response(request_id="c", text='q " \\ \x00 é \udcff 😀', generated_tokens=0),
    Response(request_id="d", text=""),
    Response(request_id="e", error="failed after 3 attempts; last: HTTP 500"),
    Response(request_id="f", error="word 'x' unknown", failure=Failure.OUT_OF_VOCABULARY),
    Response(
        request_id="g",
        ranked=(RankedToken(-1, " d", -0.5), RankedToken(3, "é", float("-inf"))),
        target_ranks=(1, None),
        target_known=(True, False),
    ),
    Response(request_id="h", loglikelihoods=(-1.25, float("-inf")), continuation_tokens=(1, 2)),
    Response(request_id="i", choice_scores=(0.5, -0.25)),
    Response(request_id="j", text="x", generated_tokens=True),
]

# The last answer (a bool token count) is pinned as written but never read back as valid.
READABLE = len(RESPONSES) - 1

PINNED_KEYS = [
    "478d918988b560432716e51c85e2f22be59b110baaa0790e35b7c9a3dfd0b807",
    "be59d1afc5b2166541040a85538634afa6d4b876faf8b50d31778563a6cb11ca",
    "18d8cd384bed416b7ff9ca6ea57d33cac9df3571da1f93f7c2412b30f3f15c97",
    "cb78cdbe1002538a153bd99fa2802c73eab671bdf2a1e71d157e3ee0cc1d63ab",
    "c0196b2b4473a5cd4baf630c8030d3f1f84dd9220cd67aacc52ca807f373987d",
    "b82a43b3836559eb92065968e48625210247d01ff76179e68f763ec5587d641d",
    "527e25f1be37282666d7fc015a2a67542373ae289749f3216aec50ebdbe141b7",
    "1bb6d947b0cb9856928ea38a16e4f01d00e7193f38d856ecee3d0e865d18fefa",
    "490124029e80f0bbb9389c27feaf0ed9697cdec96a2d75b5d380a88878c19a0f",
    "eb52c830fdd2e53513b341c529154861b6d8f9ac0c25760abb5c75215c6b4caa",
    "d9379a3fc537466583f7163d69dce0ccac8399f4c10491d23f59dff8aff0dd91",
    "9cfc1a063093cd69c1c45c2476f52ed4698c69f9f9b4b6aed794848a096af0e6",
    "4b457fbafde5ee0d847856d56cdaae481894d5025dc69a4553c6dba2c411dda5",
    "937863c7ddea0b2581338a539dea71dfa90dffd85ebcfcad4ce2b46684d159a1",
    "c8d0ad07d698cd08fd95a6082d2b5bb5bbe859697e4400748ed2619f3f9ac96e",
    "c9aec88bf00380a45eff697671b513ca633df4deaa906b0fe111d5b423b744d7",
]
PINNED_REQUEST_ROWS = [
    '{"decoding":{"max_new_tokens":16,"seed":null,"stop":[],"stop_at_word_end":false,"temperature":0.0,"top_k":0,"top_p":1.0},"kind":"generate","prompt":"p"}',
    '{"decoding":{"max_new_tokens":256,"seed":null,"stop":[],"stop_at_word_end":false,"temperature":0.0,"top_k":0,"top_p":1.0},"kind":"generate","prompt":"Set A is (9, 7).\\n<task> Print </task>\\n\\n"}',
    '{"decoding":{"max_new_tokens":16,"seed":null,"stop":[],"stop_at_word_end":false,"temperature":0,"top_k":0,"top_p":1.0},"kind":"generate","prompt":"quote \\" backslash \\\\ tab \\t nul \\u0000 bell \\u0007 del \x7f"}',
    '{"decoding":{"max_new_tokens":16,"seed":null,"stop":[],"stop_at_word_end":false,"temperature":-0.0,"top_k":0,"top_p":1},"kind":"generate","prompt":"é ü 漢字 😀 \u2028 \u2029"}',
    '{"decoding":{"max_new_tokens":16,"seed":7,"stop":["\\n","</answer>"],"stop_at_word_end":false,"temperature":0.0,"top_k":0,"top_p":1.0},"kind":"generate","prompt":"lone \\udcff surrogate"}',
    '{"decoding":{"max_new_tokens":16,"seed":0,"stop":[],"stop_at_word_end":true,"temperature":0.7,"top_k":40,"top_p":0.9},"kind":"generate","prompt":"x"}',
    '{"decoding":{"max_new_tokens":true,"seed":null,"stop":[],"stop_at_word_end":false,"temperature":false,"top_k":0,"top_p":1.0},"kind":"generate","prompt":"x"}',
    '{"decoding":{"max_new_tokens":16,"seed":null,"stop":[],"stop_at_word_end":false,"temperature":1e-07,"top_k":0,"top_p":NaN},"kind":"generate","prompt":"x"}',
    '{"decoding":{"max_new_tokens":16,"seed":null,"stop":["é","\\udcff"],"stop_at_word_end":false,"temperature":0.0,"top_k":0,"top_p":1.0},"kind":"generate","prompt":""}',
    '{"chat":true,"decoding":{"max_new_tokens":16,"seed":null,"stop":[],"stop_at_word_end":false,"temperature":0.0,"top_k":0,"top_p":1.0},"kind":"generate","messages":[["user","hi é"],["assistant","ok"]],"prompt":""}',
    '{"chat":true,"decoding":{"max_new_tokens":3,"seed":null,"stop":[],"stop_at_word_end":false,"temperature":0.0,"top_k":0,"top_p":1.0},"kind":"generate","messages":[["user","p"]],"prompt":"p"}',
    '{"kind":"rank","prompt":"If a is like b, then c is like","targets":["d","é"],"top_k":10}',
    '{"answer_suffix":".","kind":"rank","prompt":"x [MASK] y","targets":["d"],"top_k":10}',
    '{"continuations":["a"," b é"],"kind":"loglikelihood","prompt":"ctx "}',
    '{"kind":"analogy","prompt":"","query":{"a":"man","b":"king","c":"woman","exclude_question_words":true,"method":"3cosadd","type":"analogy"},"targets":["queen"],"top_k":10}',
    '{"kind":"analogy","prompt":"","query":{"a":"a","b":"b","choices":[["c","d"],["e","f"]],"method":"pairdiff","type":"pair_choice"},"targets":[],"top_k":10}',
]
PINNED_RESPONSE_ROWS = [
    '{"continuation_tokens":[],"error":null,"generated_tokens":1,"loglikelihoods":[],"ranked":[],"request_id":"a","text":" dog"}',
    '{"continuation_tokens":[],"error":null,"generated_tokens":12,"loglikelihoods":[],"ranked":[],"request_id":"b","text":"<answer>{2, 4}</answer>\\n"}',
    '{"continuation_tokens":[],"error":null,"generated_tokens":0,"loglikelihoods":[],"ranked":[],"request_id":"c","text":"q \\" \\\\ \\u0000 é \\udcff 😀"}',
    '{"continuation_tokens":[],"error":null,"generated_tokens":0,"loglikelihoods":[],"ranked":[],"request_id":"d","text":""}',
    '{"continuation_tokens":[],"error":"failed after 3 attempts; last: HTTP 500","failure":"request_failed","generated_tokens":0,"loglikelihoods":[],"ranked":[],"request_id":"e","text":""}',
    '{"continuation_tokens":[],"error":"word \'x\' unknown","failure":"out_of_vocabulary","generated_tokens":0,"loglikelihoods":[],"ranked":[],"request_id":"f","text":""}',
    '{"continuation_tokens":[],"error":null,"generated_tokens":0,"loglikelihoods":[],"ranked":[[-1," d",-0.5],[3,"é",-Infinity]],"request_id":"g","target_known":[true,false],"target_ranks":[1,null],"text":""}',
    '{"continuation_tokens":[1,2],"error":null,"generated_tokens":0,"loglikelihoods":[-1.25,-Infinity],"ranked":[],"request_id":"h","text":""}',
    '{"choice_scores":[0.5,-0.25],"continuation_tokens":[],"error":null,"generated_tokens":0,"loglikelihoods":[],"ranked":[],"request_id":"i","text":""}',
    '{"continuation_tokens":[],"error":null,"generated_tokens":true,"loglikelihoods":[],"ranked":[],"request_id":"j","text":"x"}',
]


def test_keys_of_fixed_requests_are_the_pinned_ones():
    assert request_keys(FINGERPRINT, REQUESTS) == PINNED_KEYS
    # One at a time too (the model's part is made once per call).
    assert [request_keys(FINGERPRINT, [r])[0] for r in REQUESTS] == PINNED_KEYS


def test_request_rows_are_the_pinned_ones():
    assert [storable(r.cache_key_json()) for r in REQUESTS] == PINNED_REQUEST_ROWS
    assert [storable(canonical_json(r.cache_key_payload())) for r in REQUESTS] == (
        PINNED_REQUEST_ROWS
    )


def test_response_rows_are_the_pinned_ones():
    assert [storable(r.to_json()) for r in RESPONSES] == PINNED_RESPONSE_ROWS
    assert [storable(canonical_json(r.to_dict())) for r in RESPONSES] == PINNED_RESPONSE_ROWS


@pytest.mark.parametrize("index", range(len(REQUESTS)))
def test_a_cache_written_before_is_read_now(tmp_path, index):
    """A row stored as before is found under today's key and reads back as the answer."""
    import sqlite3
    import time

    from lexbench.run.cache import ResponseCache

    path = tmp_path / "c.sqlite"
    with ResponseCache(path):
        pass
    answer = RESPONSES[index % READABLE]
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO responses VALUES (?, ?, ?, ?, ?)",
            (
                PINNED_KEYS[index],
                canonical_json(FINGERPRINT),
                PINNED_REQUEST_ROWS[index],
                PINNED_RESPONSE_ROWS[index % READABLE],
                time.time(),
            ),
        )
    with ResponseCache(path) as cache:
        found = cache.get_many(request_keys(FINGERPRINT, [REQUESTS[index]]))
    [stored] = found.values()
    assert stored.to_json() == answer.to_json()


def test_the_direct_texts_equal_the_encoders_on_random_values():
    import random

    rng = random.Random(26)
    alphabet = ['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "漢", "😀", "\udcff", "a", " "]
    decodings = [
        Decoding(),
        Decoding(temperature=0),
        Decoding(temperature=-0.0, top_p=1),
        Decoding(max_new_tokens=256, stop=("</answer>",), seed=3),
        Decoding(temperature=0.5, top_k=5, stop_at_word_end=True),
    ]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        request = Request(id=text, kind="generate", prompt=text, decoding=rng.choice(decodings))
        assert request.cache_key_json() == canonical_json(request.cache_key_payload())
        answer = Response(request_id=text, text=text[::-1], generated_tokens=rng.randrange(300))
        assert answer.to_json() == canonical_json(answer.to_dict())
