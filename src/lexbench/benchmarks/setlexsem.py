"""SetLexSem: set operations over controlled lexical and semantic variation.

A model is asked for A ∪ B, A ∩ B, A ∖ B or A △ B where the members of A and B are
controlled (numbers or words, their length, their corpus frequency, their meaning). The
figure of merit is the spread of accuracy across these incidental variations.

The pieces, one module each:

* `setlexsem_sets`: operations, ground truth, the samplers (numbers, words, deciles,
  overlap, deceptive WordNet hyponyms);
* `setlexsem_grid`: the grid of configurations (paper, small, or a TOML/Python file),
  validated strictly;
* `setlexsem_prompts`: the prompt text;
* `setlexsem_parse`: answer parsing and per-item metrics;
* `setlexsem_analysis`: the paper's tables, the error analysis and the violin plots;
* this module: items, deterministic generation, the `Benchmark` and the Python API.

Generation is deterministic: for each set configuration (token type, operand size, token
length, number range, overlap, decile, deceptive condition) a `random.Random` seeded with a
string naming it draws the test pairs, and a second stream draws the demonstrations. So A
and B are the same across operations, k, methods and phrasings (and across studies), and the
demonstrations for k = 1 are the first of those for k = 3 and k = 5. A configuration that
appears in two studies is generated once; its row lists both studies.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexbench.benchmarks.setlexsem_grid import Grid, Study, resolve_grid
from lexbench.benchmarks.setlexsem_parse import lenient_parse, parse_answer, score_answer
from lexbench.benchmarks.setlexsem_prompts import demonstration, prompt_text
from lexbench.benchmarks.setlexsem_sets import (
    HyponymPool,
    Member,
    SetPair,
    decile_pool,
    draw_deceptive,
    draw_independent,
    draw_overlapping,
    ground_truth,
    load_hyponym_pools,
    number_pool,
    overlap_size,
    sort_members,
    word_pool,
)
from lexbench.types import Decoding, Request, Response, Score

NAME = "setlexsem"
ANSWER_STOP = "</answer>"


# ------------------------------------------------------------------------------ items


@dataclass(frozen=True)
class SetLexSemItem:
    """One prompt with every hyperparameter that made it."""

    id: str
    config_id: str
    studies: tuple[str, ...]
    token_type: str
    operation: str
    m: int
    token_length: int | None
    number_range: int | None
    overlap: float | None
    decile: int | None
    decile_scope: str | None
    deceptive_condition: str | None
    k: int
    method: str
    phrasing: str
    prompt_index: int
    seed: int
    set_a: tuple[Member, ...]
    set_b: tuple[Member, ...]
    answer: tuple[Member, ...]                # sorted ground truth
    demonstrations: tuple[SetPair, ...]
    hypernym_a: str | None
    hypernym_b: str | None
    swapped: int
    decoding: Mapping[str, Any]
    prompt: str

    @property
    def answer_size(self) -> int:
        return len(self.answer)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "config_id": self.config_id, "studies": list(self.studies),
            "token_type": self.token_type, "operation": self.operation, "m": self.m,
            "token_length": self.token_length, "number_range": self.number_range,
            "overlap": self.overlap, "decile": self.decile, "decile_scope": self.decile_scope,
            "deceptive_condition": self.deceptive_condition, "k": self.k, "method": self.method,
            "phrasing": self.phrasing, "prompt_index": self.prompt_index, "seed": self.seed,
            "set_a": list(self.set_a), "set_b": list(self.set_b), "answer": list(self.answer),
            "answer_size": self.answer_size,
            "demonstrations": [[list(a), list(b)] for a, b in self.demonstrations],
            "hypernym_a": self.hypernym_a, "hypernym_b": self.hypernym_b,
            "swapped": self.swapped, "decoding": dict(self.decoding), "prompt": self.prompt,
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> SetLexSemItem:
        try:
            return cls(
                id=str(row["id"]), config_id=str(row["config_id"]),
                studies=tuple(row["studies"]), token_type=str(row["token_type"]),
                operation=str(row["operation"]), m=int(row["m"]),
                token_length=row["token_length"], number_range=row["number_range"],
                overlap=row["overlap"], decile=row["decile"], decile_scope=row["decile_scope"],
                deceptive_condition=row["deceptive_condition"], k=int(row["k"]),
                method=str(row["method"]), phrasing=str(row["phrasing"]),
                prompt_index=int(row["prompt_index"]), seed=int(row["seed"]),
                set_a=tuple(row["set_a"]), set_b=tuple(row["set_b"]),
                answer=tuple(row["answer"]),
                demonstrations=tuple((tuple(a), tuple(b)) for a, b in row["demonstrations"]),
                hypernym_a=row.get("hypernym_a"), hypernym_b=row.get("hypernym_b"),
                swapped=int(row.get("swapped", 0)), decoding=dict(row["decoding"]),
                prompt=str(row["prompt"]))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a SetLexSem item row ({error!r}): {dict(row)!r:.200}") from None

    def request_decoding(self) -> Decoding:
        values = dict(self.decoding)
        values["stop"] = tuple(values.get("stop", ()))
        return Decoding(**values)


# ------------------------------------------------------------------------------ configurations


def _length_label(length: int | None) -> str:
    return "any" if length is None else str(length)


def set_key(config: Mapping[str, Any]) -> str:
    """Names a set-drawing configuration. `swapped` shares the `not_swapped` stream so the two
    deceptive conditions are paired (same hypernyms, same members before the swap)."""
    condition = config["deceptive_condition"]
    stream = {"not_swapped": "hyponyms", "swapped": "hyponyms"}.get(condition, condition)
    return (f"{config['token_type']}|L={_length_label(config['token_length'])}"
            f"|n={config['number_range']}|decile={config['decile']}|scope={config['decile_scope']}"
            f"|overlap={config['overlap']}|deceptive={stream}|m={config['m']}")


def config_id(set_config: Mapping[str, Any], prompt_config: Mapping[str, Any]) -> str:
    """A readable id, e.g. `numbers/L3/m4/union/k1/baseline/formal`."""
    parts = [set_config["token_type"]]
    if set_config["token_type"] == "deceptive":
        parts.append(set_config["deceptive_condition"])
    else:
        parts.append(f"L{_length_label(set_config['token_length'])}")
    if set_config["number_range"] is not None:
        parts.append(f"n{set_config['number_range']}")
    if set_config["decile"] is not None:
        scope = "" if set_config["decile_scope"] == "length" else "g"
        parts.append(f"d{set_config['decile']}{scope}")
    if set_config["overlap"] is not None:
        parts.append(f"ov{set_config['overlap']:g}")
    parts += [f"m{set_config['m']}", prompt_config["operation"], f"k{prompt_config['k']}",
              prompt_config["method"], prompt_config["phrasing"]]
    return "/".join(parts)


@dataclass
class _Draws:
    """The pairs drawn for one set configuration: tests first, demonstrations on demand."""

    tests: list[SetPair]
    demo_rng: random.Random
    sampler: Any
    demos: list[SetPair] = field(default_factory=list)
    meta: list[tuple[str | None, str | None, int]] = field(default_factory=list)

    def demonstrations(self, k: int, where: str) -> list[SetPair]:
        taken = {_pair_key(p) for p in self.tests} | {_pair_key(p) for p in self.demos}
        attempts = 0
        while len(self.demos) < k:
            attempts += 1
            if attempts > 1000 + 100 * k:
                raise ValueError(f"{where}: could not draw {k} demonstrations different from "
                                 f"the test sets; the pool is too small")
            pair = self.sampler(self.demo_rng)[0]
            if _pair_key(pair) not in taken:
                taken.add(_pair_key(pair))
                self.demos.append(pair)
        return self.demos[:k]


def _pair_key(pair: SetPair) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    return (tuple(sort_members(list(pair[0]))), tuple(sort_members(list(pair[1]))))


class ItemGenerator:
    """Generates a grid's items in a fixed order, drawing each set configuration once."""

    def __init__(self, grid: Grid, wordnet: str | None = None):
        self.grid = grid
        self.wordnet = wordnet
        self._draws: dict[str, _Draws] = {}
        self._pools: tuple[HyponymPool, ...] | None = None
        self._demo_text: dict[tuple[str, str, int], str] = {}

    def hyponym_pools(self) -> tuple[HyponymPool, ...]:
        if self._pools is None:
            self._pools = load_hyponym_pools(self.wordnet)
        return self._pools

    def _sampler(self, config: Mapping[str, Any], where: str) -> Any:
        """A function rng -> (pair, (hypernym_a, hypernym_b, swapped)), pool size checked."""
        m = config["m"]
        token_type = config["token_type"]
        if token_type == "deceptive":
            pools = self.hyponym_pools()
            condition = config["deceptive_condition"]

            def deceptive(rng: random.Random) -> tuple[SetPair, tuple[str | None, str | None, int]]:
                try:
                    drawn = draw_deceptive(rng, pools, m, condition)
                except ValueError as error:
                    raise ValueError(f"{where}: {error}") from None
                return (drawn.a, drawn.b), (drawn.hypernym_a, drawn.hypernym_b, drawn.swapped)

            return deceptive
        if token_type == "numbers":
            pool: Sequence[Member] = number_pool(config["token_length"], config["number_range"])
        elif token_type == "words":
            pool = word_pool(config["token_length"])
        else:
            pool = decile_pool(config["decile"], config["token_length"], config["decile_scope"])
        overlap = config["overlap"]
        needed = m if overlap is None else 2 * m - overlap_size(m, overlap)
        if len(pool) < needed:
            raise ValueError(f"{where}: the pool has {len(pool)} members but sets of {m}"
                             + ("" if overlap is None else f" with overlap {overlap:g}")
                             + f" need at least {needed}; remove this cell from the grid")

        def plain(rng: random.Random) -> tuple[SetPair, tuple[None, None, int]]:
            if overlap is None:
                return draw_independent(rng, pool, m), (None, None, 0)
            return draw_overlapping(rng, pool, m, overlap), (None, None, 0)

        return plain

    def draws(self, config: Mapping[str, Any], where: str) -> _Draws:
        key = set_key(config)
        if config["deceptive_condition"] is not None:
            key += f"|condition={config['deceptive_condition']}"
        if key in self._draws:
            return self._draws[key]
        sampler = self._sampler(config, where)
        seed = self.grid.seed
        rng = random.Random(f"setlexsem:{seed}:{set_key(config)}:tests")
        tests: list[SetPair] = []
        meta: list[tuple[str | None, str | None, int]] = []
        seen: set[Any] = set()
        attempts = 0
        while len(tests) < self.grid.prompts_per_config:
            attempts += 1
            if attempts > 1000 + 20 * self.grid.prompts_per_config:
                raise ValueError(f"{where}: could not draw {self.grid.prompts_per_config} "
                                 f"different pairs of sets; the pool is too small")
            pair, info = sampler(rng)
            if _pair_key(pair) in seen:
                continue
            seen.add(_pair_key(pair))
            tests.append(pair)
            meta.append(info)
        demo_rng = random.Random(f"setlexsem:{seed}:{set_key(config)}:demonstrations")
        draws = _Draws(tests=tests, demo_rng=demo_rng, sampler=sampler, meta=meta)
        self._draws[key] = draws
        return draws

    def _demonstration_text(self, key: str, operation: str, index: int, pair: SetPair) -> str:
        cache_key = (key, operation, index)
        text = self._demo_text.get(cache_key)
        if text is None:
            text = demonstration(operation, pair[0], pair[1])
            self._demo_text[cache_key] = text
        return text

    def configurations(self) -> Iterator[tuple[Study, dict[str, Any], dict[str, Any], str]]:
        for study in self.grid.studies:
            for set_config in study.set_configs():
                for prompt_config in study.prompt_configs():
                    yield study, set_config, prompt_config, config_id(set_config, prompt_config)

    def studies_by_config(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for study, _, _, cid in self.configurations():
            names = out.setdefault(cid, [])
            if study.name not in names:
                names.append(study.name)
        return out

    def items(self) -> Iterator[SetLexSemItem]:
        studies = self.studies_by_config()
        emitted: set[str] = set()
        for study, set_config, prompt_config, cid in self.configurations():
            if cid in emitted:
                continue
            emitted.add(cid)
            where = f"study {study.name!r}, configuration {cid}"
            draws = self.draws(set_config, where)
            k = prompt_config["k"]
            demos = draws.demonstrations(k, where)
            key = set_key(set_config) + f"|{set_config['deceptive_condition']}"
            operation = prompt_config["operation"]
            decoding = self.grid.decoding.for_method(prompt_config["method"]).to_dict()
            for index, ((a, b), (hyper_a, hyper_b, swapped)) in enumerate(zip(draws.tests, draws.meta)):
                demo_texts = [self._demonstration_text(key, operation, i, pair)
                              for i, pair in enumerate(demos)]
                text = prompt_text(a, b, operation, prompt_config["method"],
                                   prompt_config["phrasing"], demos, demo_texts)
                yield SetLexSemItem(
                    id=f"{cid}/{index:02d}", config_id=cid, studies=tuple(studies[cid]),
                    token_type=set_config["token_type"], operation=operation, m=set_config["m"],
                    token_length=set_config["token_length"],
                    number_range=set_config["number_range"], overlap=set_config["overlap"],
                    decile=set_config["decile"], decile_scope=set_config["decile_scope"],
                    deceptive_condition=set_config["deceptive_condition"], k=k,
                    method=prompt_config["method"], phrasing=prompt_config["phrasing"],
                    prompt_index=index, seed=self.grid.seed, set_a=tuple(a), set_b=tuple(b),
                    answer=tuple(sort_members(list(ground_truth(operation, a, b)))),
                    demonstrations=tuple(demos), hypernym_a=hyper_a, hypernym_b=hyper_b,
                    swapped=swapped, decoding=decoding, prompt=text)


def generate_items(grid: Grid | str | Path = "paper", wordnet: str | None = None) -> list[SetLexSemItem]:
    """Every item of a grid, in grid order."""
    return list(ItemGenerator(resolve_grid(grid), wordnet).items())


def item_line(item: SetLexSemItem) -> str:
    return json.dumps(item.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


def write_items(path: str | Path, grid: Grid | str | Path, wordnet: str | None = None
                ) -> dict[str, Any]:
    """Write FILE (JSONL, streamed) and FILE.manifest.json; returns the manifest."""
    resolved = resolve_grid(grid)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    counts: dict[str, dict[str, int]] = {}
    configurations: set[str] = set()
    total = 0
    temporary = path.with_name(path.name + ".partial")
    generator = ItemGenerator(resolved, wordnet)
    with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
        for item in generator.items():
            line = item_line(item)
            handle.write(line)
            digest.update(line.encode("utf-8"))
            total += 1
            configurations.add(item.config_id)
            for study in item.studies:
                entry = counts.setdefault(study, {"configurations": 0, "prompts": 0})
                entry["prompts"] += 1
                if item.prompt_index == 0:
                    entry["configurations"] += 1
    temporary.replace(path)
    meta = manifest(resolved, total, len(configurations), counts, digest.hexdigest(),
                    generator._pools)
    Path(f"{path}.manifest.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n",
                                             encoding="utf-8")
    return meta


def manifest(grid: Grid, prompts: int, configurations: int, per_study: Mapping[str, Any],
             sha256: str, pools: Sequence[HyponymPool] | None) -> dict[str, Any]:
    from lexbench import __version__
    from lexbench.benchmarks.setlexsem_sets import hyponym_pools_fingerprint
    from lexbench.lexicon.words import wordfreq_version

    meta: dict[str, Any] = {
        "benchmark": NAME, "grid": grid.to_dict(), "prompts": prompts,
        "configurations": configurations, "per_study": dict(per_study),
        "content_sha256": sha256, "lexbench_version": __version__,
        "wordfreq_version": wordfreq_version(),
    }
    if pools is not None:
        meta["hyponym_pools_sha"] = hyponym_pools_fingerprint(pools)
    return meta


def read_items(path: str | Path) -> list[SetLexSemItem]:
    from lexbench.run.store import read_item_file

    return read_item_file(path, SetLexSemItem.from_dict)


def limit_per_config(items: Sequence[SetLexSemItem], limit: int | None) -> list[SetLexSemItem]:
    """The first `limit` prompts of every configuration."""
    if limit is None:
        return list(items)
    return [i for i in items if i.prompt_index < limit]


# ------------------------------------------------------------------------------ benchmark


def score_item(item: SetLexSemItem, output: str) -> tuple[Any, Any]:
    """(parsed answer, SetScore) for one raw output."""
    numbers = item.token_type == "numbers"
    stop = tuple(item.decoding.get("stop", ()))
    parsed = parse_answer(output, numbers=numbers, known_members=set(item.set_a) | set(item.set_b),
                          closed_by_stop=ANSWER_STOP in stop)
    return parsed, score_answer(parsed, item.answer, item.set_a, item.set_b)


@dataclass
class SetLexSemBenchmark:
    """SetLexSem as a `Benchmark`: items, requests, score, summarize, report, figures."""

    dataset: list[SetLexSemItem]
    dataset_config: dict[str, Any] = field(default_factory=dict)
    model_name: str = "model"
    name: str = NAME
    _dataset_sha256: str | None = field(default=None, init=False, repr=False)

    def config(self) -> dict[str, Any]:
        if self._dataset_sha256 is None:  # hashing 10^5 rows takes seconds: once per run
            digest = hashlib.sha256()
            for item in self.dataset:
                digest.update(item_line(item).encode("utf-8"))
            self._dataset_sha256 = digest.hexdigest()
        return {"name": self.name, "dataset": self.dataset_config,
                "dataset_sha256": self._dataset_sha256, "items": len(self.dataset)}

    def items(self) -> list[SetLexSemItem]:
        return self.dataset

    def requests(self, item: SetLexSemItem) -> list[Request]:
        return [Request(id=item.id, kind="generate", prompt=item.prompt,
                        decoding=item.request_decoding())]

    def score(self, item: SetLexSemItem, responses: Sequence[Response]) -> Score:
        response = responses[0]
        if response.error is not None:
            return Score(item.id, None, 0.0, None, "request_failed", {"error": response.error})
        parsed, verdict = score_item(item, response.text)
        lenient = verdict
        if not parsed.ok:
            forgiving = lenient_parse(response.text, numbers=item.token_type == "numbers",
                                      known_members=set(item.set_a) | set(item.set_b))
            lenient = score_answer(forgiving, item.answer, item.set_a, item.set_b)
        shown = None if verdict.answer is None else json.dumps(verdict.answer, ensure_ascii=False)
        return Score(item.id, verdict.correct, float(verdict.correct), shown, verdict.error_class,
                     {**verdict.to_dict(), "explicit_empty": parsed.explicit_empty,
                      "answer_text": parsed.raw, "lenient": lenient.to_dict()})

    def sample(self, item: SetLexSemItem, requests: Sequence[Request],
               responses: Sequence[Response], score: Score) -> dict[str, Any]:
        row = item.to_dict()
        row.update({"output": responses[0].text, "generated_tokens": responses[0].generated_tokens,
                    "error": responses[0].error, "correct": score.correct, "value": score.value,
                    "error_class": score.error_class})
        row.update({k: v for k, v in score.details.items() if k not in ("correct", "error_class")})
        return row

    def summarize(self, items: Sequence[SetLexSemItem], scores: Sequence[Score]) -> dict[str, Any]:
        from lexbench.benchmarks.setlexsem_analysis import summarize

        return summarize(items, scores, model=self.model_name)

    def report(self, results: Mapping[str, Any]) -> str:
        from lexbench.benchmarks.setlexsem_analysis import report_markdown

        return report_markdown(results)

    def figures(self, results: Mapping[str, Any], folder_path: Path) -> list[Path]:
        import importlib.util
        import sys

        from lexbench.benchmarks.setlexsem_analysis import violin_figures

        if importlib.util.find_spec("matplotlib") is None:
            # The tables are the result; plots are optional. Say so rather than crash the run.
            print("lexbench: violin plots skipped: matplotlib is not installed "
                  "(pip install 'lexbench[plots]')", file=sys.stderr)
            return []
        return violin_figures(results, Path(folder_path) / "figures")


# ------------------------------------------------------------------------------ Python API


def generate_setlexsem(grid: Grid | str | Path = "paper", *, output: str | Path | None = None,
                       wordnet: str | None = None) -> list[SetLexSemItem] | dict[str, Any]:
    """Generate a grid's items. With `output`, stream them to FILE (JSONL) and write
    FILE.manifest.json, returning the manifest; without, return the items.

    >>> items = generate_setlexsem("small")             # doctest: +SKIP
    >>> items[0].prompt.splitlines()[0][:30]            # doctest: +SKIP
    'You are given two sets. Set A '
    """
    if output is not None:
        return write_items(output, grid, wordnet)
    return generate_items(grid, wordnet)


def run_setlexsem(model: Any = "smollm2-135m", *, grid: Grid | str | Path = "paper",
                  items: str | Path | None = None, limit: int | None = None,
                  decoding: Mapping[str, Any] | None = None,
                  model_options: Mapping[str, Any] | None = None, out: str | Path = "runs",
                  cache: Any = None, use_cache: bool = True, wordnet: str | None = None,
                  progress: bool = True) -> Any:
    """Evaluate a model on SetLexSem and write a run folder (with figures/).

    `limit` keeps the first N prompts of every configuration; `decoding` overrides the
    grid's decoding (temperature, top_p, top_k, max_new_tokens, reasoning_max_new_tokens,
    stop, seed); `items` reads a JSONL file from `lexbench generate setlexsem` instead.
    """
    from lexbench.benchmarks.base import evaluate
    from lexbench.models.base import Model
    from lexbench.models.registry import load_model
    from lexbench.run.cache import response_cache

    if items is not None:
        if decoding:
            raise ValueError("decoding overrides apply to a grid; a generated items file "
                             "already records its decoding (regenerate with a grid file)")
        dataset = read_items(items)
        dataset_config: dict[str, Any] = {"file": str(items)}
    else:
        resolved = resolve_grid(grid)
        if decoding:
            resolved = resolved.with_decoding(**dict(decoding))
        dataset = generate_items(resolved, wordnet)
        dataset_config = {"grid": resolved.to_dict()}
    dataset = limit_per_config(dataset, limit)
    dataset_config["limit_per_config"] = limit
    backend = model if isinstance(model, Model) else load_model(model, model_options)
    benchmark = SetLexSemBenchmark(dataset=dataset, dataset_config=dataset_config,
                                   model_name=backend.name)
    with response_cache(cache, use_cache) as store:
        return evaluate(benchmark, backend, out_root=out, cache=store, progress=progress)
