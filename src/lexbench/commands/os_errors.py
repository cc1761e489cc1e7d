"""An OSError said in one line: the path and the cause in words, never "[Errno 28]", with the
exit status docs/guarantees.md gives it: 2 when the path given is at fault (none such, a
name too long, a folder where a file is read), 1 when the machine is (a full disk, a
file-size limit, a read-only file system, a place where nothing can be made such as /proc).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from lexbench.paths import file_size_limit

_CAUSES = {
    errno.ENOSPC: "the disk is full (no space left on the device)",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "the operation is not permitted",
    errno.EIO: "an input/output error on the disk",
    errno.ENAMETOOLONG: "a name too long for the file system (at most 255 bytes per name)",
    errno.ELOOP: "too many symbolic links",
}
# Causes where the path given is at fault (bad input, exit 2), not the machine (exit 1).
_BAD_INPUT = frozenset({errno.ENOENT, errno.ENAMETOOLONG, errno.ENOTDIR, errno.EISDIR})


def shown_path(path: object, limit: int = 160) -> str:
    """A path as one line shows it: a very long one cut, with its length."""
    text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path)
    return text if len(text) <= limit else f"{text[: limit - 40]}... ({len(text):,} characters)"


def os_error_cause(error: OSError) -> str:
    """What went wrong, in words (no "[Errno N]")."""
    if error.errno == errno.EFBIG:
        limit = file_size_limit()
        return (
            f"the file-size limit of this process was reached (ulimit -f: {limit:,} bytes)"
            if limit is not None
            else "the file is larger than the file system allows"
        )
    if error.errno == errno.ENOENT and error.filename is not None:
        parent = Path(os.fsdecode(error.filename)).parent
        if parent.is_dir():  # the folder is there, yet nothing can be made in it (/proc)
            return f"nothing can be made in {shown_path(parent)} (no such file or folder)"
        return "no such file or folder"
    cause = _CAUSES.get(error.errno or -1)
    return cause or (error.strerror or str(error) or type(error).__name__).lower()


def os_error_text(error: OSError) -> str:
    """One line for an OSError: the path and the cause in words; a message made by lexbench
    (no errno) as it is."""
    if error.errno is None or error.strerror is None:
        return str(error)
    cause = os_error_cause(error)
    if error.filename is None:
        return f"cannot write or read a file: {cause}"
    target = f" -> {shown_path(error.filename2)}" if error.filename2 is not None else ""
    return f"{shown_path(error.filename)}{target}: {cause}"


def os_error_status(error: OSError) -> int:
    """2 when the path given is at fault (none such, a name too long), else 1 (the
    environment: a full disk, a read-only file system, a server that cannot be reached)."""
    if isinstance(error, FileNotFoundError) or error.errno in _BAD_INPUT:
        return 2
    return 1
