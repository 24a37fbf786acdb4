"""Command-line paths → the sorted list of Python files to check.

Directories are walked for ``*.py`` files, skipping the usual tool and
virtualenv folders and whatever ``.gitignore`` files say; files named on the
command line are always checked, and so are folders named on it, even inside
a folder that an ancestor's ``.gitignore`` ignores (as ruff does). Problems
found on the way (a missing path, a directory that cannot be listed, a file
over the size limit, a symbolic link out of the paths given, a temporary file
an interrupted ``--write`` left behind) come back as
:class:`~autofix.types.FileResult` values with ``error`` set, so that the run
goes on and the exit code can still reflect them.

Symbolic links met while walking are followed only while they stay inside the
paths given: ``--write`` must never rewrite a file elsewhere through one. A
file reached under several names (links, hard links) is checked once, under
its own name when that is among them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

import pathspec

from autofix.types import FileResult
from autofix.writer import TEMP_SUFFIX, stale_temporary

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
        roots=[os.path.realpath(p) for p in paths if p],
    )
    for path in paths:
        walker.add_argument(path)
    files = walker.unique_files()
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
        roots: Sequence[str] = (),
    ) -> None:
        self.excludes = excludes
        self.skip_virtualenvs = skip_virtualenvs
        self.respect_gitignore = respect_gitignore
        self.max_file_size = max_file_size
        #: Real paths of the arguments: links met while walking may not lead out of them.
        self.roots = tuple(roots)
        #: path -> (st_dev, st_ino, is a symbolic link)
        self.files: Dict[str, Tuple[int, int, bool]] = {}
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
            self._add_file(path, st, os.path.islink(path))

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
                    is_link = entry.is_symlink()
                except OSError:
                    is_dir = is_link = False
                if is_dir:
                    if is_link and not self._inside_roots(child):
                        continue  # a link out of the paths given (git never follows them either)
                    if self._excluded(rel + "/", child + os.sep, active):
                        continue
                    if self.skip_virtualenvs and os.path.exists(os.path.join(child, "pyvenv.cfg")):
                        continue
                    stack.append((child, active))
                    continue
                if entry.name.endswith(TEMP_SUFFIX) and stale_temporary(child):
                    self._error(
                        child,
                        "stale temporary file left by an interrupted `autofix --write` (the file next "
                        "to it was not changed); delete it",
                    )
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
                if not stat.S_ISREG(st.st_mode):
                    continue
                if is_link and not self._inside_roots(child):
                    self._error(
                        child,
                        f"skipped: symbolic link to {os.path.realpath(child)}, outside the paths given "
                        "(name that file to check it)",
                    )
                    continue
                self._add_file(child, st, is_link)

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
        lines = self._gitignore_lines(directory)
        if lines is None:
            return None
        return _Ignore(directory, pathspec.GitIgnoreSpec.from_lines(lines))

    def _gitignore_lines(self, directory: str) -> Optional[List[str]]:
        name = os.path.join(directory, ".gitignore")
        try:
            with open(name, encoding="utf-8", errors="replace") as handle:
                return handle.read().splitlines()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._error(name, f"cannot read .gitignore: {exc.strerror or exc}")
            return None

    def _ancestor_ignores(self, root: str) -> List[_Ignore]:
        # `autofix src/` inside a repository honours the .gitignore files above
        # src/ up to the repository root, as git would; but a folder the user
        # names is checked even when they ignore it or a folder above it.
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
            lines = self._gitignore_lines(directory)
            if lines:
                kept = _not_matching(lines, directory, os.path.abspath(root))
                # Anchor at the absolute folder; paths are made absolute when matched.
                ignores.append(_Ignore(directory, pathspec.GitIgnoreSpec.from_lines(kept)))
        return ignores

    def _inside_roots(self, path: str) -> bool:
        real = os.path.realpath(path)
        return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots)

    # ------------------------------------------------------------------ results

    def _add_file(self, path: str, st: os.stat_result, is_link: bool) -> None:
        if st.st_size > self.max_file_size:
            self._error(path, f"skipped: file is larger than {self.max_file_size} bytes")
            return
        self.files[path] = (st.st_dev, st.st_ino, is_link)

    def unique_files(self) -> List[str]:
        """The files found, sorted, each file once however many names reach it."""
        chosen: Dict[Tuple[int, int], str] = {}
        for path in sorted(self.files):
            dev, ino, is_link = self.files[path]
            kept = chosen.get((dev, ino))
            # Its own name beats a link's; otherwise the first name in order.
            if kept is None or (self.files[kept][2] and not is_link):
                chosen[(dev, ino)] = path
        return sorted(chosen.values())

    def _error(self, path: str, message: str) -> None:
        self.errors.setdefault(path, FileResult(path, None, None, error=message))


def _spec(patterns: Sequence[str]) -> pathspec.PathSpec:
    return pathspec.GitIgnoreSpec.from_lines(list(patterns))


def _not_matching(lines: List[str], base: str, root: str) -> List[str]:
    """The ignore ``lines`` (of the file in ``base``) that ignore neither ``root`` nor a folder between."""
    folders = []
    current = root
    while current != base and current.startswith(base.rstrip(os.sep) + os.sep):
        folders.append(_relative(current, base) + "/")
        current = os.path.dirname(current)
    kept = []
    for line in lines:
        single = pathspec.GitIgnoreSpec.from_lines([line])
        if line.lstrip().startswith("!") or not any(single.match_file(folder) for folder in folders):
            kept.append(line)
    return kept


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
