"""The benchmarks, one package each: `lambda_` (LAMBDA; the trailing underscore because
`lambda` is a Python keyword), `scan`, `analogies` (Google, BATS, pair files, SAT),
`setlexsem` and `ekar`. Each holds everything about its benchmark and registers itself
through the `lexbench.benchmarks` entry-point group, as a plugin would; `base` declares
what a benchmark is (`Benchmark`) and what it may bring (`BenchmarkSpec`).

Nothing is imported here, so discovering the benchmarks imports only their entries.
"""
