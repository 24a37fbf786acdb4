"""Atomic in-place writes for ``--write``.

A file is either entirely old or entirely new, whatever happens: the new bytes
go to a temporary file in the same directory, are flushed to disk, and replace
the original with one ``os.replace``. SIGINT and SIGTERM that arrive in the
middle are held back until the file is complete, then delivered as usual.

Replacing a file makes a new inode, so whatever belongs to the old one is
carried over or the write is refused (:class:`WriteRefused`):

* kept: the permission bits including setuid, setgid and sticky (set after the
  owner, since changing the owner clears them), the owner and group, and every
  extended attribute (on Linux; POSIX ACLs are the ``system.posix_acl_*``
  attributes, so they are kept too);
* refused: a read-only file (unless asked), a file owned by another user when
  this process cannot give files away, a file with several hard links (the
  replace would split them), anything that is not a regular file, a file whose
  contents changed since autofix read it, an attribute that cannot be copied;
* not kept: the inode number, the birth time and, outside Linux, extended
  attributes and file flags (``chflags``).

Temporary files are named ``.NAME.PID.RANDOM.autofix-tmp``; discovery reports
the ones whose process is gone (see :func:`stale_temporary`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import signal
import stat
import tempfile
import threading
import time
from typing import Any, Dict, Iterator, List, Optional

_DEFERRED_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name)
)

#: The ending of every temporary file autofix writes next to a file it rewrites.
TEMP_SUFFIX = ".autofix-tmp"
_TEMP_NAME = re.compile(r"^\.(?P<name>.+?)\.(?:(?P<pid>\d+)\.)?[^./]+" + re.escape(TEMP_SUFFIX) + "$")
#: A temporary file older than this is stale even if its process id is in use again.
STALE_AFTER_SECONDS = 3600.0


class WriteRefused(Exception):
    """The file was left as it is on purpose; the message says why (and how to insist, if one can)."""


def write_atomic(path: str, data: bytes, *, expected: Optional[bytes] = None, allow_readonly: bool = False) -> None:
    """Replace the contents of ``path`` with ``data`` atomically.

    ``expected``: the contents the caller read; when the file no longer holds
    them (an editor saved it meanwhile) nothing is written. ``allow_readonly``
    rewrites a file without write permission. Raises :class:`WriteRefused`
    when the file is left alone on purpose and ``OSError`` on failure. A
    symbolic link is written through: its target is replaced, the link stays.
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target) or os.curdir
    try:
        st: Optional[os.stat_result] = os.stat(target)
    except FileNotFoundError:
        st = None
    digest = hashlib.sha256(expected).digest() if expected is not None else None
    if st is not None:
        _check_replaceable(target, st, allow_readonly)
        if digest is not None:
            _check_unchanged(target, st, digest)
    with _signals_deferred():
        fd, tmp = tempfile.mkstemp(
            dir=directory, prefix=f".{os.path.basename(target)}.{os.getpid()}.", suffix=TEMP_SUFFIX
        )
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if st is None:
                os.chmod(tmp, 0o666 & ~_umask())
            else:
                _copy_metadata(target, tmp, st)
                if digest is not None:
                    # Again just before the replace: the window left is the replace itself.
                    _check_unchanged(target, st, digest)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _fsync_directory(directory)


def _check_replaceable(target: str, st: os.stat_result, allow_readonly: bool) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise WriteRefused("not a regular file")
    if st.st_nlink > 1:
        raise WriteRefused(
            f"the file has {st.st_nlink} hard links; replacing it would split them (edit it by hand)"
        )
    euid = os.geteuid() if hasattr(os, "geteuid") else None
    if euid is not None and euid != 0 and st.st_uid != euid:
        raise WriteRefused(
            f"the file belongs to another user (uid {st.st_uid}); replacing it would make it yours"
        )
    # Replacing needs only the folder's permission, so the file's own bits are
    # checked here: root may write anything, but a 0444 file says "leave me".
    readonly = not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(target, os.W_OK)
    if readonly and not allow_readonly:
        raise WriteRefused("the file is read-only (--force-readonly writes it anyway)")


def _check_unchanged(target: str, st: os.stat_result, digest: bytes) -> None:
    """Refuse when ``target`` is no longer the file with the contents autofix read."""
    changed = WriteRefused("the file changed since autofix read it; run autofix again")
    try:
        now = os.stat(target)
    except FileNotFoundError:
        raise WriteRefused("the file was removed since autofix read it") from None
    if (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns) != (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns):
        raise changed
    sha = hashlib.sha256()
    with open(target, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    if sha.digest() != digest:
        raise changed


def _copy_metadata(target: str, tmp: str, st: os.stat_result) -> None:
    """Owner and group, then the mode (a chown clears setuid/setgid), then extended attributes."""
    if hasattr(os, "chown"):
        now = os.stat(tmp)
        if (now.st_uid, now.st_gid) != (st.st_uid, st.st_gid):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except PermissionError:
                # Not root: the group can still be kept when the user belongs to it.
                with contextlib.suppress(PermissionError):
                    os.chown(tmp, -1, st.st_gid)
            now = os.stat(tmp)
            if now.st_uid != st.st_uid:
                raise WriteRefused(f"cannot keep the file's owner (uid {st.st_uid})")
            if now.st_gid != st.st_gid:
                raise WriteRefused(f"cannot keep the file's group (gid {st.st_gid}); you are not a member")
    os.chmod(tmp, stat.S_IMODE(st.st_mode))
    _copy_xattrs(target, tmp)


def _copy_xattrs(target: str, tmp: str) -> None:
    listxattr = getattr(os, "listxattr", None)
    if listxattr is None:
        return  # not Linux: nothing Python can see to copy (documented above)
    try:
        names = listxattr(target)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return
        raise
    for name in names:
        value = os.getxattr(target, name)
        try:
            os.setxattr(tmp, name, value)
        except OSError as exc:
            # A security label the new file inherited from its folder is fine as it is.
            with contextlib.suppress(OSError):
                if os.getxattr(tmp, name) == value:
                    continue
            raise WriteRefused(f"cannot keep the extended attribute {name}: {exc.strerror or exc}") from None


def stale_temporary(path: str, now: Optional[float] = None) -> bool:
    """Whether ``path`` is a temporary file an interrupted ``autofix --write`` left behind."""
    match = _TEMP_NAME.match(os.path.basename(path))
    if match is None:
        return False
    try:
        age = (time.time() if now is None else now) - os.lstat(path).st_mtime
    except OSError:
        return False  # gone already: its write finished
    pid = match.group("pid")
    if pid is None or age > STALE_AFTER_SECONDS:
        return True
    return not _alive(int(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    except OSError:
        return True  # cannot tell (e.g. Windows): do not call a live write stale
    return True


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
