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
   big -> huge, doctor -> nurse).
6. `support_copy`: a word of the two support pairs.
7. `other`.

tests/fixtures/lambda/taxonomy_labels.jsonl holds 288 wrong SmolLM2 answers labelled by
hand; tests/benchmarks/test_lambda_taxonomy.py measures the agreement per class (the README, LAMBDA).
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from lexbench.lexicon.wordnet_senses import SenseTable
from lexbench.text import edit_distance, normalise, words

ERROR_CLASSES = ("identity_echo", "surface_misfire", "semantic_drift", "format_failure",
                 "support_copy", "no_answer", "other")
# Cosine between GloVe 6B 50d vectors above which two words count as related in meaning:
# 50-d GloVe puts look-alike and merely topical pairs up to about 0.58 (light / night), and
# near-synonyms above 0.7 (hot / warm 0.75, big / huge 0.79, doctor / nurse 0.80).
GLOVE_DRIFT_COSINE = 0.6
# Wu-Palmer similarity (noun and verb hierarchies) above which two senses are close in meaning.
WUP_DRIFT_SIMILARITY = 0.8
TRUNCATED_ECHO_MIN_LETTERS = 3

# Closed-class English words and the words of the answer guard: an output that starts with
# one of these is prose or scaffolding, not a one-word answer.
FORMAT_WORDS = frozenset("""
a an the this that these those it its i me my we our you your he she they them his her their
is are was were be been being am do does did have has had will would can could should shall
may might must to of in on at by for with from as into about than then so if or and but not
no yes here there what which who whom whose why how when where
answer answers answered word words line lines explain explanation complete completes
question example output input note sure okay ok hello hi please let lets
""".split())

# Inflectional and derivational suffixes, and prefixes, that make a form change of a stem.
SUFFIXES = frozenset("""
ess esses ette ettes let lets ling itude tude s es ed d ing er ers est ly ness ity ities ion ions ation ations ition ment ments able ible
al ial ally ful fully less lessly ish ive ively ous ously ize ise ized ised izing ising ify
ified fication en ens ened ism ist ists ance ence ancy ency ant ent ure age ery ry y ic ical
ically ship hood dom ee eer or ors ward wards wise like
""".split())
PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non", "re", "mis", "de", "anti", "counter",
            "over", "under", "pre", "post", "semi", "sub", "super", "out", "co", "a")

# WordNet's morphological detachment rules (morphy), to recognise inflected forms.
_DETACHMENT = (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
               ("shes", "sh"), ("men", "man"), ("ies", "y"), ("es", "e"), ("es", ""),
               ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""), ("er", ""), ("est", ""),
               ("er", "e"), ("est", "e"), ("ly", ""), ("ily", "y"))
_GLOSS_WORD = re.compile(r"[a-z]+(?:[-'][a-z]+)*")


def base_forms(word: str, exceptions: Mapping[str, Sequence[str]]) -> set[str]:
    """The word and every form WordNet's detachment rules or exception lists reduce it to."""
    forms = {word, *exceptions.get(word, ())}
    for suffix, replacement in _DETACHMENT:
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            stem = word[: len(word) - len(suffix)]
            forms.add(stem + replacement)
            # running -> runn -> run, bigger -> bigg -> big: undo consonant doubling.
            if not replacement and len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiou":
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
    return any(part != query and (base_forms(part, exceptions) & base_forms(query, exceptions)
                                  or is_affix_variant(part, query)) for part in parts)


_BRITISH = ((re.compile(r"is(?=e|es|ed|ing|ation|ations|er|ers)"), "iz"),
            (re.compile(r"yse"), "yze"), (re.compile(r"our"), "or"),
            (re.compile(r"ae"), "e"), (re.compile(r"oe"), "e"))


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


def is_truncated_echo(answer: str, query: str, output: str,
                      lexicon: Container[str] | None = None) -> bool:
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
    return min(edit_distance(answer, query, limit=limit),
               edit_distance(spelling_key(answer), spelling_key(query), limit=limit)) <= limit


def is_format_failure(answer: str) -> bool:
    return answer in FORMAT_WORDS


# ------------------------------------------------------------------------------ drift
#
# Scoring asks the same questions many times over (a run of 3,000 items reaches about 30,000
# distinct index neighbours, and answers repeat), so every per-word and per-sense answer is
# computed once and kept on the DriftFinder. The memos change no verdict: each stands for
# exactly the expression it replaces (tests/benchmarks/test_lambda_speed_equivalence.py).


class NormalForms(dict[str, str]):
    """`forms[word]` is `normalise(word)`, computed once per distinct word: the index's
    neighbourhoods share most of their words, and a dictionary hit costs no Python call."""

    def __missing__(self, word: str) -> str:
        # A lowercase ASCII letter string is its own normal form: skip the Unicode and regex
        # work for it (most index words are such strings).
        form = word if word.isalpha() and word.isascii() and word.islower() else normalise(word)
        self[word] = form
        return form


@dataclass(frozen=True)
class SenseFacts:
    """What the WordNet signals read from a word's senses, gathered once per word."""

    senses: frozenset[int]
    similar: frozenset[int]           # similar-to and also-see senses of any sense
    parents: frozenset[int]           # direct (and instance) hypernyms of any sense
    lemma_words: frozenset[str]       # one-word lemma names: the word and its synonyms
    gloss_words: frozenset[str]       # the words of the senses' definitions

    @classmethod
    def of(cls, table: SenseTable, senses: Sequence[int]) -> SenseFacts:
        return cls(
            senses=frozenset(senses),
            similar=frozenset(t for s in senses for t in table.similar[s]),
            parents=frozenset(p for s in senses for p in table.hypernyms[s]),
            lemma_words=frozenset(name.lower() for s in senses for name in table.lemmas[s]
                                  if "_" not in name),
            gloss_words=frozenset(w for s in senses
                                  for w in _GLOSS_WORD.findall(table.definitions[s].lower())))


@dataclass
class DriftFinder:
    """Tells whether two words are related in meaning, from WordNet and (optionally) GloVe.

    `related` are the relation index's tables (any relation, either direction); `senses`
    is the WordNet's sense table (`lexicon.wordnet_senses`) for similar-to, also-see,
    hypernyms, Wu-Palmer and glosses (None: only the index is used); `vectors` a
    `WordVectors` or `LazyPackagedGlove` (None: no cosine test). Answers are memoised per
    word, per sense pair and per (answer, query).
    """

    related: Any                      # RelationIndex
    senses: SenseTable | None = None
    vectors: Any = None
    cosine_threshold: float = GLOVE_DRIFT_COSINE
    _synsets: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False)
    _normal: NormalForms = field(default_factory=NormalForms, repr=False)
    _neighbours: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)
    _searchable: dict[str, str] = field(default_factory=dict, repr=False)
    _facts: dict[str, SenseFacts] = field(default_factory=dict, repr=False)
    _wup: dict[tuple[int, int], float] = field(default_factory=dict, repr=False)
    _reasons: dict[tuple[str, str], str | None] = field(default_factory=dict, repr=False)

    @property
    def signals(self) -> list[str]:
        out = ["wordnet-index"]
        if self.senses is not None:
            out.append(f"wordnet-similar-also-sister-wup>={WUP_DRIFT_SIMILARITY}-gloss")
        if self.vectors is not None:
            out.append(f"{self.vectors.name}-cosine>={self.cosine_threshold}")
        return out

    def reason(self, answer: str, query: str) -> str | None:
        """Why the two are related ("wordnet:synonym", "similar_to", "glove:0.71"), or None."""
        key = (answer, query)
        if key not in self._reasons:
            self._reasons[key] = self._reason(answer, query)
        return self._reasons[key]

    def _reason(self, answer: str, query: str) -> str | None:
        answer_n, query_n = normalise(answer), normalise(query)
        if answer_n in self.neighbourhood(query):
            return "wordnet-index"
        if query_n in self.neighbourhood(answer.replace(" ", "_")):
            return "wordnet-index"
        if self._within_two_links(answer_n, query):
            return "wordnet-index-2-hops"
        if self.senses is not None:
            found = self._wordnet_reason(answer_n, query_n)
            if found:
                return found
        if self.vectors is not None:
            cosine = self.cosine(answer_n, query_n)
            if cosine is not None and cosine >= self.cosine_threshold:
                return f"glove:{cosine:.2f}"
        return None

    def neighbourhood(self, word: str) -> frozenset[str]:
        """The normalised words one indexed link from `word` (any relation, either way)."""
        found = self._neighbours.get(word)
        if found is None:
            found = self._neighbours[word] = frozenset(
                map(self._normal.__getitem__, self.related.all_related(word)))
        return found

    def _within_two_links(self, answer_n: str, word: str) -> bool:
        """`answer_n` is two indexed links or fewer from `word` (enclothe -> clothe ->
        conceal), tested neighbour by neighbour instead of building the whole union."""
        if answer_n in self.neighbourhood(word):
            return True
        one_word = " " not in answer_n
        for neighbour in self.related.all_related(word):
            key = neighbour.replace(" ", "_")
            if one_word and not self._may_name(answer_n, key):
                continue
            if answer_n in self.neighbourhood(key):
                return True
        return False

    def _may_name(self, answer_n: str, word: str) -> bool:
        """False only when no name linked to `word` can normalise to the one-word `answer_n`:
        a name that does holds it as a substring once underscores are spaces and letters
        lowercase (for ASCII names, `normalise` does nothing else but cut it into words), so
        one search of the joined names spares normalising each (most neighbours fail it)."""
        names = self._searchable.get(word)
        if names is None:
            joined = self.related.joined_related(word)
            names = self._searchable[word] = joined.replace("_", " ").lower() if joined.isascii() else ""
        return not names or answer_n in names

    def cosine(self, a: str, b: str) -> float | None:
        if self.vectors is None or a not in self.vectors or b not in self.vectors:
            return None
        return float(self.vectors.unit_vector(a) @ self.vectors.unit_vector(b))

    def _senses(self, word: str) -> tuple[int, ...]:
        """`wn.synsets(word)` (phrases joined by underscores), as sense numbers."""
        found = self._synsets.get(word)
        if found is None:
            assert self.senses is not None
            found = self._synsets[word] = tuple(self.senses.synsets(word.replace(" ", "_")))
        return found

    def _sense_facts(self, word: str) -> SenseFacts:
        if word not in self._facts:
            assert self.senses is not None
            self._facts[word] = SenseFacts.of(self.senses, self._senses(word))
        return self._facts[word]

    def _wu_palmer(self, a: int, b: int) -> float:
        """`a.wup_similarity(b) or 0.0`, once per sense pair."""
        key = (a, b)
        if key not in self._wup:
            assert self.senses is not None
            self._wup[key] = self.senses.wup_similarity(a, b) or 0.0
        return self._wup[key]

    def _wordnet_reason(self, answer: str, query: str) -> str | None:
        answer_senses, query_senses = self._senses(answer), self._senses(query)
        if not answer_senses or not query_senses:
            return None
        answer_facts, query_facts = self._sense_facts(answer), self._sense_facts(query)
        if answer_facts.senses & query_facts.similar or query_facts.senses & answer_facts.similar:
            return "similar_to/also_see"
        # Sister terms: a direct hypernym in common (doctor.v / nurse.v under treat.v.03).
        if query_facts.parents & answer_facts.parents:
            return "sister_term"
        # Close in the noun or verb hierarchy (Wu-Palmer): abbey / palace are both buildings.
        pos = self.senses.pos_letters  # type: ignore[union-attr]
        best = max((self._wu_palmer(a, q) for a in answer_senses for q in query_senses
                    if pos[a] == pos[q] and pos[a] in "nv"), default=0.0)
        if best >= WUP_DRIFT_SIMILARITY:
            return f"wu-palmer:{best:.2f}"
        # Glosses: a definition of one names the other or one of its synonyms.
        if query_facts.gloss_words & answer_facts.lemma_words or \
                answer_facts.gloss_words & query_facts.lemma_words:
            return "gloss"
        return None


def open_drift_finder_resources(wordnet: str | None, use_vectors: bool) -> tuple[SenseTable, Any]:
    """The WordNet's sense table and (when installed and asked for) the packaged GloVe
    vectors, opened once per process for each prepared WordNet (its directory and content)."""
    from lexbench.lexicon.wordnet import fingerprint, locate_wordnet

    directory = locate_wordnet(wordnet, allow_install=False)
    return _drift_resources(directory, fingerprint(directory), use_vectors)


@lru_cache(maxsize=4)
def _drift_resources(directory: Path, content: str, use_vectors: bool) -> tuple[SenseTable, Any]:
    """Keyed by the prepared directory and its content fingerprint: two WordNets in one
    process (a test's tiny one beside the real one) never share a sense table."""
    from lexbench.lexicon.wordnet_senses import load_sense_table

    senses = load_sense_table(directory, content, progress=True)
    vectors = None
    if use_vectors:
        from lexbench.lexicon.vectors import LazyPackagedGlove

        try:
            # Read on the first cosine test, and then only the rows asked for.
            vectors = LazyPackagedGlove()
        except FileNotFoundError:
            vectors = None      # the `vectors` extra is not installed: WordNet signals only
    return senses, vectors


def drift_finder(index: Any, *, wordnet: str | None = None, use_vectors: bool = True) -> DriftFinder:
    """The full drift finder for a relation index: WordNet's sense table, and GloVe if
    installed. The sense table must come from the WordNet the index was built from; a
    mismatch is an error.
    """
    from lexbench.lexicon.wordnet import fingerprint, locate_wordnet

    directory = locate_wordnet(wordnet, allow_install=False)
    content = fingerprint(directory)
    if content != index.fingerprint:
        raise ValueError(f"the WordNet at {directory} is not the one the relation index was "
                         f"built from (fingerprints differ); pass the same --wordnet")
    senses, vectors = _drift_resources(directory, content, use_vectors)
    return DriftFinder(related=index, senses=senses, vectors=vectors)


# ------------------------------------------------------------------------------ classify


@dataclass(frozen=True)
class Verdict:
    answer: str
    correct: bool
    error_class: str                    # "correct" or one of ERROR_CLASSES
    reason: str = ""                    # what matched, for audits ("similar_to/also_see")


def classify(output: str, query: str, candidates: Sequence[str], support: Sequence[str],
             index: Any = None, drift: DriftFinder | None = None) -> Verdict:
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
    return Verdict(answer, False, "other")
