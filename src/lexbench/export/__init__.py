"""Taking a benchmark into other tools: `files` writes Hugging Face datasets (parquet and a
dataset card), `rows` turns any registered benchmark into plain rows (each item, and the
requests lexbench sends for it), `lm_eval` and `inspect_task` write lm-evaluation-harness and
inspect_ai tasks whose scorer is the benchmark's own (`lexbench export NAME --format
hf|lm-eval|inspect`); `tool_runs` and `verify` run an export in its tool and compare it with
lexbench item by item (`--verify MODEL`), `agreement` does so for many exports at once;
`inspect_log` writes run folders as inspect_ai eval logs (`lexbench export-log`)."""
