"""lexbench: generate, run, score and analyse lexical and analogical reasoning benchmarks."""

__version__ = "0.1.0"
