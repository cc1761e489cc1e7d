"""One small real run on the packaged SmolLM2: LAMBDA with one fresh set and every wording,
three items each (the tiny WordNet), through the command line."""

import json

import pytest

from lexbench.cli import main

pytestmark = pytest.mark.slow


def test_smollm2_spreads_across_a_fresh_set_and_the_wordings(tiny_wordnet_env, tmp_path, capsys):
    common = ["--per-relation", "2", "--limit", "1", "--out", str(tmp_path / "runs")]
    common += ["--cache", str(tmp_path / "c.sqlite"), "--no-progress"]
    assert main(["run", "lambda", "--sets", "1", *common]) == 0
    assert main(["run", "lambda", "--prompt-variant", "all", *common]) == 0
    out = capsys.readouterr().out
    assert "Spread across fresh item sets" in out and "Spread across prompt wordings" in out
    folder = tmp_path / "runs" / "lambda" / "smollm2-135m" / "robustness"
    sets = json.loads(next(folder.glob("sets-*.json")).read_text())
    prompts = json.loads(next(folder.glob("prompts-*.json")).read_text())
    assert [m["scored"] for m in sets["members"]] == [3, 3]
    assert [m["label"] for m in prompts["members"]] == ["paper", "guard", "arrow", "instruction"]
    assert prompts["published_folder"] == sets["published_folder"]
    # The four wordings are four prompts, so four sets of requests were sent.
    assert all(c["requests"] == 3 for c in prompts["cost"])
    assert sum(c["sent"] for c in prompts["cost"]) == 9  # the paper's three came from the cache
