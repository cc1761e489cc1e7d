"""The paper's untuned contextual-embedding baseline: term vectors from a transformers
encoder (a tiny random BERT built here, and the packaged all-MiniLM-L6-v2, a BERT-family
encoder), checked against an independent forward pass, through `evaluate` and the CLI."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from lexbench.benchmarks.ekar.benchmark import run_ekar  # noqa: E402
from lexbench.benchmarks.ekar.contextual import ContextualTupleModel  # noqa: E402
from lexbench.benchmarks.ekar.files import read_split  # noqa: E402
from lexbench.benchmarks.ekar.splits import find_split_file  # noqa: E402
from lexbench.metrics.similarity import packaged_minilm_folder  # noqa: E402
from lexbench.types import Request, TupleChoiceQuery  # noqa: E402

FIXTURES = Path(__file__).parents[1] / "fixtures" / "ekar"
FOLDERS = {"en": FIXTURES / "english", "zh": FIXTURES / "chinese"}


def fixture_items(language: str):
    return read_split(find_split_file(FOLDERS[language], "validation"), language)


def build_tiny_bert(folder: Path, seed: int) -> Path:
    """A randomly initialised 2-layer BERT whose vocabulary holds the fixtures' words and
    characters (so few terms are [UNK])."""
    from transformers import BertConfig, BertModel, BertTokenizer

    words = sorted(
        {
            w.lower()
            for language in ("en", "zh")
            for item in fixture_items(language)
            for terms in (item.query, *item.choices)
            for term in terms
            for w in (term.split() if language == "en" else list(term))
        }
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text(
        "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n", encoding="utf-8"
    )
    tokenizer = BertTokenizer(str(folder / "vocab.txt"), do_lower_case=True)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"), seed=0)


@functools.lru_cache(maxsize=4)
def _load(folder: Path):
    from transformers import AutoModel, AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder)), AutoModel.from_pretrained(str(folder)).eval()


def independent_cosines(folder: Path, query, candidates, layer: int = -1) -> list[float]:
    """The paper's recipe written out separately: each term alone through the encoder, the
    mean of its own tokens' states, tuple = sum of pairwise differences, cosine."""
    tokenizer, model = _load(folder)

    def term(text):
        encoded = tokenizer(text, return_tensors="pt")
        with torch.no_grad():
            states = model(**encoded, output_hidden_states=True).hidden_states[layer][0]
        ids = encoded["input_ids"][0].tolist()
        keep = [i for i, t in enumerate(ids) if t not in tokenizer.all_special_ids]
        return states[keep].mean(dim=0).double().numpy()

    def tuple_vec(terms):
        vectors = [term(t) for t in terms]
        return sum(
            vectors[j] - vectors[i] for i in range(len(vectors)) for j in range(i + 1, len(vectors))
        )

    anchor = tuple_vec(query)
    return [
        float(anchor @ tuple_vec(c) / (np.linalg.norm(anchor) * np.linalg.norm(tuple_vec(c))))
        for c in candidates
    ]


def ask(model, item):
    return model.analogy(
        [
            Request(
                id=item.id,
                kind="analogy",
                query=TupleChoiceQuery(tuple(item.query), tuple(tuple(c) for c in item.choices)),
            )
        ]
    )[0]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_cosines_match_an_independent_forward_pass(tiny_bert, language):
    model = ContextualTupleModel(tiny_bert, batch_size=3)
    for item in [fixture_items(language)[i] for i in (0, 2)]:  # a 2- and a 3-term item
        response = ask(model, item)
        assert response.error is None
        assert list(response.choice_scores) == pytest.approx(
            independent_cosines(tiny_bert, item.query, item.choices), abs=1e-5
        )
    # Another layer reads other states: the embeddings layer gives other cosines.
    first = fixture_items(language)[0]
    embeddings_layer = ContextualTupleModel(tiny_bert, layer=0)
    assert list(ask(embeddings_layer, first).choice_scores) == pytest.approx(
        independent_cosines(tiny_bert, first.query, first.choices, layer=0), abs=1e-5
    )


def test_batches_and_fingerprints(tiny_bert, tmp_path):
    items = fixture_items("en")
    requests = [
        Request(
            id=i.id,
            kind="analogy",
            query=TupleChoiceQuery(tuple(i.query), tuple(tuple(c) for c in i.choices)),
        )
        for i in items
    ]
    one = ContextualTupleModel(tiny_bert, batch_size=1).analogy(requests)
    many = ContextualTupleModel(tiny_bert, batch_size=64).analogy(requests)
    for a, b in zip(one, many):
        assert list(a.choice_scores) == pytest.approx(list(b.choice_scores), abs=1e-5)
    other = build_tiny_bert(tmp_path / "other-bert", seed=1)
    first, second = ContextualTupleModel(tiny_bert), ContextualTupleModel(other)
    assert first.fingerprint()["content"] != second.fingerprint()["content"]
    assert first.fingerprint()["backend"] == "contextual-tuple"
    assert first.supports("analogy") and not first.supports("generate")
    with pytest.raises(ValueError, match="layer 7 is outside"):
        ContextualTupleModel(tiny_bert, layer=7)
    with pytest.raises(FileNotFoundError, match="no such folder"):
        ContextualTupleModel(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match=r"no config.json"):
        ContextualTupleModel(tmp_path)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_runs_through_evaluate(tiny_bert, tmp_path, language):
    evaluation = run_ekar(
        str(tiny_bert),
        language=language,
        data=FOLDERS[language],
        method="contextual",
        out=tmp_path,
        progress=False,
    )
    results = evaluation.results
    assert results["overall"]["n"] == 12 and results["config"]["method"] == "contextual"
    samples = [json.loads(line) for line in evaluation.folder.samples_path.read_text().splitlines()]
    for sample in samples:
        assert sample["answer"] == "ABCD"[int(np.argmax(sample["cosines"]))]
        assert all(-1.0 - 1e-9 <= c <= 1.0 + 1e-9 for c in sample["cosines"])
    config = json.loads(evaluation.folder.config_path.read_text())
    assert config["model"]["backend"] == "contextual-tuple"
    assert "By meta-relation" in evaluation.report


def test_the_packaged_minilm_as_the_encoder(tmp_path):
    folder = packaged_minilm_folder()
    item = fixture_items("en")[0]
    model = ContextualTupleModel(folder)
    assert list(ask(model, item).choice_scores) == pytest.approx(
        independent_cosines(folder, item.query, item.choices), abs=1e-5
    )
    evaluation = run_ekar(
        model, data=FOLDERS["en"], method="contextual", out=tmp_path, progress=False
    )
    assert evaluation.results["overall"]["n"] == 12
    assert json.loads(evaluation.folder.config_path.read_text())["model"]["model_type"] == "bert"
    # Its model card says English: Chinese E-KAR is refused, naming the way out.
    with pytest.raises(
        ValueError,
        match=r"is for en only .* pass --encoder DIR with a Chinese "
        r"or multilingual encoder \(the paper used",
    ):
        run_ekar(
            model,
            language="zh",
            data=FOLDERS["zh"],
            method="contextual",
            out=tmp_path,
            progress=False,
        )


def test_cli_contextual(tiny_bert, tmp_path, capsys):
    from lexbench.cli import main

    status = main(
        [
            "run",
            "ekar",
            "--method",
            "contextual",
            "--encoder",
            str(tiny_bert),
            "--data",
            str(FOLDERS["en"]),
            "--out",
            str(tmp_path),
            "--no-cache",
            "--no-progress",
        ]
    )
    out = capsys.readouterr().out
    assert status == 0 and "contextual" in out and "By meta-relation" in out
    # --encoder alone implies the method; the method alone is an error naming the option.
    assert (
        main(
            [
                "run",
                "ekar",
                "--encoder",
                str(tiny_bert),
                "--data",
                str(FOLDERS["en"]),
                "--out",
                str(tmp_path),
                "--no-cache",
                "--no-progress",
                "--limit",
                "2",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert (
        main(
            [
                "run",
                "ekar",
                "--method",
                "contextual",
                "--data",
                str(FOLDERS["en"]),
                "--out",
                str(tmp_path),
                "--no-cache",
            ]
        )
        == 2
    )
    assert "--encoder PATH" in capsys.readouterr().err
    assert (
        main(
            [
                "run",
                "ekar",
                "--encoder",
                str(tiny_bert),
                "--mode",
                "easy",
                "--data",
                str(FOLDERS["en"]),
                "--out",
                str(tmp_path),
                "--no-cache",
            ]
        )
        == 2
    )
    assert "EASY mode" in capsys.readouterr().err


def test_the_encoder_tells_the_bar_how_far_it_has_read_each_batch(tiny_bert):
    # Issue 43: every in-process model's progress shows its work before its first answer.
    model = ContextualTupleModel(tiny_bert, batch_size=4)
    told: list[tuple[float, int]] = []
    model.on_prefill = lambda share, tokens: told.append((share, tokens))
    model.term_vectors(["dog", "cat", "puppy", "kitten", "car", "road"])
    shares = [share for share, _ in told]
    # Two batches (4 terms, then 2), each said at 0, after each of the 2 layers, and at 1.
    assert shares == [0.0, 0.5, 0.999, 1.0] * 2
    assert all(tokens > 0 for _, tokens in told)
