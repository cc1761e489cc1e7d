"""Headless Chromium over the DevTools protocol, with the standard library only.

Used to check a report the way a reader sees it (its figures decode, its sample filter
works) and to take screenshots. The browser is started with `--remote-debugging-pipe`: the
protocol runs over file descriptors 3 (to the browser) and 4 (from it) as JSON messages
ended by a NUL byte, so there is no port, no WebSocket and nothing to download.

    >>> with Chromium() as browser:                                       # doctest: +SKIP
    ...     browser.open(Path("out/report.html"))
    ...     browser.evaluate("document.images.length")
    3

Flags: headless, no sandbox (containers run as root), no GPU, no network side-traffic
(QUIC, background networking, component updates, sync), and a fresh profile directory.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--no-default-browser-check",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


# Runs in the launcher process: pipe ends (argv 1, 2) to fds 3 and 4, then exec argv 3...
# Both are first copied above 9 so that neither dup2 can overwrite the other's source.
_LAUNCHER = (
    "import fcntl, os, sys\n"
    "src = [fcntl.fcntl(int(a), fcntl.F_DUPFD, 10) for a in sys.argv[1:3]]\n"
    "for a in sys.argv[1:3]: os.close(int(a))\n"
    "os.dup2(src[0], 3); os.dup2(src[1], 4)\n"
    "for fd in src: os.close(fd)\n"
    "os.execvp(sys.argv[3], sys.argv[3:])\n"
)


def find_chromium() -> str | None:
    """$LEXBENCH_CHROMIUM, else the first Chromium-like executable on PATH."""
    configured = os.environ.get("LEXBENCH_CHROMIUM")
    if configured:
        return configured if shutil.which(configured) else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    """The browser failed, timed out, or a page script threw."""


class Chromium:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(
        self,
        executable: str | None = None,
        *,
        width: int = 1280,
        height: int = 900,
        timeout: float = 60.0,
    ):
        self.executable = executable or find_chromium()
        if self.executable is None:
            raise FileNotFoundError(
                "chromium not found (Debian: apt-get install -y chromium; "
                "or set LEXBENCH_CHROMIUM to its path)"
            )
        self.width, self.height, self.timeout = width, height, timeout
        self._profile = tempfile.TemporaryDirectory(prefix="lexbench-chromium-")
        self._log = open(Path(self._profile.name) / "stderr.log", "w+b")  # noqa: SIM115
        to_child_read, self._to_child = os.pipe()
        self._from_child, from_child_write = os.pipe()
        command = [
            self.executable,
            *FLAGS,
            f"--user-data-dir={self._profile.name}",
            f"--window-size={width},{height}",
            "about:blank",
        ]
        # A fresh Python process moves the pipe ends to fds 3 and 4 and execs Chromium: no
        # preexec_fn, which is unsafe when the test process runs other threads (torch).
        launcher = [
            sys.executable,
            "-c",
            _LAUNCHER,
            str(to_child_read),
            str(from_child_write),
            *command,
        ]
        self._process = subprocess.Popen(
            launcher,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            pass_fds=(to_child_read, from_child_write),
        )
        os.close(to_child_read)
        os.close(from_child_write)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        self.session = ""
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"}, session=None)
            attached = self.call(
                "Target.attachToTarget",
                {"targetId": target["targetId"], "flatten": True},
                session=None,
            )
            self.session = attached["sessionId"]
            self.call("Page.enable")
            self.call("Runtime.enable")
            self.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            )
        except BaseException:
            self.close()
            raise

    # -- protocol -----------------------------------------------------------------------

    def _stderr_tail(self) -> str:
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-2000:]

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BrowserError(
                    f"chromium did not answer in {self.timeout:.0f}s\n{self._stderr_tail()}"
                )
            ready, _, _ = select.select([self._from_child], [], [], min(remaining, 1.0))
            if not ready:
                if self._process.poll() is not None:
                    raise BrowserError(
                        f"chromium exited with status {self._process.returncode}\n"
                        f"{self._stderr_tail()}"
                    )
                continue
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise BrowserError(f"chromium closed the DevTools pipe\n{self._stderr_tail()}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | bool | None = True,
    ) -> dict[str, Any]:
        """Send one command and wait for its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        use_session = self.session if session is True else session
        if use_session:
            message["sessionId"] = use_session
        os.write(self._to_child, json.dumps(message).encode("utf-8") + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self._events.append(reply)

    def wait_for_event(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            for index, event in enumerate(self._events):
                if event["method"] == method and event.get("sessionId") == self.session:
                    return self._events.pop(index)
            reply = self._read_message(deadline)
            if "method" in reply:
                self._events.append(reply)

    # -- page ---------------------------------------------------------------------------

    def open(self, path_or_url: str | Path) -> None:
        """Navigate and wait for the load event (all images fetched and decoded)."""
        url = path_or_url.resolve().as_uri() if isinstance(path_or_url, Path) else path_or_url
        self._events.clear()
        result = self.call("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"could not open {url}: {result['errorText']}")
        self.wait_for_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises awaited); raises if it throws."""
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"page script failed: {text}")
        return result["result"].get("value")

    def screenshot(
        self,
        path: str | Path,
        selector: str | None = None,
        *,
        full_page: bool = False,
        max_height: int = 16000,
    ) -> Path:
        """A PNG of the viewport, the whole page, or the element matching `selector`
        (the top `max_height` CSS pixels of a tall element or page)."""
        params: dict[str, Any] = {"format": "png"}
        if selector is not None:
            box = self.evaluate(
                "(() => { const e = document.querySelector(%s); if (!e) return null; "  # noqa: UP031
                "e.scrollIntoView(); const r = e.getBoundingClientRect(); "
                "return {x: r.left + window.scrollX, y: r.top + window.scrollY, "
                "width: r.width, height: r.height}; })()" % json.dumps(selector)
            )
            if not box:
                raise BrowserError(f"no element matches {selector!r}")
            box["height"] = min(box["height"], max_height)
            params.update(clip={**box, "scale": 1}, captureBeyondViewport=True)
        elif full_page:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params.update(
                clip={
                    "x": 0,
                    "y": 0,
                    "width": size["width"],
                    "height": min(size["height"], max_height),
                    "scale": 1,
                },
                captureBeyondViewport=True,
            )
        data = base64.b64decode(self.call("Page.captureScreenshot", params)["data"])
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    # -- lifetime -----------------------------------------------------------------------

    def close(self) -> None:
        if self._process.poll() is None:
            # Already going down: the kill below makes sure.
            with contextlib.suppress(BrowserError, OSError):
                self.call("Browser.close", session=None)
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):  # closed before
                os.close(fd)
        self._log.close()
        self._profile.cleanup()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
