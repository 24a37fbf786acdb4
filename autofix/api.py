"""Paths and sources in, :class:`~autofix.types.FileResult` values out.

No printing, no click, no writing: the CLI and the language server are thin
adapters over these functions.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Iterator, List, Optional, Sequence, Tuple, Type, Union

from autofix.types import FIND_PROJECT, FileResult, Options

if TYPE_CHECKING:
    from autofix.rule import Rule

#: Options are frozen: one shared default is safe.
_DEFAULT_OPTIONS = Options()

# The engine, the registry and the rules import LibCST: they are imported where
# a file is really checked, so that cached results and --version stay cheap.


def _ignored(options: Options, path: Optional[str]) -> List[str]:
    """``options.ignore`` plus the per-path ignores that match ``path``."""
    ignore = list(options.ignore)
    if path is not None and options.per_path_ignores:
        from autofix.config import path_matches

        relative = _relative(path, options.root)
        for pattern, codes in options.per_path_ignores:
            if path_matches(relative, pattern):
                ignore.extend(codes)
    return ignore


def rules_for(options: Options, path: Optional[str] = None) -> Sequence[Type[Rule]]:
    """The rules ``options`` selects for ``path`` (per-path ignores applied)."""
    from autofix import registry

    return registry.select_rules(options.select, _ignored(options, path))


def no_rule_may_fire(source: bytes, options: Options, path: Optional[str] = None) -> bool:
    """No rule selected for ``path`` has a trigger word in ``source``: nothing can be reported.

    Answered from the rules' trigger words alone, without importing the rules,
    the engine or LibCST (a run over files that never mention ``backward``
    stays cheap). The engine asks the same rules the same question first.
    """
    if b"\x00" in source:
        return False  # the engine reports a binary file
    from autofix import registry

    text = source.decode("latin-1")
    return not any(info.may_fire(text) for info in registry.select_infos(options.select, _ignored(options, path)))


#: A tiny training step with a finding: linting it loads and exercises
#: everything a real check needs (LibCST's native parser, the rules, the model).
_WARM_UP = b"def f(model, x, opt):\n    out = model(x)\n    out.sum().backward()\n    out.mean().backward()\n    opt.step()\n"


def warm_up(options: Options = _DEFAULT_OPTIONS) -> None:
    """Import and exercise what checking a file needs, before the first real file.

    The runner calls it before forking its workers (so that none pays for the
    imports), the language server right after ``initialized``.
    """
    fix_source(_WARM_UP, "<warm-up>", options, None)


def fix_source(
    source: Union[str, bytes], path: str = "<stdin>", options: Options = _DEFAULT_OPTIONS, project: Any = FIND_PROJECT
) -> FileResult:
    """Check (and with ``options.fix``, fix) one source text.

    Names imported from other files resolve through ``project`` (an
    :class:`autofix.model.Project`, or None for the file alone); by default
    the project around ``path`` when it names a file on disk.
    """
    from autofix import engine

    if isinstance(source, str):
        source = source.encode("utf-8")
    options = options.for_path(path)
    return engine.check_source(source, path, rules_for(options, path), options, project)


def check_file(path: Union[str, "os.PathLike[str]"], options: Options = _DEFAULT_OPTIONS) -> FileResult:
    """Read one file and check it, with the project around it; read errors come back as ``FileResult.error``.

    With ``options.cache_dir`` a result stored by an earlier run for the same
    bytes, path, version and options is returned instead of checking again,
    while the other project files the program model read for it are unchanged.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            source = handle.read()
    except OSError as exc:
        return FileResult(name, None, None, error=f"cannot read file: {exc.strerror or exc}")
    options = options.for_path(name)
    if no_rule_may_fire(source, options, name):
        return FileResult(name, source, source, skipped_by_prefilter=True)
    from autofix import engine

    if options.cache_dir is None:
        return engine.check_source(source, name, rules_for(options, name), options)
    from autofix.cache import Cache, content_hash
    from autofix.model.project import project_for

    cache = Cache(options.cache_dir)
    key = cache.key(name, source, options)
    result = cache.get(key, source)
    if result is None:
        project = project_for(name)
        if project is None:
            result = engine.check_source(source, name, rules_for(options, name), options, None)
            cache.put(key, result)
            return result
        with project.recording() as consulted:
            result = engine.check_source(source, name, rules_for(options, name), options, project)
        dependencies = []
        for other in sorted(consulted - {os.path.realpath(name)}):
            data = project.bytes_of(other)
            if data is not None:
                dependencies.append((other, content_hash(data)))
        cache.put(key, result, dependencies)
    return result


def cached_result(path: str, options: Options) -> Optional[FileResult]:
    """The cached result for ``path`` if there is a valid one; never checks, never imports LibCST."""
    options = options.for_path(path)
    if options.cache_dir is None:
        return None
    from autofix.cache import Cache

    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except OSError:
        return None
    cache = Cache(options.cache_dir)
    return cache.get(cache.key(path, source, options), source)


def discover(
    paths: Sequence[str],
    *,
    exclude: Optional[Sequence[str]] = None,
    extend_exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
) -> Tuple[List[str], List[FileResult]]:
    """The Python files under ``paths`` and the paths that could not be walked.

    ``exclude`` replaces the default excludes (``None`` keeps them);
    ``extend_exclude`` adds to them. Explicit file arguments are always kept.
    """
    from autofix import discovery

    if exclude is None:
        return discovery.discover(list(paths), extend_exclude=tuple(extend_exclude), respect_gitignore=respect_gitignore)
    return discovery.discover(
        list(paths), exclude=tuple(exclude), extend_exclude=tuple(extend_exclude), respect_gitignore=respect_gitignore
    )


def check_paths(
    files: Sequence[str], options: Options = _DEFAULT_OPTIONS, *, jobs: Optional[int] = None
) -> Iterator[FileResult]:
    """Check ``files`` (already discovered) over ``jobs`` processes, yielding as they finish."""
    from autofix import runner

    return runner.run(list(files), options, jobs=jobs)


def fix_paths(
    paths: Sequence[str],
    options: Options = _DEFAULT_OPTIONS,
    *,
    jobs: Optional[int] = None,
    exclude: Optional[Sequence[str]] = None,
    extend_exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
) -> List[FileResult]:
    """Discover, check and (with ``options.fix``) fix every file under ``paths``.

    Returns one result per file, sorted by path, including the paths that
    could not be read or walked. Nothing is written: see :mod:`autofix.writer`.
    """
    files, problems = discover(
        paths, exclude=exclude, extend_exclude=extend_exclude, respect_gitignore=respect_gitignore
    )
    results = list(problems)
    results.extend(check_paths(files, options, jobs=jobs))
    return sorted(results, key=lambda r: r.path)


def _relative(path: str, root: Optional[str]) -> str:
    # Per-path globs are written relative to the config file's folder; paths
    # outside it (or with no config) are matched as given.
    if root is None:
        return path
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, root)
    except ValueError:  # another drive on Windows
        return path
    return path if relative.startswith(os.pardir) else relative


def run_doctor(
    command: str,
    paths: Sequence[str],
    options: Optional[Options] = None,
    settings: Optional[object] = None,
    *,
    root: Optional[str] = None,
    jobs: Optional[int] = None,
    exclude: Optional[Sequence[str]] = None,
    extend_exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
):
    """``autofix --run``: run ``command`` in a copy of ``root`` and diagnose it (see :mod:`autofix.doctor`).

    ``paths`` (default ``.``) are where findings and fixes may go; returns a
    :class:`autofix.doctor.DoctorReport` whose ``results`` hold the static
    findings on those files with runtime evidence merged in.
    """
    from autofix.doctor import DEFAULT_STEPS, diagnose_command
    from autofix.verify.settings import VerifySettings

    paths = list(paths) or [os.curdir]
    options = options or Options()
    settings = settings or VerifySettings(max_steps=DEFAULT_STEPS)
    files, problems = discover(
        paths, exclude=exclude, extend_exclude=extend_exclude, respect_gitignore=respect_gitignore
    )
    static = [*problems, *check_paths(files, options, jobs=jobs)]
    return diagnose_command(command, root or os.getcwd(), paths, files, options, settings, static)
