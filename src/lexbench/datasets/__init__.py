"""Getting public data files: a checked download (sha256) into lexbench's cache, used by the
benchmarks whose data is not shipped (BATS, E-KAR, the Google set's fallback)."""
