"""`python -m lexbench ...`: the same command as `lexbench ...`."""

import sys

from lexbench.cli import main

if __name__ == "__main__":
    sys.exit(main())
