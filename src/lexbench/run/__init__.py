"""Running a benchmark: the pipeline (`evaluate`), the runner that batches, streams and
resumes requests (`runner`; one window at a time in `window_answers`, with this run's send
claims in `claimant`; `scoring`), the SQLite response cache (`cache`), run folders written
as one unit (`store`, `claims`, `jsonio`) and re-scoring a finished run (`rescore`)."""
