"""Taking a benchmark into other tools: `files` writes Hugging Face datasets (parquet and a
dataset card), `rows` turns any registered benchmark into plain rows (each item, and the
requests lexbench sends for it), `lm_eval` writes an lm-evaluation-harness task whose
scorer is the benchmark's own (`lexbench export NAME --format hf|lm-eval`)."""
