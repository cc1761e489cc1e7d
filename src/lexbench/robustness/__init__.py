"""Is a score real? The spread of a benchmark's score across regenerated item sets and
across prompt wordings, and the contamination probes (published set against fresh sets; a
public file's rows completed against shuffled controls).

Generic over the registered benchmarks: a benchmark takes part through its
`BenchmarkSpec` (`regenerate` for fresh sets, `prompt_variants` for wordings,
`public_file` for the completion probe, `spread_fields` for the per-cell tables). The
modules: `stats` (t interval, rank and z, exact tests), `variants` (wordings applied to a
built benchmark), `files` (where spreads and probes are written and found), `spread`
(accuracy per set or wording, summarised), `runs` (the loops over `api.run`),
`contamination` and `completion` (the probes), `report` (their Markdown).
"""
