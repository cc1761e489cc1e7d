"""The front pages' first commands give a real score: LAMBDA on the packaged SmolLM2 is
run with the completion prompt (on the paper's prompt this model scores 0%, every answer a
format failure), wherever README.md and getting-started quote it."""

from docs_quotes import REPO, Quote, command_lines

FRONT_PAGES = {REPO / "README.md", REPO / "docs" / "getting-started.md"}


def _lambda_on_smollm2(quote: Quote) -> bool:
    argv = quote.argv
    return argv[:2] == ["run", "lambda"] and "smollm2-135m" in argv


def test_front_page_lambda_runs_on_smollm2_use_the_completion_prompt():
    quotes = [q for q in command_lines() if q.file in FRONT_PAGES and _lambda_on_smollm2(q)]
    assert {q.file.name for q in quotes} == {"README.md", "getting-started.md"}
    for quote in quotes:
        argv = quote.argv
        assert "--prompt-style" in argv, quote.where
        assert argv[argv.index("--prompt-style") + 1] == "completion", quote.where
