"""``[tool.autofix]`` in the nearest ``pyproject.toml`` → :class:`Config`.

The nearest ``pyproject.toml`` that has a ``[tool.autofix]`` table wins, as in
ruff; tables are never merged. Every key and code is validated here, so a
typo is an error (exit 2) rather than a silently ignored setting.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePath
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pathspec

from autofix import registry
from autofix.types import Options

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.9/3.10 only
    import tomli as tomllib


class ConfigError(ValueError):
    """The configuration cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Config:
    """Settings from ``[tool.autofix]``; ``None`` means "not set here"."""

    #: The ``pyproject.toml`` they came from (``None``: defaults, no file found).
    path: Optional[Path] = None
    select: Optional[Tuple[str, ...]] = None
    extend_select: Tuple[str, ...] = ()
    ignore: Optional[Tuple[str, ...]] = None
    fixable: Optional[Tuple[str, ...]] = None
    unfixable: Tuple[str, ...] = ()
    exclude: Optional[Tuple[str, ...]] = None
    extend_exclude: Tuple[str, ...] = ()
    unsafe_fixes: Optional[bool] = None
    #: Where results are cached (``cache-dir``, relative to the file's folder).
    cache_dir: Optional[str] = None
    #: (glob, codes) pairs, globs relative to :attr:`root`.
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = field(default_factory=tuple)

    @property
    def root(self) -> Optional[Path]:
        return self.path.parent if self.path is not None else None

    def options(
        self,
        *,
        select: Optional[Sequence[str]] = None,
        extend_select: Sequence[str] = (),
        ignore: Optional[Sequence[str]] = None,
        fixable: Optional[Sequence[str]] = None,
        unfixable: Sequence[str] = (),
        unsafe_fixes: Optional[bool] = None,
        fix: bool = True,
    ) -> Options:
        """:class:`Options` from this configuration; arguments that are not ``None`` win.

        As in ruff, ``--select`` replaces the file's ``select`` and ``extend-select``;
        ``--extend-select`` and ``--unfixable`` add to the file's lists.
        Raises :class:`~autofix.registry.UnknownRuleError` when the selection matches nothing.
        """
        if select is not None:
            chosen = tuple(select)
        else:
            chosen = (*(self.select or DEFAULT_SELECT), *self.extend_select)
        chosen = (*chosen, *extend_select)
        ignored = tuple(ignore if ignore is not None else self.ignore or ())
        # Fail on codes now rather than once per file inside the workers.
        registry.select_infos(chosen, ignored)
        fixable_codes = fixable if fixable is not None else self.fixable
        return Options(
            select=chosen,
            ignore=ignored,
            unsafe_fixes=bool(unsafe_fixes if unsafe_fixes is not None else self.unsafe_fixes),
            fix=fix,
            per_path_ignores=self.per_file_ignores,
            root=str(self.root) if self.root is not None else None,
            fixable=tuple(fixable_codes) if fixable_codes is not None else None,
            unfixable=(*self.unfixable, *unfixable),
        )


#: What runs when neither the config nor the command line selects: every AF rule.
DEFAULT_SELECT = ("AF",)
_CODE_LISTS = ("select", "extend-select", "ignore", "fixable", "unfixable")
_PATTERN_LISTS = ("exclude", "extend-exclude")
KEYS = (*_CODE_LISTS, *_PATTERN_LISTS, "unsafe-fixes", "per-file-ignores", "cache-dir")


def path_matches(path: str, pattern: str) -> bool:
    """gitignore-style match of ``pattern`` against ``path`` (as used by per-path ignores)."""
    return _spec(pattern).match_file(PurePath(path).as_posix())


@lru_cache(maxsize=256)
def _spec(pattern: str) -> pathspec.PathSpec:
    return pathspec.GitIgnoreSpec.from_lines([pattern])


def find_pyproject(start: "os.PathLike[str] | str") -> Optional[Path]:
    """The nearest ``pyproject.toml`` at or above ``start`` with a ``[tool.autofix]`` table."""
    here = Path(os.path.abspath(start))
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and "autofix" in _tool_table(candidate):
            return candidate
    return None


def _tool_table(path: Path) -> Dict[str, Any]:
    tool = _read_toml(path).get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: tool: expected a table ([tool.autofix]), got {tool!r}")
    return tool


def load(path: Optional[Path]) -> Config:
    """Read and validate ``[tool.autofix]`` of ``path`` (``None``: an empty config)."""
    if path is None:
        return Config()
    table = _tool_table(path).get("autofix", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: tool.autofix: expected a table ([tool.autofix]), got {table!r}")
    return parse_table(table, path)


def discover(start: "os.PathLike[str] | str") -> Config:
    return load(find_pyproject(start))


def parse_table(table: Dict[str, Any], path: Path) -> Config:
    where = f"{path}: [tool.autofix]"
    for key in table:
        if key not in KEYS:
            hint = difflib.get_close_matches(key.replace("_", "-"), KEYS, n=1)
            suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
            raise ConfigError(
                f"{where}: unknown key {key!r}{suggestion}; known keys: {', '.join(KEYS)}"
            )
    values: Dict[str, Any] = {}
    for key in _CODE_LISTS:
        if key in table:
            values[key.replace("-", "_")] = _codes(table[key], f"{where} {key}")
    if values.get("select") == ():
        raise ConfigError(
            f"{where} select: an empty list selects no rule; remove the key to check every rule"
        )
    for key in _PATTERN_LISTS:
        if key in table:
            values[key.replace("-", "_")] = _patterns(table[key], f"{where} {key}")
    if "unsafe-fixes" in table:
        if not isinstance(table["unsafe-fixes"], bool):
            raise ConfigError(f"{where} unsafe-fixes: expected true or false")
        values["unsafe_fixes"] = table["unsafe-fixes"]
    if "cache-dir" in table:
        folder = table["cache-dir"]
        if not isinstance(folder, str) or not folder.strip():
            raise ConfigError(f"{where} cache-dir: expected a folder path as a string")
        values["cache_dir"] = os.path.join(path.parent, os.path.expanduser(folder))
    if "per-file-ignores" in table:
        ignores = table["per-file-ignores"]
        if not isinstance(ignores, dict):
            raise ConfigError(f"{where} per-file-ignores: expected a table of glob = [codes]")
        values["per_file_ignores"] = tuple(
            (
                _patterns([glob], f"{where} per-file-ignores")[0],
                _codes(codes, f"{where} per-file-ignores {glob!r}"),
            )
            for glob, codes in ignores.items()
        )
    return Config(path=path, **values)


def parse_codes(text: str, where: str = "") -> Tuple[str, ...]:
    """``"AF101, AF104"`` → validated codes (used for command-line flags)."""
    return _codes([part for part in text.split(",") if part.strip()], where)


def _codes(value: Any, where: str) -> Tuple[str, ...]:
    codes = tuple(code.strip().upper() for code in _strings(value, where))
    for code in codes:
        try:
            registry.validate_codes([code])
        except registry.UnknownRuleError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return codes


def _strings(value: Any, where: str) -> Tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    if not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    return tuple(value)


def _patterns(value: Any, where: str) -> Tuple[str, ...]:
    """gitignore-style patterns, checked now so that a bad one fails at load time, once."""
    patterns = _strings(value, where)
    for pattern in patterns:
        parts = PurePath(pattern.lstrip("!/")).parts
        if os.pardir in parts:
            raise ConfigError(
                f"{where}: {pattern!r} reaches outside the folder of pyproject.toml; "
                "patterns match paths below it"
            )
        try:
            _spec(pattern)
        except Exception as exc:  # pathspec raises its own error types, and re.error
            raise ConfigError(f"{where}: invalid pattern {pattern!r}: {exc}") from None
    return patterns


def _read_toml(path: Path) -> Dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None


class Resolver:
    """Each path's nearest ``[tool.autofix]``, looked up and loaded once per folder (as ruff)."""

    def __init__(self) -> None:
        self._nearest: Dict[str, Optional[Path]] = {}
        self._loaded: Dict[Optional[Path], Config] = {}

    def config(self, path: str) -> Config:
        """The configuration that applies to ``path`` (a file or a folder)."""
        absolute = os.path.abspath(path)
        folder = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        found = self._find(folder)
        if found not in self._loaded:
            self._loaded[found] = load(found)
        return self._loaded[found]

    def _find(self, folder: str) -> Optional[Path]:
        if folder not in self._nearest:
            candidate = Path(folder) / "pyproject.toml"
            if candidate.is_file() and "autofix" in _tool_table(candidate):
                self._nearest[folder] = candidate
            else:
                parent = os.path.dirname(folder)
                self._nearest[folder] = None if parent == folder else self._find(parent)
        return self._nearest[folder]

    def group(self, paths: Sequence[str]) -> List[Tuple[Config, List[str]]]:
        """``paths`` grouped by the configuration that applies to each, in first-seen order."""
        groups: Dict[Optional[Path], Tuple[Config, List[str]]] = {}
        for path in paths:
            config = self.config(path)
            groups.setdefault(config.path, (config, []))[1].append(path)
        return list(groups.values())

    def excluded(self, path: str) -> bool:
        """Whether the nearest configuration of a file found in a walk excludes it.

        The walk applies the excludes of the configuration of the path it was
        given; this catches a deeper ``pyproject.toml``'s own ``exclude`` and
        ``extend-exclude`` (relative to its folder).
        """
        config = self.config(path)
        patterns = (*(config.exclude or ()), *config.extend_exclude)
        if config.root is None or not patterns:
            return False
        relative = os.path.relpath(os.path.abspath(path), config.root)
        return any(path_matches(relative, pattern) for pattern in patterns)

    def options(self, files: Sequence[str], **overrides: Any) -> Options:
        """Options for ``files``: each file's nearest configuration, with ``overrides`` on top.

        The result holds one :class:`Options` per configuration found
        (:attr:`Options.scoped`); :meth:`Options.for_path` picks a file's own.
        A file with no configuration above it gets the defaults.
        """
        base = Config().options(**overrides)
        scoped = {}
        for path in files:
            config = self.config(path)
            if config.root is not None and config.path not in scoped:
                scoped[config.path] = (os.path.abspath(config.root), config.options(**overrides))
        deepest_first = sorted(scoped.values(), key=lambda item: len(item[0]), reverse=True)
        return dataclasses.replace(base, scoped=tuple(deepest_first))


def common_root(paths: Sequence[str]) -> str:
    """The deepest folder holding every path (the config search start, the --verify-cmd root)."""
    folders: List[str] = []
    for p in paths:
        absolute = os.path.abspath(p)
        folders.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    if not folders:
        return os.getcwd()
    return os.path.commonpath(folders)
