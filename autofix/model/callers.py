"""Who runs a method once per iteration of a loop, across the files of the project.

Real trainers put the step (``backward``, ``step``, ``zero_grad``) in a mixin
or base class of one file, and the loop that calls it in a subclass in another
file, which may mention neither ``backward`` nor ``zero_grad``. A finding
about the step belongs in the file that holds it, so the question runs
backwards: which classes of the project inherit the method, and which of their
methods (or their bases' methods) call it inside a loop?

Subclasses are found through an index of ``class Name(Base, ...)`` headers of
every Python file under the project root, built once per project and process
(the files are only scanned with a regular expression; a file is summarised
only when one of its classes names the base). Nothing is imported or run.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from autofix.model.project import ModuleModel, Project
from autofix.model.summaries import ClassSummary, FunctionSummary

#: folders never read as part of the project
_SKIP_DIRS = frozenset({"site-packages", "node_modules", "__pycache__", "build", "dist", "venv", "env"})
#: a project larger than this is not indexed: the answer would cost a scan of a whole monorepo
_MAX_FILES = 4000
#: nor a root holding more entries than this (a folder with no project marker above a data set)
_MAX_ENTRIES = 50000
#: how many levels of subclasses are followed
_MAX_DEPTH = 4
_CLASS_HEADER = re.compile(rb"^[ \t]*class[ \t]+\w+[ \t]*\(([^)]*)\)", re.MULTILINE)
_FROM_IMPORT = re.compile(rb"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+\(?([^)\n]*)", re.MULTILINE)
_NAME = re.compile(rb"[A-Za-z_][\w.]*")

_lock = threading.Lock()
#: project root → (simple name → files whose class headers or ``from … import`` lines name it);
#: None: too large. Base names are keyed as they are, imported names with a ``from:`` prefix.
_INDEXES: Dict[str, Optional[Dict[str, Set[Path]]]] = {}
#: search root → its Python files (None: too large)
_FILES: Dict[str, Optional[Tuple[Path, ...]]] = {}


@dataclass(frozen=True)
class LoopedCaller:
    """A function that calls the method (``self.<method>(...)``, on an object of ``cls``) or the
    function (imported by name) inside a loop."""

    caller: FunctionSummary
    #: the class whose instance runs the loop (the subclass that inherits the method); None for a function
    cls: Optional[ClassSummary]
    #: the model of the module that defines ``cls``
    model: ModuleModel
    #: the file that holds the looping method
    path: str


def python_files(root: Path) -> Optional[Tuple[Path, ...]]:
    """The Python files under ``root`` (hidden, virtual-environment and build folders left out),
    listed once per process; None for a root too large to search (the answer stays unknown)."""
    key = str(root)
    with _lock:
        if key in _FILES:
            return _FILES[key]
    found: List[Path] = []
    entries = 0
    answer: Optional[Tuple[Path, ...]] = None
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS]
        entries += len(files) + len(dirs)
        if entries > _MAX_ENTRIES:
            break
        found.extend(Path(folder, name) for name in files if name.endswith(".py"))
        if len(found) > _MAX_FILES:
            break
    else:
        answer = tuple(found)
    with _lock:
        _FILES[key] = answer
    return answer


def _index(project: Project) -> Optional[Dict[str, Set[Path]]]:
    key = str(project.root)
    with _lock:
        if key in _INDEXES:
            return _INDEXES[key]
    files = python_files(project.root)
    answer: Optional[Dict[str, Set[Path]]] = None
    if files is not None:
        answer = {}
        for path in files:
            data = project.bytes_of(path)
            if data is None:
                continue
            for header in _CLASS_HEADER.finditer(data):
                for base in _NAME.findall(header.group(1)):
                    simple = base.rsplit(b".", 1)[-1].decode("ascii", "replace")
                    answer.setdefault(simple, set()).add(path.resolve())
            for line in _FROM_IMPORT.finditer(data):
                for part in line.group(1).split(b","):
                    words = part.split()
                    if words:
                        answer.setdefault("from:" + words[0].decode("ascii", "replace"), set()).add(path.resolve())
    with _lock:
        _INDEXES[key] = answer
    return answer


def clear_index() -> None:
    """Forget the class-header indexes (tests; a language server after files were added)."""
    with _lock:
        _INDEXES.clear()
        _FILES.clear()


def _same(a: ClassSummary, b: ClassSummary) -> bool:
    return a.module == b.module and a.qualname == b.qualname


def _subclasses(model: ModuleModel, cls: ClassSummary) -> List[Tuple[ClassSummary, ModuleModel]]:
    """``cls`` and every project class that has it among its bases, with the model of each one's module."""
    project = model.project
    home = model.class_model(cls)
    found: List[Tuple[ClassSummary, ModuleModel]] = [(cls, home)]
    if project is None:
        return found
    index = _index(project)
    if index is None:
        return found
    seen = {(cls.module, cls.qualname)}
    frontier = [cls]
    for _ in range(_MAX_DEPTH):
        following: List[ClassSummary] = []
        for parent in frontier:
            for path in sorted(index.get(parent.name, ())):
                summary = project.summary_of_file(path)
                if summary is None:
                    continue
                other = home if summary.name == home.summary.name else ModuleModel(summary, project, path)
                for candidate in summary.classes.values():
                    if (candidate.module, candidate.qualname) in seen:
                        continue
                    if any(_same(base, parent) for base in other.mro(candidate)[1:]):
                        seen.add((candidate.module, candidate.qualname))
                        found.append((candidate, other))
                        following.append(candidate)
        frontier = following
        if not frontier:
            break
    return found


def looped_callers(model: ModuleModel, method: FunctionSummary) -> List[LoopedCaller]:
    """Methods of the project that call ``method`` on ``self`` inside a loop body.

    The loop may sit in the method's own class, in a base class, or in a
    subclass in another file (a mixin's ``apply_grads`` called by the subclass's
    ``train_epoch``); the call must run this very method (a subclass that
    overrides it runs its own).
    """
    cls = model.class_of(method)
    if cls is None:
        return []
    found: List[LoopedCaller] = []
    for owner, owner_model in _subclasses(model, cls):
        runs = owner_model.method(owner, method.name)
        if runs is None or runs.module != method.module or runs.qualname != method.qualname:
            continue
        for current in owner_model.mro(owner):
            path = owner_model.class_model(current).summary.path
            for caller in current.methods.values():
                if caller is method or not caller.params or owner_model.method(owner, caller.name) is not caller:
                    continue
                if f"{caller.params[0]}.{method.name}" in caller.looped_calls:
                    found.append(LoopedCaller(caller, owner, owner_model, path))
    return found


def looped_function_callers(model: ModuleModel, function: FunctionSummary) -> List[LoopedCaller]:
    """Functions of other project files that import ``function`` by name and call it inside a loop
    (``for batch in loader: update(model, optimizer, batch)`` in the script, ``update`` in ``algo.py``)."""
    project = model.project
    if project is None or function.class_name is not None or "." in function.qualname or not function.module:
        return []
    index = _index(project)
    if index is None:
        return []
    qualified = f"{function.module}.{function.name}"
    found: List[LoopedCaller] = []
    for path in sorted(index.get("from:" + function.name, ())):
        summary = project.summary_of_file(path)
        if summary is None or summary.name == function.module:
            continue
        other = ModuleModel(summary, project, path)
        for caller in summary.functions.values():
            if any(other.qualify(spelled) == qualified for spelled in caller.looped_calls):
                found.append(LoopedCaller(caller, None, other, str(path)))
    return found


def instance_callers(model: ModuleModel, method: FunctionSummary) -> List[LoopedCaller]:
    """Functions of other project files that build an instance of ``method``'s class (imported by
    name) and call the method on it (``executor = Executor(); executor.train(model, optimizer, ...)``),
    in a loop or not. Empty when the class cannot be told or the project is too large to index."""
    project = model.project
    cls = model.class_of(method)
    if project is None or cls is None or "." in cls.qualname:
        return []
    index = _index(project)
    if index is None:
        return []
    home = model.class_model(cls).summary.path
    found: List[LoopedCaller] = []
    for path in sorted(index.get("from:" + cls.name, ())):
        summary = project.summary_of_file(path)
        if summary is None or summary.path == home:
            continue
        other = ModuleModel(summary, project, path)
        for caller in summary.functions.values():
            instances = set()
            for local, built in caller.local_constructors.items():
                if built.rsplit(".", 1)[-1] != cls.name:
                    continue
                # The same class, whatever name its module is reached by (a folder without __init__.py).
                resolved = other.resolve_qualified_or_local(built)
                if resolved is not None and resolved.qualname == cls.qualname and other.class_model(resolved).summary.path == home:
                    instances.add(local)
            if any(f"{instance}.{method.name}" in caller.calls for instance in instances):
                found.append(LoopedCaller(caller, None, other, str(path)))
    return found
