"""LAMBDA from a real wordnet in another language, measured, not shipped: the Turkish KeNet
(the `turkish_wordnet.xml` of PyPI's `nlptoolkit-wordnet`, whose licence is unstated, so no
data of it is committed and no test depends on it) written as WN-LMF, then drawn from with
`--wordnet-lmf` rules: items per relation, eligible query words, candidate-set sizes and
sample items.

    /work/main/.venv/bin/pip install --no-deps nlptoolkit-wordnet==1.0.26   # the data only
    .venv/bin/python measurements/studies/lambda_lmf_kenet.py [--kenet turkish_wordnet.xml]

KeNet's own XML (`<SYNSET>`: `<ID>`, `<SYNONYM><LITERAL>word<SENSE>n</SENSE></LITERAL>`,
`<POS>`, `<SR>target<TYPE>...</TYPE></SR>`) maps onto WN-LMF as: a literal is a sense of the
entry (literal, part of speech); a synset's `<SR>` a `SynsetRelation` (ANTONYM -> antonym,
DERIVATION_RELATED -> derivation, HYPERNYM -> hypernym, PART_MERONYM -> mero_part, ...); a
literal's `<SR>` a relation of that literal's sense, to the `<TO>`-th literal of the target
synset when given, else to the target synset. Parts of speech: n, v, a; KeNet's b (adverb)
-> r; c (conjunction) -> c; p (preposition) -> p; i (interjection) and r (pronoun) -> x.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<!DOCTYPE LexicalResource SYSTEM "http://globalwordnet.github.io/schemas/WN-LMF-1.0.dtd">\n'
    '<LexicalResource xmlns:dc="https://globalwordnet.github.io/schemas/dc/">\n'
)
POS = {"n": "n", "v": "v", "a": "a", "b": "r", "c": "c", "p": "p", "i": "x", "r": "x"}
TYPES = {
    "ANTONYM": "antonym",
    "DERIVATION_RELATED": "derivation",
    "HYPERNYM": "hypernym",
    "HYPONYM": "hyponym",
    "INSTANCE_HYPERNYM": "instance_hypernym",
    "INSTANCE_HYPONYM": "instance_hyponym",
    "PART_MERONYM": "mero_part",
    "MEMBER_MERONYM": "mero_member",
    "SUBSTANCE_MERONYM": "mero_substance",
    "PART_HOLONYM": "holo_part",
    "MEMBER_HOLONYM": "holo_member",
    "SUBSTANCE_HOLONYM": "holo_substance",
    "DOMAIN_TOPIC": "domain_topic",
    "MEMBER_TOPIC": "has_domain_topic",
    "ATTRIBUTE": "attribute",
    "ALSO_SEE": "also",
}
RELATIONS = ("synonym", "antonym", "derivation", "hypernym", "hyponym", "meronym", "holonym")


def kenet_file() -> Path:
    spec = importlib.util.find_spec("WordNet")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("nlptoolkit-wordnet is not installed (see this script's doc)")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "turkish_wordnet.xml"


def convert(kenet: Path, out: Path) -> Counter[str]:
    """Write KeNet as WN-LMF; returns what was written and what was left out."""
    counts: Counter[str] = Counter()
    synsets: dict[str, dict] = {}
    for node in ET.parse(kenet).getroot():
        synset_id = node.findtext("ID")
        if not synset_id:
            counts["synsets without id (left out)"] += 1
            continue
        literals, relations = [], []
        for literal in node.iterfind("SYNONYM/LITERAL"):
            word = (literal.text or "").strip()
            links = [(sr.text, sr.findtext("TYPE"), sr.findtext("TO")) for sr in literal.iter("SR")]
            if word:
                literals.append((word, links))
        for sr in node.iterfind("SR"):
            relations.append((sr.text, sr.findtext("TYPE")))
        synsets[synset_id] = {
            "pos": POS.get(node.findtext("POS") or "", "x"),
            "literals": literals,
            "relations": relations,
        }
    sense_id: dict[tuple[str, int], str] = {}
    entries: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    for synset_id, synset in synsets.items():
        for number, (word, _) in enumerate(synset["literals"]):
            sense_id[synset_id, number] = f"s{len(sense_id)}"
            entries[word, synset["pos"]].append((synset_id, number))
    with open(out, "w", encoding="utf-8") as file:
        file.write(HEADER)
        file.write(
            '  <Lexicon id="kenet" label="KeNet (Turkish WordNet), converted by lexbench" '
            'language="tr" email="none@example.org" license="unstated" version="1.0.26">\n'
        )
        for number, ((word, pos), senses) in enumerate(sorted(entries.items())):
            file.write(f'    <LexicalEntry id="e{number}"><Lemma writtenForm={quoteattr(word)} '
                       f'partOfSpeech="{pos}"/>\n')  # fmt: skip
            for synset_id, literal in senses:
                file.write(
                    f'      <Sense id="{sense_id[synset_id, literal]}" synset="{synset_id}">'
                )
                for target, kind, to in synsets[synset_id]["literals"][literal][1]:
                    lmf_kind = TYPES.get(kind or "")
                    if lmf_kind is None or target not in synsets:
                        counts["literal relations left out"] += 1
                        continue
                    goal = sense_id.get((target, int(to) - 1)) if to else target
                    if goal is None:
                        counts["literal relations left out"] += 1
                        continue
                    file.write(f'<SenseRelation relType="{lmf_kind}" target="{goal}"/>')
                    counts[f"sense {lmf_kind}"] += 1
                file.write("</Sense>\n")
            file.write("    </LexicalEntry>\n")
        for synset_id, synset in synsets.items():
            file.write(
                f'    <Synset id="{escape(synset_id)}" ili="" partOfSpeech="{synset["pos"]}">'
            )
            for target, kind in synset["relations"]:
                lmf_kind = TYPES.get(kind or "")
                if lmf_kind is None or target not in synsets:
                    counts["synset relations left out"] += 1
                    continue
                file.write(f'<SynsetRelation relType="{lmf_kind}" target="{target}"/>')
                counts[f"synset {lmf_kind}"] += 1
            file.write("</Synset>\n")
        file.write("  </Lexicon>\n</LexicalResource>\n")
    counts["synsets"], counts["senses"], counts["entries"] = (
        len(synsets),
        len(sense_id),
        len(entries),
    )
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kenet", default=None, help="KeNet's turkish_wordnet.xml")
    parser.add_argument("--samples", type=int, default=3, help="sample items per relation")
    options = parser.parse_args()
    kenet = Path(options.kenet) if options.kenet else kenet_file()
    from lexbench.benchmarks.lambda_.items import LambdaConfig, partners, vocabulary
    from lexbench.benchmarks.lambda_.lmf import LanguageFilter, WordSource, lambda_dataset

    with tempfile.TemporaryDirectory() as folder:
        os.environ["LEXBENCH_CACHE"] = str(Path(folder) / "cache")
        lmf = Path(folder) / "kenet.xml"
        started = time.process_time()
        counts = convert(kenet, lmf)
        spent = time.process_time() - started
        print(f"KeNet {kenet} ({kenet.stat().st_size / 1e6:.1f} MB) -> WN-LMF "
              f"({lmf.stat().st_size / 1e6:.1f} MB) in {spent:.1f} s CPU")  # fmt: skip
        for name, count in sorted(counts.items()):
            print(f"  {name}: {count:,}")
        from lexbench.lexicon.wordnet.lmf import lmf_index

        started = time.process_time()
        index = lmf_index(lmf, relations=RELATIONS)
        print(f"index built in {time.process_time() - started:.1f} s CPU: "
              f"{len(index.lemma_names):,} lemmas")  # fmt: skip
        keep = LanguageFilter()
        words = vocabulary(index, "strict", keep)
        print(f"strict vocabulary (language-aware filter): {len(words):,} words\n")
        print("| relation | words with links | eligible queries | items (of 1,000) | "
              "candidate set mean / median / max |")  # fmt: skip
        print("|---|---:|---:|---:|---|")
        samples = {}
        for relation in RELATIONS:
            eligible = [w for w in words if partners(index, relation, w, "strict", keep)]
            try:
                drawn = lambda_dataset(
                    LambdaConfig(relations=(relation,)),
                    WordSource(wordnet_lmf=str(lmf)),
                    progress=False,
                ).items
            except ValueError as error:
                print(f"| {relation} | {len(index.related[relation]):,} | {len(eligible):,} | "
                      f"none: {error} | — |", file=sys.stdout)  # fmt: skip
                continue
            sizes = [len(item.candidates) for item in drawn]
            print(f"| {relation} | {len(index.related[relation]):,} | {len(eligible):,} | "
                  f"{len(drawn):,} | {statistics.mean(sizes):.2f} / "
                  f"{statistics.median(sizes):g} / {max(sizes)} |")  # fmt: skip
            samples[relation] = drawn[: options.samples]
        print()
        for relation, items in samples.items():
            for item in items:
                (a, b), (c, d) = item.support
                print(f"{relation}: {a} : {b} :: {c} : {d} :: {item.query} : ? "
                      f"-> {item.gold}  (R(E) = {', '.join(item.candidates[:6])}"
                      f"{', …' if len(item.candidates) > 6 else ''})")  # fmt: skip
        print(f"\nload average (1, 5, 15 min): {os.getloadavg()}, CPUs: {os.cpu_count()}")


if __name__ == "__main__":
    main()
