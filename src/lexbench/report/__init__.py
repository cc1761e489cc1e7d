"""Reports and comparisons from run folders.

* `lexbench.report.build.build_report(runs, out_dir)`: `lexbench report`, one
  self-contained HTML page (report.html) plus report.md and figures/.
* `lexbench.report.compare.compare_runs(load_runs(paths))`: `lexbench compare`, paired tests
  on shared items and a leaderboard, exported by `to_markdown`, `to_latex`, `*_csv`.
* `lexbench.report.registry`: per-benchmark reporters keyed by results.json's `benchmark`
  (LAMBDA built in; any other benchmark gets the generic one).
* `lexbench.report.figures`: the plot helpers benchmarks share.

Nothing is imported here, so `import lexbench.report.figures` stays light.
"""
