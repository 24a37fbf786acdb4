"""Atomic in-place writes for ``--write``.

A file is either entirely old or entirely new, whatever happens: the new bytes
go to a temporary file in the same directory, are flushed to disk, and replace
the original with one ``os.replace``. SIGINT and SIGTERM that arrive in the
middle are held back until the file is complete, then delivered as usual.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import threading
from typing import Any, Dict, Iterator, List

_DEFERRED_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name)
)


def write_atomic(path: str, data: bytes) -> None:
    """Replace the contents of ``path`` with ``data`` atomically; raise ``OSError`` on failure.

    The file keeps its permission bits (and, where allowed, its owner). A
    symbolic link is written through: its target is replaced, the link stays.
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target) or os.curdir
    try:
        st = os.stat(target)
        mode = stat.S_IMODE(st.st_mode)
    except FileNotFoundError:
        st = None
        mode = 0o666 & ~_umask()
    with _signals_deferred():
        fd, tmp = tempfile.mkstemp(
            dir=directory, prefix="." + os.path.basename(target) + ".", suffix=".autofix-tmp"
        )
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, mode)
            if st is not None and hasattr(os, "chown"):
                with contextlib.suppress(OSError):  # only root may give files away
                    os.chown(tmp, st.st_uid, st.st_gid)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _fsync_directory(directory)


def _umask() -> int:
    # os.umask can only be read by setting it; restore at once.
    current = os.umask(0o022)
    os.umask(current)
    return current


def _fsync_directory(directory: str) -> None:
    # Makes the rename itself durable; not possible on every platform (Windows).
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT/SIGTERM until the block ends, then act on them as the old handlers would."""
    # Python runs signal handlers only in the main thread and only lets it install
    # them; elsewhere the main thread decides what happens, so there is nothing to defer.
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: List[int] = []
    previous: Dict[int, Any] = {}

    def remember(signum: int, frame: object) -> None:
        received.append(signum)

    try:
        for signum in _DEFERRED_SIGNALS:
            previous[signum] = signal.signal(signum, remember)
        yield
    finally:
        for signum, handler in previous.items():
            # None: a handler installed from C, which Python cannot reinstate.
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        for signum in dict.fromkeys(received):
            _deliver(signum, previous.get(signum))


def _deliver(signum: int, handler: Any) -> None:
    if handler is signal.SIG_IGN:
        return
    if callable(handler):
        handler(signum, None)  # e.g. default_int_handler raises KeyboardInterrupt
        return
    # SIG_DFL (or a handler installed outside Python): re-send it with the
    # original disposition back in place, so the process ends as it would have.
    os.kill(os.getpid(), signum)
