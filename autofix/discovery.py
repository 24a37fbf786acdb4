"""Command-line paths → the sorted list of Python files to check.

Directories are walked for ``*.py`` files, skipping the usual tool and
virtualenv folders and whatever ``.gitignore`` files say; files named on the
command line are always checked. Problems found on the way (a missing path, a
directory that cannot be listed, a file over the size limit) come back as
:class:`~autofix.types.FileResult` values with ``error`` set, so that the run
goes on and the exit code can still reflect them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

import pathspec

from autofix.types import FileResult

DEFAULT_EXCLUDES: Tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    "site-packages",
)

DEFAULT_MAX_FILE_SIZE = 10_000_000


def discover(
    paths: Sequence[str],
    *,
    exclude: Sequence[str] = (),
    extend_exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
) -> Tuple[List[str], List[FileResult]]:
    """The files to check under ``paths`` and the problems met while looking.

    ``exclude`` replaces :data:`DEFAULT_EXCLUDES` (and the detection of
    virtualenvs by their ``pyvenv.cfg``); ``extend_exclude`` adds to whichever
    set is in force. Both take gitignore-style patterns, matched against paths
    relative to each directory argument. Explicit file arguments bypass every
    filter except the size limit.
    """
    patterns = list(exclude) if exclude else list(DEFAULT_EXCLUDES)
    patterns.extend(extend_exclude)
    walker = _Walker(
        excludes=_spec(patterns),
        skip_virtualenvs=not exclude,
        respect_gitignore=respect_gitignore,
        max_file_size=max_file_size,
    )
    for path in paths:
        walker.add_argument(path)
    files = sorted(walker.files)
    errors = sorted(walker.errors.values(), key=lambda r: r.path)
    return files, errors


@dataclass
class _Ignore:
    """The patterns of one ``.gitignore``, which apply below ``base``."""

    base: str
    spec: pathspec.PathSpec


class _Walker:
    def __init__(
        self,
        *,
        excludes: pathspec.PathSpec,
        skip_virtualenvs: bool,
        respect_gitignore: bool,
        max_file_size: int,
    ) -> None:
        self.excludes = excludes
        self.skip_virtualenvs = skip_virtualenvs
        self.respect_gitignore = respect_gitignore
        self.max_file_size = max_file_size
        self.files: Set[str] = set()
        self.errors: Dict[str, FileResult] = {}
        # Real directories already walked: (st_dev, st_ino). Makes symlink loops
        # and several arguments naming the same tree harmless.
        self.seen_dirs: Set[Tuple[int, int]] = set()

    # ------------------------------------------------------------------ arguments

    def add_argument(self, path: str) -> None:
        path = os.path.normpath(path) if path else path
        try:
            st = os.stat(path)
        except FileNotFoundError:
            if os.path.islink(path):
                self._error(path, "broken symbolic link")
            else:
                self._error(path, "no such file or directory")
            return
        except OSError as exc:
            self._error(path, f"cannot access path: {exc.strerror or exc}")
            return
        if stat.S_ISDIR(st.st_mode):
            ignores = self._ancestor_ignores(path) if self.respect_gitignore else []
            self._walk(path, ignores)
        else:
            # Named explicitly: checked whatever its name or the excludes say.
            self._add_file(path, st)

    # ------------------------------------------------------------------ walking

    def _walk(self, root: str, ignores: List[_Ignore]) -> None:
        # Depth-first with an explicit stack: deep trees cannot hit the recursion limit.
        stack: List[Tuple[str, List[_Ignore]]] = [(root, ignores)]
        while stack:
            directory, inherited = stack.pop()
            try:
                st = os.stat(directory)
            except OSError as exc:
                self._error(directory, f"cannot read directory: {exc.strerror or exc}")
                continue
            key = (st.st_dev, st.st_ino)
            if key in self.seen_dirs:
                continue
            self.seen_dirs.add(key)
            try:
                with os.scandir(directory) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self._error(directory, f"cannot read directory: {exc.strerror or exc}")
                continue
            active = inherited
            if self.respect_gitignore:
                own = self._load_gitignore(directory)
                if own is not None:
                    active = inherited + [own]
            for entry in entries:
                # `autofix .` reports `a.py`, not `./a.py`.
                child = entry.name if directory == os.curdir else entry.path
                rel = _relative(child, root)
                try:
                    is_dir = entry.is_dir()  # follows symlinks; loops are caught by seen_dirs
                except OSError:
                    is_dir = False
                if is_dir:
                    if self._excluded(rel + "/", child + os.sep, active):
                        continue
                    if self.skip_virtualenvs and os.path.exists(os.path.join(child, "pyvenv.cfg")):
                        continue
                    stack.append((child, active))
                    continue
                if not entry.name.endswith(".py"):
                    continue
                if self._excluded(rel, child, active):
                    continue
                try:
                    st = entry.stat()
                except FileNotFoundError:
                    self._error(child, "broken symbolic link")
                    continue
                except OSError as exc:
                    self._error(child, f"cannot access file: {exc.strerror or exc}")
                    continue
                if stat.S_ISREG(st.st_mode):
                    self._add_file(child, st)

    def _excluded(self, rel: str, path: str, ignores: List[_Ignore]) -> bool:
        if self.excludes.match_file(rel):
            return True
        # Later (deeper) .gitignore files override earlier ones, as in git.
        verdict: Optional[bool] = None
        for ignore in ignores:
            result = _check(ignore.spec, _relative(path, ignore.base))
            if result is not None:
                verdict = result
        return bool(verdict)

    # ------------------------------------------------------------------ .gitignore

    def _load_gitignore(self, directory: str) -> Optional[_Ignore]:
        name = os.path.join(directory, ".gitignore")
        try:
            with open(name, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._error(name, f"cannot read .gitignore: {exc.strerror or exc}")
            return None
        return _Ignore(directory, pathspec.GitIgnoreSpec.from_lines(lines))

    def _ancestor_ignores(self, root: str) -> List[_Ignore]:
        # `autofix src/` inside a repository honours the .gitignore files above
        # src/ up to the repository root, as git would.
        ancestors = []
        current = os.path.abspath(root)
        while True:
            parent = os.path.dirname(current)
            if parent == current or os.path.exists(os.path.join(current, ".git")):
                break
            current = parent
            ancestors.append(current)
        if not os.path.exists(os.path.join(current, ".git")):
            return []  # not inside a repository: only the walked folders' .gitignore files count
        ignores = []
        for directory in reversed(ancestors):
            own = self._load_gitignore(directory)
            if own is not None:
                # Anchor at the absolute folder; paths are made absolute when matched.
                ignores.append(_Ignore(directory, own.spec))
        return ignores

    # ------------------------------------------------------------------ results

    def _add_file(self, path: str, st: os.stat_result) -> None:
        if st.st_size > self.max_file_size:
            self._error(path, f"skipped: file is larger than {self.max_file_size} bytes")
            return
        self.files.add(path)

    def _error(self, path: str, message: str) -> None:
        self.errors.setdefault(path, FileResult(path, None, None, error=message))


def _spec(patterns: Sequence[str]) -> pathspec.PathSpec:
    return pathspec.GitIgnoreSpec.from_lines(list(patterns))


def _check(spec: pathspec.PathSpec, rel: str) -> Optional[bool]:
    """True: ignored, False: re-included by a ``!`` pattern, None: no pattern matched."""
    check = getattr(spec, "check_file", None)
    if check is not None:  # pathspec >= 0.12
        return check(rel).include
    return True if spec.match_file(rel) else None


def _relative(path: str, base: str) -> str:
    if os.path.isabs(base) != os.path.isabs(path):
        path, base = os.path.abspath(path), os.path.abspath(base)
    rel = os.path.relpath(path, base)
    if path.endswith(os.sep):
        rel += "/"
    return rel.replace(os.sep, "/")
