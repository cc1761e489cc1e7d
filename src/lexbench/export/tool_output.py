"""The other tool run as a child process with its output streamed as it comes, so `--verify`
never waits in silence (a line at least every `HEARTBEAT_SECONDS`, well under 10 s).

Each line the tool ends with a newline is shown at once, prefixed with the tool's name. A
progress bar that redraws itself in place (tqdm's carriage returns: lm-eval's "Running
generate_until requests: 40%") is shown as a line of its own at most every
`PROGRESS_SECONDS`, its last state always. When the tool says nothing for
`HEARTBEAT_SECONDS` (a model loading, one slow batch), lexbench says that it is still
running, for how long, and the tool's last line (inspect's `Samples: 3/16`): a pasted log
reads the same as the terminal, with no carriage returns in it. (lexbench's own long steps
meanwhile, a model loading in this process, say what they do through `lexbench.heartbeat`.)
"""

from __future__ import annotations

import codecs
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

HEARTBEAT_SECONDS = 5.0
PROGRESS_SECONDS = 5.0
#: The tool's last lines kept for the message when it fails.
TAIL_LINES = 20

_PIECE = re.compile(r"([^\r\n]*)([\r\n])")


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _read(stream: IO[bytes], pieces: queue.Queue[tuple[str, str] | None]) -> None:
    """Put (text, '\\n' or '\\r') for each piece of `stream`, (text, '') for the piece not
    ended yet (a bar is drawn as '\\r' then its text), then None at its end."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    # What the pipe holds now, so a bar redrawn without a newline arrives at once.
    while chunk := os.read(stream.fileno(), 65536):
        pending += decoder.decode(chunk)
        end = 0
        for match in _PIECE.finditer(pending):
            pieces.put((match.group(1), match.group(2)))
            end = match.end()
        pending = pending[end:]
        if pending.strip():
            pieces.put((pending, ""))
    pending += decoder.decode(b"", final=True)
    if pending:
        pieces.put((pending, "\n"))
    pieces.put(None)


def run_streamed(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    tool: str,
    *,
    say: Callable[[str], None] = _say,
    heartbeat: float = HEARTBEAT_SECONDS,
    progress_every: float = PROGRESS_SECONDS,
) -> tuple[int, list[str]]:
    """Run `argv`, showing its output through `say` as described above; returns its exit
    status and its last lines."""
    from lexbench.run.progress import clock
    from lexbench.terminal import terminal_text

    process = subprocess.Popen(
        list(argv), cwd=cwd, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    pieces: queue.Queue[tuple[str, str] | None] = queue.Queue()
    assert process.stdout is not None  # stdout=PIPE
    reader = threading.Thread(target=_read, args=(process.stdout, pieces), daemon=True)
    reader.start()
    started = shown = time.monotonic()
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    bar: str | None = None  # a progress bar's latest state, not shown yet
    latest = ""  # the tool's latest words, for the heartbeat

    def show(text: str) -> None:
        nonlocal shown
        say(terminal_text(text))
        shown = time.monotonic()

    while True:
        try:
            piece = pieces.get(timeout=0.25)
        except queue.Empty:
            piece = ("", "")
        if piece is None:
            break
        text, end = piece[0].strip(), piece[1]
        if text:
            latest = text
            if end == "\n":
                tail.append(text)
                bar = None
                show(f"  {tool}: {text}")
            else:  # a bar's state (ended by '\r', or not ended yet)
                if end:
                    tail.append(text)
                bar = text
        elif end == "\n" and bar is not None:  # a bar's last state, then its newline
            show(f"  {tool}: {bar}")
            bar = None
        now = time.monotonic()
        if bar is not None and now - shown >= progress_every:
            show(f"  {tool}: {bar}")
            bar = None
        elif now - shown >= heartbeat:
            last = f"; last: {latest}" if latest else ""
            show(f"lexbench: {tool} still running ({clock(now - started)}){last}")
    if bar is not None:
        show(f"  {tool}: {bar}")
    return process.wait(), list(tail)
