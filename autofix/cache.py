"""A persistent cache of check results, as ruff has, so that a repeated run over
a tree that barely changed costs little more than reading it.

An entry is keyed by everything a result depends on: the file's bytes, its
path (findings and diffs name it), autofix's version, the selected rules and
the options that change what the engine produces. A result that consulted
other files of the project (the program model follows imports) also records
those files' content hashes, and is used only while they are unchanged.

Entries are small pickles, one file each, written to a temporary name and
renamed into place, so concurrent runs (pre-commit in several terminals, an
editor and a CI job) never see a half-written entry; the worst a race costs is
computing one result twice. Unreadable, corrupt or foreign entries are misses.

Where: ``$AUTOFIX_CACHE_DIR``, else the ``cache-dir`` setting, else the user's
cache folder (``$XDG_CACHE_HOME/autofix`` or ``~/.cache/autofix``). ``--no-cache``
turns it off.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import tempfile
from dataclasses import replace
from typing import Optional, Sequence, Tuple

from autofix.types import FileResult, Options

#: Bump when the layout of an entry changes; old entries then read as misses.
FORMAT = 1
_MAGIC = b"autofix-cache"


def default_dir() -> str:
    """The user's cache folder for autofix (XDG on every platform, as ruff and pip do on Linux)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "autofix")


def resolve_dir(configured: Optional[str]) -> str:
    return os.environ.get("AUTOFIX_CACHE_DIR") or configured or default_dir()


@functools.lru_cache(maxsize=1)
def _build() -> bytes:
    """A fingerprint of autofix's own sources (names, sizes, mtimes).

    The version alone would keep serving stale results to someone editing a
    rule in a development install; a stat of each module costs about a millisecond.
    """
    package = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.blake2b(digest_size=16)
    for folder, dirs, files in os.walk(package):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                info = os.stat(os.path.join(folder, name))
                digest.update(f"{os.path.relpath(os.path.join(folder, name), package)}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.digest()


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


class Cache:
    """Results stored under ``directory``; every method is safe to call concurrently."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def key(self, path: str, source: bytes, options: Options) -> str:
        from autofix import __version__

        digest = hashlib.blake2b(digest_size=20)
        for part in (
            _MAGIC,
            str(FORMAT).encode(),
            __version__.encode(),
            _build(),
            os.path.abspath(path).encode("utf-8", "surrogateescape"),
            path.encode("utf-8", "surrogateescape"),
            # Every option that shapes a result (selection, per-path ignores, fix
            # settings) is part of the key; where the cache lives is not.
            repr(replace(options, cache_dir=None)).encode(),
            source,
        ):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
        return digest.hexdigest()

    def _file(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key[2:])

    def get(self, key: str, source: bytes) -> Optional[FileResult]:
        """The stored result for ``key`` (with ``source`` put back), or None."""
        try:
            with open(self._file(key), "rb") as handle:
                stored = pickle.load(handle)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError):
            return None
        if not isinstance(stored, tuple) or len(stored) != 3 or stored[0] != FORMAT:
            return None
        _, result, dependencies = stored
        if not isinstance(result, FileResult) or not _unchanged(dependencies):
            return None
        # Only the fixed text of a changed file is stored; the source is what the caller just read.
        fixed = source if result.fixed is None else result.fixed
        return replace(result, source=source, fixed=fixed)

    def put(self, key: str, result: FileResult, dependencies: Sequence[Tuple[str, str]] = ()) -> None:
        """Store ``result``; a failure to write is never an error (the cache is an optimisation)."""
        if result.error is not None or result.verification is not None:
            return  # per-file problems are cheap to find again and verdicts depend on more than the file
        slim = replace(result, source=None, fixed=result.fixed if result.changed else None)
        target = self._file(key)
        try:
            if not os.path.isdir(self.directory):
                _create(self.directory)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".entry-", dir=os.path.dirname(target))
            try:
                with os.fdopen(handle, "wb") as out:
                    pickle.dump((FORMAT, slim, tuple(dependencies)), out, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, target)
            except BaseException:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
                raise
        except OSError:
            return


def _create(directory: str) -> None:
    # Backup tools skip a folder tagged CACHEDIR.TAG, and git ignores one holding a
    # '*' .gitignore (for a cache-dir set inside a repository), as with ruff's cache.
    os.makedirs(directory, exist_ok=True)
    for name, text in (
        ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# autofix's result cache\n"),
        (".gitignore", "# Automatically created by autofix.\n*\n"),
    ):
        with open(os.path.join(directory, name), "w", encoding="utf-8") as handle:
            handle.write(text)


def _unchanged(dependencies: object) -> bool:
    if not isinstance(dependencies, tuple):
        return False
    for entry in dependencies:
        try:
            path, digest = entry
            with open(path, "rb") as handle:
                if content_hash(handle.read()) != digest:
                    return False
        except (OSError, TypeError, ValueError):
            return False
    return True
