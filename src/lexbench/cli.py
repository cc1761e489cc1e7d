"""The `lexbench` command: its parser is built by `lexbench.commands.parser` from every
command module and registered benchmark; `main` parses, runs the command's handler and
turns what went wrong into one line and an exit status (docs/guarantees.md).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from lexbench.commands.parser import UserError, build_parser, check_includes, pop_includes
from lexbench.terminal import safe_warnings

__all__ = ["UserError", "build_parser", "main", "pop_includes"]


def _say(message: object) -> None:
    """One error line on stderr; server and model text in it is escaped for the terminal."""
    from lexbench.terminal import strip_url_credentials, terminal_text

    print(f"lexbench: error: {terminal_text(strip_url_credentials(str(message)))}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Exit statuses: 0 done; 1 a failure of the environment (a server refusing for good, a
    damaged cache, a full disk); 2 bad input; 3 a run finished but some requests failed; 4
    every request failed (3 and 4 become 0 with --allow-failures); 130 interrupted."""
    if argv is None:
        # A process of its own (`lexbench ...`), not a caller's: what it loads stays loaded
        # until it exits, so the garbage collector may leave it alone (see paused_gc).
        from lexbench.lexicon.wordnet.reader import FREEZE_LOADED

        FREEZE_LOADED[0] = True
        # Before anything imports torch: its threads wait passively (hf_threads), here and
        # in the tools lexbench starts, unless the user chose a wait policy.
        from lexbench.models.hf_threads import quiet_waits

        quiet_waits()
    with safe_warnings():
        return _main(list(sys.argv[1:] if argv is None else argv))


def _main(argv: list[str]) -> int:
    from lexbench import plugins
    from lexbench.commands.os_errors import os_error_status, os_error_text
    from lexbench.commands.outcome import IncompleteRun
    from lexbench.terminal import terminal_text

    try:
        includes, parse_argv = pop_includes(argv)
        check_includes(includes)
    except UserError as error:
        _say(error)
        return 2
    plugins.include_from_environment()
    plugins.include(includes)
    parser = build_parser()
    args = parser.parse_args(parse_argv)
    args.argv = argv
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        from lexbench.commands.inputs import check_text_inputs
        from lexbench.commands.paths import check_path_options

        check_path_options(args)
        check_text_inputs(args)
        check_model_keys(args)
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except IncompleteRun as incomplete:
        print(f"lexbench: {terminal_text(str(incomplete))}", file=sys.stderr)
        return incomplete.exit_code
    except (IsADirectoryError, NotADirectoryError) as error:
        # A path the checks before the run could not know to be a file or a folder.
        kind = "a folder" if isinstance(error, IsADirectoryError) else "not a folder"
        _say(
            f"{error.filename}: {kind}, where {'a file' if kind == 'a folder' else 'a folder'} is expected"
        )
        return 2
    except OSError as error:
        # No "[Errno N]": the path and the cause in words (a full disk, a file-size limit, a
        # read-only file system); 2 where the path given is at fault (none such, too long).
        _say(os_error_text(error))
        return os_error_status(error)
    except (UserError, ValueError, KeyError) as error:
        _say(error.args[0] if isinstance(error, KeyError) and error.args else error)
        return 2
    except ImportError as error:
        print(
            f"lexbench: error: a dependency is missing ({error}); install lexbench with its "
            "extras: pip install -e '.[all]' (torch first: pip install torch==2.13.0 on CPU)",
            file=sys.stderr,
        )
        return 2
    except RuntimeError as error:
        _say(error)
        return 1


def check_model_keys(args: argparse.Namespace) -> None:
    """Refuse (exit 2), before anything loads or is sent, a hosted provider's model whose
    key variable is unset (`registry.missing_key_of_spec`); every model of a plan at once."""
    from lexbench.commands.arguments import models_of
    from lexbench.models.registry import missing_key_of_spec

    try:
        models = models_of(args) if getattr(args, "model", None) else []
    except ValueError:
        return  # the command refuses its --model in its own words
    for spec in models:
        if not isinstance(spec, str):
            continue
        try:
            refusal = missing_key_of_spec(
                spec, getattr(args, "base_url", None), getattr(args, "api_key_env", None)
            )
        except ValueError:
            continue  # an unknown backend: the command refuses it in its own words
        if refusal is not None:
            raise UserError(f"--model {spec}: {refusal}")


if __name__ == "__main__":
    sys.exit(main())
