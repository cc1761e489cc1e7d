"""SetLexSem's per-item path, pinned byte for byte: item lines (the dataset hash), requests,
scores and sample rows over many kinds of answer, with the digests today's code gave
before the per-item work was made cheaper (issue 26). A digest that moves means a run's
files or its dataset hash would change: that is never a speed-up's business."""

from __future__ import annotations

import hashlib
import json

import pytest

from lexbench.benchmarks.setlexsem.benchmark import SetLexSemBenchmark, generate_items
from lexbench.benchmarks.setlexsem.files import item_line, items_sha256, iter_items
from lexbench.benchmarks.setlexsem.grid_read import resolve_grid
from lexbench.benchmarks.setlexsem.items import SetLexSemItem
from lexbench.run.jsonio import dumps_strict
from lexbench.types import Response, canonical_json

# sha256 over item_line of every item of generate_items("small"), by the code before issue 26.
SMALL_ITEM_LINES_SHA256 = "934f1c1c4a650ba5847d1db7263132e844864b1fedc28ad489ea9be550a10d24"


def _members(values):
    return ", ".join(map(str, values))


def _outputs(item):
    """Answers of every shape the two readings tell apart, made from the item's own sets."""
    gold = list(item.answer)
    union = list(item.set_a) + [m for m in item.set_b if m not in item.set_a]
    extra = [m for m in union if m not in gold][:1]
    return [
        f"<answer>{{{_members(gold)}}}</answer>",
        "<answer>set()</answer>",
        f"I think {{{_members(gold)}}} is it",
        f"<answer>{{{_members(gold)}}}</answer> or <answer>{{}}</answer>",
        f"<answer>{{{_members(str(m).upper() for m in gold)}}}</answer>",
        "<answer>none</answer>",
        "<answer>forty-two, seven and 3</answer>",
        "<answer>[1, 'a', 2.0]</answer>",
        f"<answer>{{{_members([*union, 'zzz'])}}}",
        "<answer>{\ud800, 1}</answer>",
        "<answer>The empty set</answer>",
        f"<answer>{{{_members(gold[:-1])}}}</answer>",
        f"<answer>{{{_members([*gold, *extra])}}}</answer>",
        f"<answer>set([{_members(repr(m) for m in gold)}])</answer>",
        "",
        "<Answer> {} (the empty set) </ANSWER>",
        f"<answer>\n- {chr(10).join('- ' + str(m) for m in gold)}\n</answer>",
        f"<answer>{{'{gold[0] if gold else 'x'}', \"o'clock\"}}</answer>.",
    ]


def _stopped_items():
    grid = resolve_grid("small").with_decoding(stop=["</answer>"], max_new_tokens=7)
    return generate_items(grid, limit=1)


def _digest_of_run(items, parser):
    """sha256 over requests, scores and sample rows for every item and answer shape."""
    benchmark = SetLexSemBenchmark(dataset=list(items), parser=parser)
    digest = hashlib.sha256()
    for position, item in enumerate(items):
        requests = benchmark.requests(item)
        digest.update(canonical_json([r.cache_key_payload() for r in requests]).encode())
        outputs = _outputs(item)
        # Every shape for the first items, one each (in turn) after that: a fast test.
        chosen = outputs if position < 24 else [outputs[position % len(outputs)]]
        responses = [Response(item.id, text=text, generated_tokens=5) for text in chosen]
        if position % 37 == 0:
            responses.append(Response(item.id, error="server said no"))
        for response in responses:
            score = benchmark.score(item, [response])
            row = benchmark.sample(item, requests, [response], score)
            line = dumps_strict(dict(row), ensure_ascii=False, sort_keys=True)
            digest.update(line.encode("utf-8", "surrogatepass"))
            digest.update(canonical_json(score.to_dict()).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@pytest.fixture(scope="module")
def small():
    return generate_items("small")


def test_item_lines_of_the_small_grid_are_pinned(small, tmp_path):
    digest = hashlib.sha256()
    for item in small:
        digest.update(item_line(item).encode("utf-8"))
    assert digest.hexdigest() == SMALL_ITEM_LINES_SHA256
    assert items_sha256(small) == SMALL_ITEM_LINES_SHA256
    path = tmp_path / "small.jsonl"
    path.write_text("".join(item_line(item) for item in small), encoding="utf-8")
    assert items_sha256(iter_items(path)) == SMALL_ITEM_LINES_SHA256


def test_an_item_read_back_from_its_line_is_the_same_item(small):
    for item in small:
        line = item_line(item)
        back = SetLexSemItem.from_dict(json.loads(line))
        assert back == item
        assert item_line(back) == line
        assert back.request_decoding() == item.request_decoding()


@pytest.mark.parametrize(
    ("parser", "expected"),
    [
        ("paper", "41952e2cbd86abb9878f4540bd9ac7296dee8e9f7949fd4704db414525664a00"),
        ("lexbench", "de0537d03a90741d12bc62fd2d47dcd9def7871eac8c384404ff2f0401258ca1"),
    ],
)
def test_requests_scores_and_sample_rows_are_pinned(small, parser, expected):
    assert _digest_of_run(small, parser) == expected
    # Items read back from their lines (decoding keys in file order) give the same bytes.
    back = [SetLexSemItem.from_dict(json.loads(item_line(item))) for item in small]
    assert _digest_of_run(back, parser) == expected


@pytest.mark.parametrize(
    ("parser", "expected"),
    [
        ("paper", "70834f39e0a484f381572f942d91fdc2dca34b8a3309cfb0f204a3e586727b02"),
        ("lexbench", "196dcef790b0df6b0d0c4a9485843dc72399d85d531dc61987cf3f820e4f6c8d"),
    ],
)
def test_answers_cut_by_the_stop_string_are_pinned(parser, expected):
    assert _digest_of_run(_stopped_items(), parser) == expected


def test_a_configuration_s_repeated_texts_are_shared_between_its_items(small):
    rows = [json.loads(item_line(item)) for item in small[:4]]
    first, second = (SetLexSemItem.from_dict(row) for row in rows[:2])
    assert first.config_id == second.config_id
    assert first.config_id is second.config_id and first.studies is second.studies
    assert first.operation is second.operation


def test_the_lenient_reading_given_the_strict_one_is_the_same_reading():
    from lexbench.benchmarks.setlexsem.parse import lenient_parse, parse_answer

    for text in ["no tag {1, 2}", "<answer>{3}</answer>", "<answer>{3}", "nothing at all", ""]:
        strict = parse_answer(text, numbers=True)
        assert lenient_parse(text, numbers=True, strict=strict) == lenient_parse(text, numbers=True)


def test_answers_are_sorted_as_sort_members_sorts_them():
    from lexbench.benchmarks.setlexsem.sets import sort_members
    from lexbench.benchmarks.setlexsem.verdict import _sorted_members

    for members in [{3, 1, 2}, {"b", "a"}, {2, "a", 1, "b"}, {"x"}, set()]:
        assert _sorted_members(members) == sort_members(members)


def test_decodings_are_shared_only_when_written_alike(small):
    row = json.loads(item_line(small[0]))
    lines = {}
    for temperature in (0.0, 0, -0.0, 0.0):
        changed = {**row, "decoding": {**row["decoding"], "temperature": temperature}}
        item = SetLexSemItem.from_dict(changed)
        assert item_line(item) == item_line(SetLexSemItem.from_dict(json.loads(item_line(item))))
        lines.setdefault(repr(temperature), set()).add(id(item.decoding))
        assert f'"temperature":{json.dumps(temperature)}' in item_line(item)
    assert len(lines["0.0"]) == 1  # the two 0.0 items share one dict; 0 and -0.0 have their own
    assert len({next(iter(ids)) for ids in lines.values()}) == 3


def test_a_shared_decoding_makes_its_request_decoding_once(small):
    row = json.loads(item_line(small[0]))
    first, second = SetLexSemItem.from_dict(row), SetLexSemItem.from_dict(row)
    assert first.request_decoding() is second.request_decoding()
    assert first.request_decoding() == small[0].request_decoding()
    unknown = {**row, "decoding": {**row["decoding"], "beam_width": 4}}
    with pytest.raises(TypeError, match="beam_width"):
        SetLexSemItem.from_dict(unknown).request_decoding()


def test_an_item_made_with_a_read_only_decoding_writes_the_same_line(small):
    from dataclasses import replace
    from types import MappingProxyType

    item = small[0]
    frozen = replace(item, decoding=MappingProxyType(dict(item.decoding)))
    assert item_line(frozen) == item_line(item)
