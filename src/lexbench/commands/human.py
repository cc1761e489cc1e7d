"""`lexbench human ...`: human baselines in the browser, for every benchmark with a study task.

    lexbench human serve lambda --sample paper --study studies/lambda [--port 8765]
    lexbench human serve ekar --data DIR --language en --study studies/ekar-en
    lexbench human invite studies/lambda alice [--url http://study.lab:8765]
    lexbench human serve lambda --study studies/lambda --host 0.0.0.0   # other machines
    lexbench human results studies/lambda [--out runs]

A benchmark offers a study through its `BenchmarkSpec.human_task`; its task adds the options
that say which items a study draws from (`lexbench human serve NAME --help`). Commands only
one benchmark has (LAMBDA's CSV sheets) are registered by that benchmark.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from lexbench.commands.numbers import SEED, SERVE_PORT
from lexbench.terminal import terminal_text

DEFAULT_HOST = "127.0.0.1"


# A DNS name as RFC 1123 writes it: labels of letters, digits and inner hyphens.
_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def host_address(text: str) -> str:
    """argparse type: an address to bind, as uvicorn takes it (no scheme, port or path):
    an IP address, or a host name that could be one. Dotted numbers must be an IPv4 address
    (`999.1.1.1` is refused here, not looked up in DNS for seconds)."""
    import ipaddress

    stripped = text.strip()
    refusal = argparse.ArgumentTypeError(
        f"{text!r} is not an address to bind: give a host name or an IP "
        f"(127.0.0.1, 0.0.0.0, ::), the port goes in --port"
    )
    if not stripped or any(c in stripped for c in "/ @") or stripped.count(":") == 1:
        raise refusal
    labels = stripped.rstrip(".").split(".")
    if ":" in stripped or all(label.isdigit() for label in labels):
        try:
            ipaddress.ip_address(stripped)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not an IP address (each of IPv4's four numbers is 0-255); "
                "give one of this machine's addresses (127.0.0.1, 0.0.0.0, ::)"
            ) from None
        return stripped
    if len(stripped) > 253 or not all(_HOST_LABEL.match(label) for label in labels):
        raise refusal
    return stripped


def study_url(text: str) -> str:
    """argparse type: the study's address, http(s)://HOST[:PORT]."""
    from urllib.parse import urlsplit

    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or "@" in parts.netloc:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a study address: give http://HOST:PORT as browsers reach it"
        )
    return text.strip().rstrip("/")


def host_name_option(text: str) -> str:
    """argparse type: a host name browsers will use (--allow-host), without port."""
    stripped = text.strip().lower()
    if not stripped or any(c in stripped for c in "/ @:[]"):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a host name: give a name like study.lab, without scheme or port"
        )
    return stripped


def _serve(args: argparse.Namespace) -> int:
    from lexbench.human.app import serve
    from lexbench.human.sampling import open_or_create, parse_sample
    from lexbench.human.store import check_annotator
    from lexbench.human.tasks import task_for

    task = task_for(args.benchmark)
    sample = parse_sample(args.sample)
    for name in args.annotators or ():
        check_annotator(name)
    check_listening(args.host, args.port)  # before a study folder exists
    study_dir = args.study or Path("studies") / args.benchmark
    study, created = open_or_create(
        study_dir,
        args.benchmark,
        sample=sample,
        sample_seed=args.sample_seed,
        options=task.options(args),
        definitions=args.definitions,
        order=args.order,
    )
    done = {name: study.progress(name) for name in study.annotators()}
    state = "created" if created else "resumed"
    total = len(study.items())
    print(f"study {study_dir} {state}: {args.benchmark}, {total} items")
    for name, progress in done.items():
        print(f"  {name}: {progress.done} of {progress.total} answered")
    from lexbench.human.app import is_loopback

    invited = sorted(study.invited())
    if is_loopback(args.host) and not args.allow_host:
        print(
            f"open http://127.0.0.1:{args.port}/ (each annotator enters a name, or opens "
            f"their invite link; Ctrl-C stops the server, every answer is already saved)"
        )
    else:
        print(
            f"serving on {args.host}:{args.port}: annotators open the links "
            f"`lexbench human invite {study_dir} NAME --url http://HOST:{args.port}` prints "
            f"({len(invited)} invited so far); "
            + (
                "typed names are on (--open-signup)"
                if args.open_signup
                else "typed names are off beyond this machine (--open-signup turns them on)"
            )
        )
    try:
        serve(
            study,
            host=args.host,
            port=args.port,
            allow_hosts=args.allow_host,
            wordnet=args.wordnet,
            annotators=args.annotators,
            open_signup=args.open_signup,
        )
    finally:
        study.close()
    return 0


def check_listening(host: str, port: int) -> None:
    """Found before anything is created: a ValueError (bad input, exit 2) for a host that is
    not an address or name of this machine, an OSError naming the address for a port in use
    or one this user may not bind."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, kind, protocol, _, address = infos[0]
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
            probe.bind(address)
    except OSError as error:
        cause = error.strerror or str(error)
        if isinstance(error, socket.gaierror) or error.errno == errno.EADDRNOTAVAIL:
            # The name or address given is at fault (bad input, exit 2), not the machine.
            raise ValueError(
                f"--host {host}: not an address of this machine ({cause.lower()}); give "
                "127.0.0.1, 0.0.0.0, :: or one of this machine's addresses or names"
            ) from None
        raise OSError(
            f"cannot serve on {host}:{port} ({cause}); choose another "
            f"--port, or a --host address of this machine"
        ) from None


def _invite(args: argparse.Namespace) -> int:
    from lexbench.human.store import Study, check_annotator

    check_annotator(args.name)
    study = Study(args.study)
    try:
        again = study.spelled(args.name) in study.invited()
        secret = study.invite(args.name)
    finally:
        study.close()
    print(f"{args.url.rstrip('/')}/join/{secret}")
    note = " (a new link: the earlier one no longer works)" if again else ""
    print(
        f"the link above is {args.name}'s alone{note}; send it privately. Only its sha256 "
        f"is stored, so it cannot be shown again: invite again for a new one.",
        file=sys.stderr,
    )
    return 0


def _results(args: argparse.Namespace) -> int:
    from lexbench.human.results import study_results

    results = study_results(args.study, out=args.out, wordnet=args.wordnet, crowd=not args.no_crowd)
    print(terminal_text(results.report))
    print(f"summary: {Path(args.study) / 'results.md'} and results.json")
    return 0


def _add_serve_arguments(parser: argparse.ArgumentParser, task: Any) -> None:
    paper = (
        f"the paper's sample ({task.paper_sample} {task.sample_unit})"
        if task.paper_sample is not None
        else "none: the paper reports no human study"
    )
    parser.add_argument(
        "--sample", default="paper", help=f"paper ({paper}) or N ({task.sample_unit})"
    )
    parser.add_argument("--sample-seed", type=SEED, default=0)
    parser.add_argument(
        "--order",
        choices=["same", "per-annotator"],
        default="same",
        help="the order items come in: the study's own for every annotator "
        "(default), or each annotator's own random order, the same again "
        "after a reload (set when the study is created)",
    )
    parser.add_argument(
        "--study",
        type=Path,
        default=None,
        help="the study directory (default studies/BENCHMARK); an existing study is resumed",
    )
    parser.add_argument("--port", type=SERVE_PORT, default=8765, help="1-65535 (default 8765)")
    parser.add_argument(
        "--host",
        type=host_address,
        default=DEFAULT_HOST,
        help="the address to bind (default 127.0.0.1, this machine only); 0.0.0.0 or an "
        "address of this machine serves other machines: then only invited annotators "
        "(lexbench human invite) can answer",
    )
    parser.add_argument(
        "--allow-host",
        type=host_name_option,
        action="append",
        default=[],
        metavar="NAME",
        help="a further host name browsers use to reach the study (e.g. a proxy's); "
        "requests naming any other host are refused (421). Repeatable",
    )
    parser.add_argument(
        "--open-signup",
        action="store_true",
        help="let anyone who reaches the study type a name and answer, also beyond this "
        "machine or behind a proxy (--host, --allow-host; a warning says so); default: "
        "there, only invited annotators (lexbench human invite)",
    )
    parser.add_argument(
        "--annotators",
        nargs="+",
        default=None,
        metavar="NAME",
        help="only these names may annotate (default: any name)",
    )
    parser.add_argument(
        "--definitions",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="offer the WordNet definitions panel (default: "
        f"{'yes' if task.definitions else 'no'} for this benchmark)",
    )
    parser.add_argument(
        "--wordnet",
        default=None,
        help="a WordNet 3.0 database directory (default: found automatically)",
    )
    task.add_arguments(parser)


def register(cli: Any) -> None:
    from lexbench import plugins

    serve = cli.benchmark_command(
        "human",
        "serve",
        "run a human study in the browser (127.0.0.1 unless --host), answers saved at once",
        None,
    )
    studies = serve.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    for spec in plugins.benchmarks():
        if spec.human_task is None:
            continue
        task = spec.human_task()
        parser = studies.add_parser(
            spec.name,
            help=f"a human study of {spec.description}",
            description=f"A human study of {spec.description}.",
        )
        parser.set_defaults(handler=_serve)
        _add_serve_arguments(parser, task)

    invite = cli.benchmark_command(
        "human",
        "invite",
        "print an annotator's own link to a study (a secret; only its hash is stored)",
        _invite,
    )
    invite.add_argument("study", type=Path, help="a study directory")
    invite.add_argument("name", help="the annotator's name")
    invite.add_argument(
        "--url",
        type=study_url,
        default=f"http://{DEFAULT_HOST}:8765",
        help="the study's address as the annotator's browser reaches it "
        "(default http://127.0.0.1:8765)",
    )

    results = cli.benchmark_command(
        "human",
        "results",
        "score a study: a run folder per annotator (model human:NAME), agreement, crowd vote",
        _results,
    )
    results.add_argument("study", type=Path, help="a study directory")
    results.add_argument(
        "--out", type=Path, default=Path("runs"), help="root of the run folders (default ./runs)"
    )
    results.add_argument("--wordnet", default=None)
    results.add_argument("--no-crowd", action="store_true", help="no majority-vote run")
