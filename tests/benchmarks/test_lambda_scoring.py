"""The LAMBDA scorer and error taxonomy on hand-made items."""

import pytest

from lexbench.benchmarks.lambda_.benchmark import is_surface_variant, parse_and_score
from lexbench.benchmarks.lambda_.items import LambdaItem
from lexbench.benchmarks.lambda_.prompts import decoding_for, prompt_text
from lexbench.lexicon.wordnet.index import RelationIndex
from lexbench.models.hf_decode import first_word_complete
from lexbench.text import edit_distance, first_word, normalise

ITEM = LambdaItem(
    id="antonym-0001",
    relation="antonym",
    support=(("happy", "sad"), ("early", "late")),
    query="large",
    gold="small",
    candidates=("little", "small"),
    query_pos="adj",
    query_length=5,
)
MULTI = LambdaItem(
    id="synonym-0002",
    relation="synonym",
    support=(("quick", "fast"), ("sofa", "couch")),
    query="frankfurter",
    gold="wiener",
    candidates=("Hot dog", "weenie", "wiener"),
    query_pos="noun",
    query_length=11,
)

# A tiny hand-made index: 'large' is linked to 'big' (synonym) and 'bigger' nowhere.
TINY = RelationIndex(
    version="fixture",
    fingerprint="0",
    lemma_names=("big", "large", "little", "small"),
    related={
        "synonym": {"large": ("big",), "big": ("large",)},
        "antonym": {"large": ("little", "small")},
    },
    pos={"large": "adj"},
    exceptions={"larger": ("large",), "geese": ("goose",)},
)


@pytest.mark.parametrize(
    "output,answer,correct",
    [
        (" small", "small", True),
        ("Small", "small", True),
        (" SMALL.", "small", True),
        ("\n'small',", "small", True),
        ("  \u201csmall\u201d", "small", True),
        (" little thing", "little", True),
        (" smaller", "smaller", False),
        (" hot dog", "hot dog", True),  # multi-word candidate, any case
        (" Hot", "hot", False),  # half of a multi-word candidate is not it
        (" weenie!", "weenie", True),
    ],
)
def test_scorer_normalises_case_punctuation_and_space(output, answer, correct):
    item = MULTI if answer in {"hot dog", "hot", "weenie"} else ITEM
    verdict = parse_and_score(output, item, TINY)
    assert (verdict.answer, verdict.correct) == (answer, correct)


@pytest.mark.parametrize(
    "output,error_class",
    [
        (" large", "identity_echo"),
        (" Large!", "identity_echo"),
        (" larg", "identity_echo"),  # cut off mid-word by the token budget
        (" larqe\n", "identity_echo"),  # a non-word one edit away: the query misspelt
        (" larger", "surface_misfire"),  # WordNet exception list: larger -> large
        (" larges", "surface_misfire"),  # detachment rule
        (" largely", "surface_misfire"),  # the query plus a suffix
        (" big", "semantic_drift"),  # WordNet synonym of the query, not an antonym
        (" happy", "support_copy"),
        (" banana", "other"),
        ("", "no_answer"),
        (" ...", "no_answer"),
        (" The answer", "format_failure"),  # prose, the paper-style prompt's usual failure
        ("\nThe", "format_failure"),
        (" to make", "format_failure"),
    ],
)
def test_taxonomy(output, error_class):
    verdict = parse_and_score(output, ITEM, TINY)
    assert not verdict.correct
    assert verdict.error_class == error_class


def test_taxonomy_without_index_cannot_see_drift():
    assert parse_and_score(" big", ITEM, None).error_class == "other"


def test_surface_variant_rules():
    exceptions = {"geese": ("goose",)}
    assert is_surface_variant("geese", "goose", exceptions)
    assert is_surface_variant("cats", "cat", exceptions)
    assert is_surface_variant("running", "run", exceptions)  # consonant doubling undone
    assert is_surface_variant("bigger", "big", exceptions)
    assert is_surface_variant("happiness", "happy", exceptions)  # y -> i before a suffix
    assert is_surface_variant("unhappy", "happy", exceptions)  # a prefix
    assert is_surface_variant("flexibility", "flexibleness", exceptions)  # -ble+ity, -ness
    assert is_surface_variant("disembarkation", "disembarkment", exceptions)
    assert is_surface_variant("career-making", "careerism", exceptions)
    assert not is_surface_variant("cat", "dog", exceptions)
    assert not is_surface_variant("large", "large", exceptions)  # identity is not surface
    # Different real words one letter apart, or look-alikes, are not form changes.
    for answer, query in (
        ("mouse", "house"),
        ("night", "light"),
        ("prize", "price"),
        ("carpenter", "carpet"),
        ("colour", "color"),
    ):
        assert not is_surface_variant(answer, query, exceptions), (answer, query)


def test_prompt_shapes():
    paper = prompt_text(ITEM, "paper")
    # The paper's query line is "E : ?" (section 2.3 and the script's f"{E} : ?").
    assert paper == (
        "happy : sad\nearly : late\nlarge : ?\nAnswer with exactly one word that "
        "completes the last line. Do not explain.\n"
    )
    assert "antonym" not in paper.lower()
    completion = prompt_text(ITEM, "completion")
    assert completion.endswith("happy : sad\nearly : late\nlarge :")
    with pytest.raises(ValueError, match="prompt style"):
        prompt_text(ITEM, "fancy")


def test_decoding_protocols():
    assert decoding_for("paper").max_new_tokens == 2
    assert decoding_for("paper").greedy
    word = decoding_for("word")
    assert word.stop_at_word_end and word.max_new_tokens > 2
    with pytest.raises(ValueError, match="protocol"):
        decoding_for("beam")


@pytest.mark.parametrize(
    "text,done",
    [
        ("", False),
        (" ", False),
        (" lar", False),
        (" large", False),
        (" large\n", True),
        (" large.", True),
        (" x-ray ", True),
        (" x-", False),
        ("\n\nsmall,", True),
    ],
)
def test_first_word_complete(text, done):
    assert first_word_complete(text) is done


def test_text_helpers():
    assert normalise("Canis_familiaris") == "canis familiaris"
    assert first_word(" 'X-ray',") == "x-ray"
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("abc", "abcdef", limit=1) == 2
