"""LAMBDA's error taxonomy: why a wrong answer is wrong.

The paper (section 3.3) names three patterns from a manual review: identity echo (the query
repeated), surface misfire (an irrelevant form change of the query, cat -> cats) and
semantic drift (a word related in meaning but outside R(E), big -> large). lexbench files
every wrong answer automatically, first match wins:

1. `no_answer`: the output holds no word at all.
2. `format_failure`: the output starts as prose or scaffolding instead of an answer ("The
   answer…", "\\nThe", "to make", "What is"): its first word is a closed-class English word
   (article, pronoun, auxiliary, preposition, conjunction) or a word of the instructions,
   and not a candidate. SmolLM2-135M answers the paper-style prompt this way every time.
3. `identity_echo`: the query repeated; respelt (hyphenated, British or American spelling);
   cut off by the token budget (a proper prefix of it, 3+ letters, that is the whole output,
   stops mid-word and is not itself a WordNet word: desecrate -> " desec"); or misspelt (a
   non-word 1 edit away, 2 from 8 letters on: tautalization).
4. `surface_misfire`: a form change of the query (see `is_surface_variant`): a shared base
   form under WordNet's morphology (larger -> large, geese -> goose) or the query with an
   affix added or swapped (largely, happiness, unhappy, disembarkation / disembarkment).
   Two different real words one letter apart (house -> mouse, light -> night, price ->
   prize) are NOT form changes.
5. `semantic_drift`: related in meaning to the query but not in R(E) (see `DriftFinder`):
   linked by the indexed WordNet relations within two links, by similar-to or also-see, as
   sister senses (a shared direct hypernym), by Wu-Palmer similarity of at least
   `WUP_DRIFT_SIMILARITY` in the noun or verb hierarchy, through a definition (either
   word's gloss names the other or one of its synonyms), or, when the packaged GloVe
   vectors are installed, by a cosine of at least `GLOVE_DRIFT_COSINE` (hot -> warm,
   big -> huge, doctor -> nurse) or by graded similarity (a cosine of at least
   `GRADED_COSINE`, or of `GRADED_PAIR_COSINE` with Wu-Palmer `GRADED_PAIR_WUP`).
6. `support_copy`: a word of the two support pairs.
7. `semantic_drift` again, as a near miss of R(E) itself: a direct link, similar-to or a
   cosine of at least `NEAR_MISS_COSINE` to a one-word member (10 for viii, whose synonyms
   hold 8).
8. `other`.

Hand labels: tests/fixtures/lambda/taxonomy_labels.jsonl (288 development rows) and
taxonomy_validation.jsonl (260 fresh rows, sets A and B); `lambda_.validation` measures the
agreement (docs/benchmarks/lambda.md).
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lexbench.benchmarks.lambda_.drift import DriftFinder
from lexbench.text import edit_distance, normalise, words

ERROR_CLASSES = (
    "identity_echo",
    "surface_misfire",
    "semantic_drift",
    "format_failure",
    "support_copy",
    "no_answer",
    "other",
)
TRUNCATED_ECHO_MIN_LETTERS = 3

# Closed-class English words and the words of the answer guard: an output that starts with
# one of these is prose or scaffolding, not a one-word answer.
FORMAT_WORDS = frozenset(
    """
a an the this that these those it its i me my we our you your he she they them his her their
is are was were be been being am do does did have has had will would can could should shall
may might must to of in on at by for with from as into about than then so if or and but not
no yes here there what which who whom whose why how when where
answer answers answered word words line lines explain explanation complete completes
question example output input note sure okay ok hello hi please let lets
i'm i'll i've i'd it's that's there's here's what's let's you're we're they're
don't can't won't isn't
""".split()
)

# Inflectional and derivational suffixes, and prefixes, that make a form change of a stem.
SUFFIXES = frozenset(
    """
ess esses ette ettes let lets ling itude tude s es ed d ing er ers est ly ness ity ities ion ions
ation ations ition ment ments able ible
al ial ally ful fully less lessly ish ive ively ous ously ize ise ized ised izing ising ify
ified fication en ens ened ism ist ists ance ence ancy ency ant ent ure age ery ry y ic ical
ically ship hood dom ee eer or ors ward wards wise like
""".split()
)
PREFIXES = (
    "un",
    "in",
    "im",
    "il",
    "ir",
    "dis",
    "non",
    "re",
    "mis",
    "de",
    "anti",
    "counter",
    "over",
    "under",
    "pre",
    "post",
    "semi",
    "sub",
    "super",
    "out",
    "co",
    "a",
)

# WordNet's morphological detachment rules (morphy), to recognise inflected forms.
_DETACHMENT = (
    ("s", ""),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("ies", "y"),
    ("es", "e"),
    ("es", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
    ("er", ""),
    ("est", ""),
    ("er", "e"),
    ("est", "e"),
    ("ly", ""),
    ("ily", "y"),
)


def base_forms(word: str, exceptions: Mapping[str, Sequence[str]]) -> set[str]:
    """The word and every form WordNet's detachment rules or exception lists reduce it to."""
    forms = {word, *exceptions.get(word, ())}
    for suffix, replacement in _DETACHMENT:
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            stem = word[: len(word) - len(suffix)]
            forms.add(stem + replacement)
            # running -> runn -> run, bigger -> bigg -> big: undo consonant doubling.
            if (
                not replacement
                and len(stem) >= 3
                and stem[-1] == stem[-2]
                and stem[-1] not in "aeiou"
            ):
                forms.add(stem[:-1])
    return forms


def _is_suffix_tail(tail: str, stem: str) -> bool:
    """`tail` (what follows a shared stem) is empty, a suffix, or a suffix after the stem's
    last letter changed (happ-y / happ-iness) or doubled (run / run-ning)."""
    if tail == "" or tail in SUFFIXES:
        return True
    if tail[0] in "eiy" and (tail[1:] == "" or tail[1:] in SUFFIXES):
        return True
    return bool(stem) and tail[0] == stem[-1] and tail[1:] in SUFFIXES


def _undo_bility(word: str) -> str:
    """flexibility -> flexibleity: -ble + -ity is spelt -bility, which hides the shared stem."""
    return word[:-6] + "bleity" if word.endswith("bility") else word


def is_affix_variant(answer: str, query: str) -> bool:
    """One word is the other with an affix added or swapped (largely, happiness, unhappy,
    disembarkment / disembarkation): a shared stem of at least 3 letters and half the
    shorter word, followed in each by nothing or a known suffix."""
    answer, query = _undo_bility(answer), _undo_bility(query)
    for longer, shorter in ((answer, query), (query, answer)):
        for prefix in PREFIXES:
            if longer == prefix + shorter and len(shorter) >= 3:
                return True
    common = 0
    for x, y in zip(answer, query):
        if x != y:
            break
        common += 1
    shortest_stem = max(3, (min(len(answer), len(query)) + 1) // 2)
    # The stem may end a letter or two before the common prefix does (statu-e / statu-ette).
    for cut in range(common, max(shortest_stem, common - 2) - 1, -1):
        stem = answer[:cut]
        if _is_suffix_tail(answer[cut:], stem) and _is_suffix_tail(query[cut:], stem):
            return True
    return False


def is_surface_variant(answer: str, query: str, exceptions: Mapping[str, Sequence[str]]) -> bool:
    """A form change of the query (cat -> cats), not a different word: the two share a base
    form under WordNet's morphology, or one is the other with an affix added or swapped.
    Two real words one letter apart (house/mouse, price/prize) are different words; so are
    look-alikes whose leftovers are not affixes (carpet/carpenter). A hyphenated answer
    built on the query's stem (career-making for careerism) counts by its first part."""
    if answer == query:
        return False
    parts = [answer] + ([answer.split("-")[0]] if "-" in answer else [])
    return any(
        part != query
        and (
            base_forms(part, exceptions) & base_forms(query, exceptions)
            or is_affix_variant(part, query)
        )
        for part in parts
    )


_BRITISH = (
    (re.compile(r"is(?=e|es|ed|ing|ation|ations|er|ers)"), "iz"),
    (re.compile(r"yse"), "yze"),
    (re.compile(r"our"), "or"),
    (re.compile(r"ae"), "e"),
    (re.compile(r"oe"), "e"),
)


def spelling_key(word: str) -> str:
    """The word with hyphens and apostrophes dropped and British spellings made American
    (desensitising -> desensitizing, haemat -> hemat, re-examination -> reexamination)."""
    key = word.replace("-", "").replace("'", "")
    for pattern, replacement in _BRITISH:
        key = pattern.sub(replacement, key)
    return key


def is_spelling_echo(answer: str, query: str) -> bool:
    """The query respelt: hyphenated, or in British or American spelling."""
    return answer != query and spelling_key(answer) == spelling_key(query)


def is_truncated_echo(
    answer: str, query: str, output: str, lexicon: Container[str] | None = None
) -> bool:
    """A proper prefix of the query (3+ letters, spelling-normalised) that is the whole output
    and stops mid-word (no space, newline or punctuation after it): the shape of an echo cut
    off by the token budget (desecrate -> " desec"). A real word is not a truncated echo
    (" inept" for ineptitude is the stem, a surface misfire; "car" for carpet another word);
    without a `lexicon` every such prefix counts."""
    if len(answer) < TRUNCATED_ECHO_MIN_LETTERS or spelling_key(answer) == spelling_key(query):
        return False
    if not (query.startswith(answer) or spelling_key(query).startswith(spelling_key(answer))):
        return False
    if lexicon is not None and answer in lexicon:
        return False
    return bool(output) and output[-1].isalnum() and words(output) == [answer]


def is_misspelt_echo(answer: str, query: str, lexicon: Container[str] | None) -> bool:
    """A non-word within a small edit distance of the query (1 edit below 8 letters, else 2):
    the query misspelt (tautalization, othiose). Needs the `lexicon` to tell non-words."""
    if lexicon is None or answer in lexicon or min(len(answer), len(query)) < 4:
        return False
    limit = 1 if len(query) < 8 else 2
    return (
        min(
            edit_distance(answer, query, limit=limit),
            edit_distance(spelling_key(answer), spelling_key(query), limit=limit),
        )
        <= limit
    )


def is_format_failure(answer: str) -> bool:
    return answer in FORMAT_WORDS


# ------------------------------------------------------------------------------ classify


@dataclass(frozen=True)
class Verdict:
    answer: str
    correct: bool
    error_class: str  # "correct" or one of ERROR_CLASSES
    reason: str = ""  # what matched, for audits ("similar_to/also_see")


def classify(
    output: str,
    query: str,
    candidates: Sequence[str],
    support: Sequence[str],
    index: Any = None,
    drift: DriftFinder | None = None,
) -> Verdict:
    """Score `output` against the candidate set R(E), and file a wrong answer (see module doc).

    `index` (a RelationIndex) supplies WordNet's exception lists, lemma names and relation
    links; `drift` the wider relatedness tests (defaults to the index alone). Without
    either, semantic drift cannot be recognised and falls through to support_copy/other.
    """
    said = words(output)
    if not said:
        return Verdict("", False, "no_answer")
    for candidate in sorted({normalise(c) for c in candidates}, key=len, reverse=True):
        parts = candidate.split()
        if parts and said[: len(parts)] == parts:
            return Verdict(candidate, True, "correct")
    answer = said[0]
    query_n = normalise(query)
    if is_format_failure(answer):
        return Verdict(answer, False, "format_failure")
    if answer == query_n:
        return Verdict(answer, False, "identity_echo")
    if is_spelling_echo(answer, query_n):
        return Verdict(answer, False, "identity_echo", "respelt")
    exceptions = index.exceptions if index is not None else {}
    # Every WordNet lemma name has a first-sense POS entry: `pos` is the lexicon.
    lexicon = index.pos if index is not None else None
    if is_truncated_echo(answer, query_n, output, lexicon):
        return Verdict(answer, False, "identity_echo", "truncated")
    if is_surface_variant(answer, query_n, exceptions):
        return Verdict(answer, False, "surface_misfire")
    if is_misspelt_echo(answer, query_n, lexicon):
        return Verdict(answer, False, "identity_echo", "misspelt")
    if drift is None and index is not None:
        drift = DriftFinder(related=index)
    if drift is not None:
        why = drift.reason(answer, query)
        if why:
            return Verdict(answer, False, "semantic_drift", why)
    if answer in {normalise(w) for w in support}:
        return Verdict(answer, False, "support_copy")
    # A near miss of R(E) itself (10 for viii, whose synonyms hold 8), after the support
    # copies: a copied support word close to an answer is still a copy.
    why = drift.near_miss(answer, candidates) if drift is not None else None
    if why:
        return Verdict(answer, False, "semantic_drift", why)
    return Verdict(answer, False, "other")
