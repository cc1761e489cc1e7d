"""Human baselines: people answer benchmark items in the browser, and their answers become
run folders scored exactly like a model's.

    sampling     which items a study asks (the papers' samples) and the study it builds
    database     the study's file: one SQLite database (WAL), its tables and connection
    store        an open study: the next step, every answer saved at once, invitations
                 (the sha256 of each annotator's link secret)
    creation     writing a new study (its items and steps), whole or not at all
    tasks        per benchmark: what the page shows, what the scorer reads, which benchmark
    page, app    the web page and the FastAPI app serving it
    page_client  the page's inline CSS and JavaScript (keyboard, look-up)
    guard        ASGI middleware: Host allow-list, same-origin writes, bounded bodies
    definitions  the WordNet definitions panel
    results      answers -> run folders (model `human:NAME`), agreement, majority vote
    agreement    Cohen's and Fleiss' kappa

The `human:NAME` backend itself is `lexbench.human.backend`; the CSV sheets for offline
LAMBDA studies are LAMBDA's own (`lexbench.benchmarks.lambda_.sheets`).
"""
