"""The project around a file: its modules, import resolution, a content-hash cache of summaries.

Nothing is imported or executed: modules are found on disk and parsed with
:mod:`ast` on the first question about a name they define. Summaries are
cached process-wide by ``(path, content hash)``, so the command line, each
runner worker and the language server summarise a file again only when its
text changed.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import re
import threading
from pathlib import Path
import contextlib
from typing import AbstractSet, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple, Union

from autofix.types import FIND_PROJECT
from autofix.model.vocabulary import MODULE_SELF_METHODS, OUTPUT_SAVING_MODULES
from autofix.model.frameworks import (
    Framework,
    LoopContract,
    base_framework,
    combine,
    method_contract,
    update_function_contract,
)
from autofix.model.returned import RUN_MARK, held_source
from autofix.model.summaries import (
    AttributeSummary,
    AttrKind,
    ClassSummary,
    FunctionSummary,
    MODULE_BODY,
    GRAPHLESS_KINDS,
    Kind,
    MemberUse,
    ModuleSummary,
    Returns,
    Shape,
    grad_disabling,
    summarize,
    summarize_imports,
)

_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
#: how far a chain of re-exports or base classes is followed
_MAX_DEPTH = 8
#: how far :meth:`ModuleModel.methods_named` (and its index) follows imports, and how many modules it reads at most
_IMPORT_DEPTH = 2
_MAX_MODULES = 64
#: ``def name`` in a module's text: the functions and methods it may define
_DEFINED = re.compile(r"\bdef\s+(\w+)")
#: bases that make no framework
_PLAIN_BASES = frozenset({"object", "abc.ABC", "typing.Generic", "Exception", "enum.Enum", "typing.NamedTuple"})
#: ``nn.Module`` methods that move, switch or list a module without reading the state its forward keeps
_MODULE_BOOKKEEPING = MODULE_SELF_METHODS | frozenset({
    "parameters", "named_parameters", "buffers", "named_buffers", "modules", "named_modules", "children",
    "named_children", "zero_grad", "state_dict", "load_state_dict", "flatten_parameters",
})

Definition = Union[FunctionSummary, ClassSummary]



_lock = threading.Lock()
#: (resolved path, sha1 of the bytes) → summary
_SUMMARIES: Dict[Tuple[str, str], ModuleSummary] = {}
#: resolved path → (mtime_ns, size, sha1): skips hashing a file whose stat did not change
_STATS: Dict[str, Tuple[int, int, str]] = {}
_PROJECTS: Dict[str, "Project"] = {}
#: folder → its project root (a marker added while the process runs is not seen)
_ROOTS: Dict[Path, Path] = {}


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def parse_summary(
    source: Union[bytes, str],
    name: str,
    path: str,
    package: Optional[str] = None,
    tree: Optional[ast.Module] = None,
) -> Optional[ModuleSummary]:
    """The summary of ``source`` (cached by content); None when Python cannot parse it.

    ``tree``: Python's parse of ``source`` when the caller has it (the engine's screens made one).
    """
    data = source.encode("utf-8") if isinstance(source, str) else source
    key = (path, _digest(data) + "|" + name)
    with _lock:
        found = _SUMMARIES.get(key)
    if found is not None:
        return found
    if tree is None:
        from autofix.analysis.screen import parse_python

        tree = parse_python(data)
    if tree is None:
        return None
    summary = summarize(tree, name, path, package, data)
    with _lock:
        _SUMMARIES[key] = summary
    return summary


def clear_cache() -> None:
    """Forget every summary and project (tests)."""
    with _lock:
        _SUMMARIES.clear()
        _STATS.clear()
        _PROJECTS.clear()
        _ROOTS.clear()


def find_root(path: Union[str, Path]) -> Path:
    """The nearest folder upward from ``path`` with a project marker, else the file's folder."""
    start = Path(path).resolve()
    folder = start if start.is_dir() else start.parent
    with _lock:
        known = _ROOTS.get(folder)
    if known is not None:
        return known
    found = folder
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in _ROOT_MARKERS):
            found = candidate
            break
    with _lock:
        _ROOTS[folder] = found
    return found


def _in_namespace_package(relative: Path, importer: Path) -> Optional[Path]:
    """``from train.metrics import f`` in ``train/train_epoch.py`` of a folder with no ``__init__.py``
    and no project marker (a script run from the folder above ``train/``): the module beside the
    importer in the namespace package named by the import's first part, if there is one."""
    head = relative.parts[0]
    for folder in list(Path(importer).resolve().parents)[:4]:
        if folder.name == head and not (folder / "__init__.py").exists():
            base = folder.parent / relative
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file():
                    return candidate.resolve()
            return None
    return None


class Project:
    """The modules of one project root. Get one with :meth:`for_path` (one per root per process)."""

    def __init__(self, root: Union[str, Path]) -> None:
        self.root = Path(root).resolve()
        #: unsaved editor text by resolved path (the language server's open documents)
        self._overlays: Dict[str, bytes] = {}
        self._found: Dict[Tuple[str, Tuple[str, ...]], Optional[Path]] = {}
        self._recorders: List[Set[str]] = []
        self._names: Dict[Path, Tuple[str, Path]] = {}

    @classmethod
    def for_path(cls, path: Union[str, Path]) -> "Project":
        root = str(find_root(path))
        with _lock:
            project = _PROJECTS.get(root)
            if project is None:
                project = _PROJECTS[root] = cls(root)
        return project

    # ------------------------------------------------------------------ files and names

    @contextlib.contextmanager
    def recording(self) -> Iterator[Set[str]]:
        """Collect the paths of the project files whose summaries are read while the block runs.

        A result that consulted other files depends on them: the result cache
        keeps their hashes next to it.
        """
        consulted: Set[str] = set()
        self._recorders.append(consulted)
        try:
            yield consulted
        finally:
            self._recorders.remove(consulted)

    def consult(self, path: Union[str, Path]) -> None:
        """Say that the answer being computed read ``path`` (see :meth:`recording`)."""
        key = str(Path(path).resolve())
        for consulted in self._recorders:
            consulted.add(key)

    def bytes_of(self, path: Union[str, Path]) -> Optional[bytes]:
        """The text of a project file as the model reads it (an open buffer's, else the disk's)."""
        key = str(Path(path).resolve())
        return self._overlays.get(key) or _read(Path(key))

    def set_overlay(self, path: Union[str, Path], text: Optional[str]) -> None:
        """Use ``text`` for ``path`` instead of the disk's (None: back to the disk)."""
        key = str(Path(path).resolve())
        if text is None:
            self._overlays.pop(key, None)
        else:
            self._overlays[key] = text.encode("utf-8")

    def module_name(self, path: Union[str, Path]) -> Tuple[str, Path]:
        """``(dotted name, the folder it is importable from)`` of a file, following ``__init__.py`` packages."""
        known = self._names.get(Path(path))
        if known is not None:
            return known
        file = Path(path).resolve()
        known = self._names.get(file)
        if known is not None:
            self._names[Path(path)] = known
            return known
        parts = [] if file.name == "__init__.py" else [file.stem]
        folder = file.parent
        while (folder / "__init__.py").exists() and folder != folder.parent:
            parts.append(folder.name)
            folder = folder.parent
        answer = self._names[file] = (".".join(reversed(parts)), folder)
        return answer

    def search_roots(self, importer: Optional[Path] = None) -> Tuple[str, ...]:
        """Folders absolute imports are looked up in: the importer's top folder, the root, ``src/``."""
        roots: List[str] = []
        if importer is not None:
            roots.append(str(self.module_name(importer)[1]))
        roots.append(str(self.root))
        if (self.root / "src").is_dir():
            roots.append(str(self.root / "src"))
        return tuple(dict.fromkeys(roots))

    def find_module(self, dotted: str, importer: Optional[Path] = None) -> Optional[Path]:
        """The file of module ``dotted`` inside the project, or None (a library, or missing)."""
        roots = self.search_roots(importer)
        key = (dotted, roots)
        if key in self._found:
            return self._found[key]
        found = None
        relative = Path(*dotted.split("."))
        for root in roots:
            base = Path(root) / relative
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file():
                    found = candidate.resolve()
                    break
            if found is not None:
                break
        if found is not None and self.root not in found.parents and importer is not None and Path(roots[0]) not in found.parents:
            found = None
        if found is None and importer is not None:
            found = _in_namespace_package(relative, importer)
        self._found[key] = found
        return found

    def summary_of_file(
        self,
        path: Union[str, Path],
        source: Optional[bytes] = None,
        tree: Optional[ast.Module] = None,
    ) -> Optional[ModuleSummary]:
        """The summary of a file of the project (``source``: its text when the caller has it, ``tree``
        its parse)."""
        file = Path(path).resolve()
        key = str(file)
        for consulted in self._recorders:
            consulted.add(key)
        name, _ = self.module_name(file)
        package = name if file.name == "__init__.py" else name.rpartition(".")[0]
        if source is None:
            source = self._overlays.get(key)
        if source is None:
            cached = _unchanged(file, name)
            if cached is not None:
                return cached
            source = _read(file)
            if source is None:
                return None
        return parse_summary(source, name, key, package, tree)

    def module(self, dotted: str, importer: Optional[Path] = None) -> Optional[ModuleSummary]:
        """The summary of project module ``dotted`` (parsed on first use), or None."""
        file = self.find_module(dotted, importer)
        return None if file is None else self.summary_of_file(file)


def _unchanged(file: Path, name: str) -> Optional[ModuleSummary]:
    """The cached summary of a file whose size and modification time did not change since it was read."""
    try:
        stat = file.stat()
    except OSError:
        return None
    with _lock:
        known = _STATS.get(str(file))
        if known is None or known[:2] != (stat.st_mtime_ns, stat.st_size):
            return None
        key = (str(file), known[2] + "|" + name)
        return _SUMMARIES.get(key)


def _read(file: Path) -> Optional[bytes]:
    try:
        stat = file.stat()
        data = file.read_bytes()
    except OSError:
        return None
    with _lock:
        _STATS[str(file)] = (stat.st_mtime_ns, stat.st_size, _digest(data))
    return data


# --------------------------------------------------------------------------- the model of one module


#: ``torch.nn`` classes whose instances are tensors
_TENSOR_CLASSES = frozenset({"Parameter", "UninitializedParameter", "Buffer", "UninitializedBuffer"})


class ModuleModel:
    """The current module's summaries, able to resolve names through its project.

    This is ``RuleContext.model``. Without a project (a file given alone, on
    stdin) names imported from other files resolve to nothing, and whatever
    depends on them is unknown.
    """

    def __init__(self, summary: ModuleSummary, project: Optional[Project] = None, path: Optional[Path] = None) -> None:
        self.summary = summary
        self.project = project
        self.path = path
        # Answers depend on other files, which may change between checks: memoised per model (one check).
        self._returns_memo: Dict[int, Returns] = {}
        self._mro_memo: Dict[int, List[ClassSummary]] = {}
        self._framework_memo: Dict[int, Framework] = {}
        self._carried_memo: Dict[int, Dict[str, Tuple[str, ...]]] = {}
        self._reset_memo: Dict[Tuple[int, str, int], FrozenSet[str]] = {}
        self._backward_memo: Dict[int, bool] = {}
        self._loops_memo: Dict[int, bool] = {}
        self._reached_memo: Dict[int, List[FunctionSummary]] = {}
        self._models: Dict[str, ModuleModel] = {}
        self._modules: Dict[str, Optional[ModuleSummary]] = {}
        self._methods_named: Optional[Tuple[Dict[str, List[ClassSummary]], List[Tuple[str, FrozenSet[str]]]]] = None
        self._parameter_classes: Dict[Tuple[str, str], Optional[ClassSummary]] = {}
        self._cut_memo: Dict[int, FrozenSet[str]] = {}

    # ------------------------------------------------------------------ this module

    @property
    def imports(self) -> Dict[str, str]:
        return self.summary.imports

    def qualify(self, dotted: str) -> str:
        """``nn.ReLU`` → ``torch.nn.ReLU`` (see :meth:`ModuleSummary.qualify`)."""
        return self.summary.qualify(dotted)

    def function(self, qualname: str) -> Optional[FunctionSummary]:
        """A function or method of this module by qualname (``train``, ``Trainer.train_step``)."""
        return self.summary.functions.get(qualname)

    def cls(self, qualname: str) -> Optional[ClassSummary]:
        """A class of this module by qualname."""
        return self.summary.classes.get(qualname)

    def function_at(self, line: int) -> Optional[FunctionSummary]:
        """The innermost function or method whose ``def`` spans ``line`` (1-based); the module body's
        summary (``"<module>"``) when no function does."""
        best: Optional[FunctionSummary] = None
        for function in self.summary.functions.values():
            if function.qualname == MODULE_BODY:
                continue
            if function.line <= line <= function.end_line and (best is None or function.line >= best.line):
                best = function
        return best or self.summary.functions.get(MODULE_BODY)

    def functions(self) -> Iterator[FunctionSummary]:
        return iter(self.summary.functions.values())

    def classes(self) -> Iterator[ClassSummary]:
        return iter(self.summary.classes.values())

    # ------------------------------------------------------------------ across the project

    def resolve(self, dotted: str) -> Optional[Definition]:
        """The function or class a name spelled in this module refers to, here or in a project file.

        ``Net``, ``models.Net``, ``utils.meters.AverageMeter`` … Library names
        (``torch.nn.Linear``) and names of missing files resolve to None.
        """
        head = dotted.split(".", 1)[0]
        if head in self.summary.classes or head in self.summary.functions:
            return self._local(self.summary, dotted)
        if head not in self.summary.imports:
            if not self.summary.star_imports:
                return None  # a local variable or a builtin: no module of the project
            # ``from evaluation import *``: the last star import binding the name wins.
            for star in reversed(self.summary.star_imports):
                module = self._module(star)
                if module is not None and module.star_exports(head):
                    return self.resolve_qualified(f"{star}.{dotted}")
        return self.resolve_qualified(self.qualify(dotted))

    def _script_sibling(self, qualified: str) -> Optional[Definition]:
        """``from NGCF import NGCF`` in ``NGCF/main.py`` beside ``NGCF/NGCF.py``, run as a script from
        its folder (which Python puts first on ``sys.path``): the class in the sibling file, where the
        package view (``NGCF/__init__.py``, or the submodule itself) defines nothing of that name."""
        if self.project is None or self.path is None:
            return None
        head, _, rest = qualified.partition(".")
        sibling = _sibling_file(str(self.path), head) if rest else None
        if sibling is None:
            return None
        module = self.project.summary_of_file(sibling)
        return self._local(module, rest) if module is not None else None

    def resolve_qualified(self, qualified: str, depth: int = 0) -> Optional[Definition]:
        """The definition of a fully qualified name (``pkg.models.Net.forward``) in the project."""
        found = self._resolve_qualified(qualified, depth)
        if found is None and depth == 0:
            found = self._script_sibling(qualified)
        return found

    def _resolve_qualified(self, qualified: str, depth: int) -> Optional[Definition]:
        if self.project is None or depth > _MAX_DEPTH:
            return None
        parts = qualified.split(".")
        # The longest prefix that is a module of the project holds the rest.
        for cut in range(len(parts) - 1, 0, -1):
            module = self._module(".".join(parts[:cut]))
            if module is None:
                continue
            rest = ".".join(parts[cut:])
            found = self._local(module, rest)
            if found is not None:
                return found
            # A re-export: ``from .meters import AverageMeter`` in a package's ``__init__``.
            head, _, tail = rest.partition(".")
            target = module.imports.get(head)
            if target is not None and target != qualified:
                return self.resolve_qualified(f"{target}.{tail}" if tail else target, depth + 1)
            return self._through_stars(module, ".".join(parts[:cut]), rest, depth, set())
        return None

    def _through_stars(
        self, module: ModuleSummary, found_as: str, rest: str, depth: int, seen: Set[str]
    ) -> Optional[Definition]:
        """``rest`` defined, or re-exported by name, in a module that ``module`` star-imports, followed
        through their own star imports. Each star-imported module is looked into once: a package whose
        ``__init__`` star-imports its modules, which star-import each other, is read in linear time."""
        # A module summarised under a shorter name than it was found by (``layers.m0`` for
        # ``pkg.layers.m0``) names its relative star imports the same way: rebase them.
        name = module.name or ""
        prefix = found_as[: len(found_as) - len(name)] if name and found_as.endswith("." + name) else ""
        for star in module.star_imports:
            if star in seen or depth >= _MAX_DEPTH:
                continue
            seen.add(star)
            inner, where = self._module(star), star
            if inner is None and prefix:
                where = prefix + star
                inner = self._module(where)
            if inner is None:
                continue
            found = self._local(inner, rest)
            if found is not None:
                return found
            head, _, tail = rest.partition(".")
            target = inner.imports.get(head)
            if target is not None:
                found = self.resolve_qualified(f"{target}.{tail}" if tail else target, depth + 1)
                if found is not None:
                    return found
            found = self._through_stars(inner, where, rest, depth + 1, seen)
            if found is not None:
                return found
        return None

    def methods_named(self, name: str) -> List[FunctionSummary]:
        """The methods called ``name`` of the classes of this module, of the project modules it imports
        and of theirs: what ``obj.<name>(...)`` may run when the model cannot tell what ``obj`` is."""
        return [cls.methods[name] for cls in self._classes_defining(name)]

    def methods_named_return_no_graph(self, name: str) -> bool:
        """Every method :meth:`methods_named` finds for ``name`` (at least one) is grad-disabled and hands
        back none of its arguments: ``obj.<name>(...)`` returns no graph whatever ``obj`` is."""
        classes = self._classes_defining(name)
        # The decorators are known without reading a method: only grad-disabled ones are read.
        if not classes or not all(grad_disabling(cls.method_decorators.get(name, ())) for cls in classes):
            return False
        return all(cls.methods[name].returns_no_graph for cls in classes)

    def methods_named_add_no_graph(self, name: str) -> bool:
        """Every method :meth:`methods_named` finds for ``name`` (at least one) computes what it returns
        with autograd off (:attr:`FunctionSummary.adds_no_graph`): ``obj.<name>(x)`` hands back at most
        ``x``'s graph whatever ``obj`` is (``self.model.norm_obs(obs)`` of a model built by a factory)."""
        classes = self._classes_defining(name)
        # Only a method decorated grad-disabling or holding a ``no_grad`` block is worth reading.
        if not classes or not all(
            name in cls.no_grad_blocks or grad_disabling(cls.method_decorators.get(name, ())) for cls in classes
        ):
            return False
        return all(cls.methods[name].adds_no_graph for cls in classes)

    def iadd_keeps_nothing(self, method: Optional[FunctionSummary]) -> bool:
        """``method`` is a class's ``__iadd__`` that keeps no graph of the value added: the value
        is not stored, returned nor handed to a call that may keep it (``float(value)``, or
        ``self.values.append(value.detach())``), so ``meter += loss`` leaves ``meter`` holding
        nothing of the loss's graph."""
        if method is None or method.name != "__iadd__" or method.class_name is None or len(method.params) < 2:
            return False
        value = method.params[1]
        return value not in method.kept_params and value not in method.accumulated_params and not any(
            param == value for param, _, _ in method.forwarded_params
        )

    def element_classes(self, cls: ClassSummary, attr: str) -> Optional[List[ClassSummary]]:
        """The project classes of the elements of the container ``self.<attr>`` of ``cls``: built by
        :attr:`AttributeSummary.element_constructor`, or empty and filled by key with instances of
        project classes (:attr:`ClassSummary.element_stores`: ``self.tracks[k] = Meter()``). None when
        any element may be something else (a store of another value, a container built full)."""
        attribute = self.attribute(cls, attr)
        if attribute is None:
            return None
        owners = self.mro(cls)
        if any(attr in owner.attributes and owner.attributes[attr].elements_unknown for owner in owners):
            return None
        found: List[ClassSummary] = []
        for owner in owners:
            model = self._class_model(owner)
            constructors = set(owner.element_stores.get(attr, set()))
            if attr in owner.attributes and owner.attributes[attr].element_constructor:
                constructors.add(owner.attributes[attr].element_constructor)
            for constructor in constructors:
                built = model.resolve_qualified_or_local(constructor) if constructor else None
                if built is None:
                    return None
                found.append(built)
        return found or None

    def elements_add_no_graph(self, method: FunctionSummary, attr: str) -> bool:
        """``self.<attr>[k] += v`` in ``method`` keeps no graph of ``v``: every element of the container
        is an instance of a project class whose ``__iadd__`` keeps nothing (:meth:`iadd_keeps_nothing`)."""
        cls = self.class_of(method)
        classes = self.element_classes(cls, attr) if cls is not None else None
        return classes is not None and all(self.iadd_keeps_nothing(self._class_model(c).method(c, "__iadd__")) for c in classes)

    def _classes_defining(self, name: str) -> List[ClassSummary]:
        """The classes with a method ``name`` in this module and up to ``_IMPORT_DEPTH`` imports away.

        The modules of the last level are only looked for, not parsed: whose imports they hold is
        not asked. One is parsed when its text defines a function of the name asked for.
        """
        if self._methods_named is None:
            self._methods_named = self._method_index()
        near, far = self._methods_named
        found = list(near.get(name, ()))
        for dotted, defined in far:
            if name in defined:
                module = self._module(dotted)
                if module is not None:
                    found.extend(cls for cls in module.classes.values() if name in cls.methods)
        return found

    def _method_index(self) -> Tuple[Dict[str, List[ClassSummary]], List[Tuple[str, FrozenSet[str]]]]:
        """Method name → the classes defining it in the modules parsed to follow imports (by name only:
        a method's summary is read when a call of that name asks for it), and the modules of the last
        level with the names their text defines."""
        near: Dict[str, List[ClassSummary]] = {}
        far: List[Tuple[str, FrozenSet[str]]] = []
        seen: Set[str] = set()
        frontier: List[Tuple[str, Optional[Path]]] = [(self.summary.path, None)]
        for level in range(_IMPORT_DEPTH + 1):
            following: List[Tuple[str, Optional[Path]]] = []
            for dotted, file in frontier:
                key = str(file) if file is not None else dotted
                if key in seen or len(seen) >= _MAX_MODULES:
                    continue
                seen.add(key)
                if file is not None and level == _IMPORT_DEPTH:
                    text = self.project.bytes_of(file) if self.project is not None else None
                    far.append((dotted, frozenset(_DEFINED.findall((text or b"").decode("utf-8", "replace")))))
                    continue
                module = self.summary if file is None else self._module(dotted)
                if module is None:
                    continue
                for cls in module.classes.values():
                    for method_name in cls.methods:
                        near.setdefault(method_name, []).append(cls)
                for qualified in [*module.imports.values(), *module.star_imports]:
                    parts = qualified.split(".")
                    for cut in range(len(parts), 0, -1):
                        imported = ".".join(parts[:cut])
                        found = self.project.find_module(imported, self.path) if self.project is not None else None
                        if found is not None:
                            following.append((imported, found))
                            break
            frontier = following
        return near, far

    def _module(self, dotted: str) -> Optional[ModuleSummary]:
        """Project module ``dotted`` as imported from this file (looked up once per model: one check)."""
        if dotted not in self._modules:
            found = self.project.module(dotted, self.path) if self.project is not None else None
            self._modules[dotted] = found
            if found is not None and found.name and found.name != dotted:
                # A folder without ``__init__.py`` (a namespace package): the file names itself by its
                # stem, and what it defines is qualified so; look it up under that name too.
                self._modules.setdefault(found.name, found)
        return self._modules[dotted]

    @staticmethod
    def _local(module: ModuleSummary, qualname: str) -> Optional[Definition]:
        if qualname in module.classes:
            return module.classes[qualname]
        if qualname in module.functions:
            return module.functions[qualname]
        return None

    def resolve_class(self, dotted: str) -> Optional[ClassSummary]:
        found = self.resolve(dotted)
        return found if isinstance(found, ClassSummary) else None

    def instantiated_class(self, caller: Optional[FunctionSummary], spelled: str) -> Optional[ClassSummary]:
        """The project class that calling ``spelled`` inside ``caller`` instantiates: one defined or
        imported under that name, or one a ``class`` statement in ``caller`` or a function enclosing
        it defines (``class uniform_initializer`` inside ``main()``), whatever its spelling."""
        found = self.resolve_class(spelled)
        if found is not None or caller is None or "." in spelled or caller.qualname == MODULE_BODY:
            return found
        scope = caller.qualname
        while scope:
            found = self.summary.classes.get(f"{scope}.{spelled}")
            if found is not None:
                return found
            scope = scope.rpartition(".")[0]
        return None

    def resolve_function(self, dotted: str) -> Optional[FunctionSummary]:
        """A function, or a class's ``__call__``-like entry: for a class, its ``forward``."""
        found = self.resolve(dotted)
        return found if isinstance(found, FunctionSummary) else None

    def class_model(self, cls: ClassSummary) -> "ModuleModel":
        """The model of the module ``cls`` is defined in (its names resolve from there)."""
        return self._class_model(cls)

    def _class_model(self, cls: ClassSummary) -> "ModuleModel":
        """The model of the module ``cls`` is defined in (to resolve its bases' names)."""
        module_name = cls_module(cls)
        if self.project is None or module_name is None or module_name == self.summary.name:
            return self
        model = self._models.get(module_name)
        if model is None:
            summary = self._module(module_name)
            model = self if summary is None else ModuleModel(summary, self.project, Path(summary.path))
            self._models[module_name] = model
        return model

    def mro(self, cls: ClassSummary) -> List[ClassSummary]:
        """``cls`` and its bases that the project defines, depth first (library bases are left out)."""
        known = self._mro_memo.get(id(cls))
        if known is not None:
            return known
        order: List[ClassSummary] = []
        seen: Set[int] = set()

        def visit(current: ClassSummary, model: "ModuleModel", depth: int) -> None:
            if id(current) in seen or depth > _MAX_DEPTH:
                return
            seen.add(id(current))
            order.append(current)
            for base in current.bases:
                found = model.resolve_qualified_or_local(base)
                if found is not None:
                    visit(found, model._class_model(found), depth + 1)

        visit(cls, self._class_model(cls), 0)
        self._mro_memo[id(cls)] = order
        return order

    def resolve_qualified_or_local(self, qualified: str) -> Optional[ClassSummary]:
        found = self.local_class(qualified)
        if found is not None:
            return found
        found_def = self.resolve_qualified(qualified)
        return found_def if isinstance(found_def, ClassSummary) else None

    def local_class(self, qualified: str) -> Optional[ClassSummary]:
        """A class of this module by qualified base name (nothing else is parsed)."""
        name = self.summary.name
        if name and qualified.startswith(name + "."):
            found = self.summary.classes.get(qualified[len(name) + 1:])
            if found is not None:
                return found
        return self.summary.classes.get(qualified)

    def local_mro(self, cls: ClassSummary) -> List[ClassSummary]:
        """``cls`` and its bases defined in this module, depth first: :meth:`mro` without reading other files."""
        order: List[ClassSummary] = []
        stack = [cls]
        while stack:
            current = stack.pop()
            if any(current is seen for seen in order):
                continue
            order.append(current)
            stack.extend(reversed([b for b in map(self.local_class, current.bases) if b is not None]))
        return order

    def all_bases(self, cls: ClassSummary) -> List[str]:
        """Every qualified base of ``cls`` and of its project bases, transitively."""
        bases: List[str] = []
        for current in self.mro(cls):
            bases.extend(b for b in current.bases if b not in bases)
        return bases

    def framework(self, cls: ClassSummary) -> Framework:
        """The framework ``cls`` belongs to, through its bases (followed across the project)."""
        known = self._framework_memo.get(id(cls))
        if known is not None:
            return known
        kinds = []
        for current in self.mro(cls):
            model = self._class_model(current)
            for base in current.bases:
                kind = base_framework(base)
                if kind is not None:
                    kinds.append(kind)
                elif base not in _PLAIN_BASES and model.resolve_qualified_or_local(base) is None:
                    kinds.append(Framework.UNKNOWN)  # a library class, or a file that is missing
        answer = combine(kinds)
        self._framework_memo[id(cls)] = answer
        return answer

    def method(self, cls: ClassSummary, name: str, local: bool = False) -> Optional[FunctionSummary]:
        """Method ``name`` of ``cls`` or of its first project base defining it (``local``: bases of this module only)."""
        for current in self.local_mro(cls) if local else self.mro(cls):
            if name in current.methods:
                return current.methods[name]
        return None

    def attribute(self, cls: ClassSummary, name: str) -> Optional[AttributeSummary]:
        """What ``self.<name>`` holds in ``cls`` (its own assignments first, then its project bases')."""
        for current in self.mro(cls):
            if name in current.attributes:
                return self._refine(current, current.attributes[name])
        return None

    def holds_parameter(self, cls: ClassSummary, name: str) -> bool:
        """``self.<name>`` of an ``nn.Module`` class may hold an ``nn.Parameter`` (``nn.Parameter(...)``,
        ``register_parameter``): the module then only lets a Parameter (or None) be stored there
        (anything else raises TypeError), so its value is a leaf whatever is assigned to it, never a
        graph carried from one call into the next, and detaching it in place is no fix."""
        attribute = self.attribute(cls, name)
        if attribute is None or AttrKind.PARAMETER not in attribute.kinds | {attribute.kind}:
            return False
        return self.is_module_class(cls)

    def _refine(self, cls: ClassSummary, attribute: AttributeSummary) -> AttributeSummary:
        """An attribute built by a project class's constructor is a module when that class is one."""
        if attribute.kind is AttrKind.UNKNOWN and attribute.constructor:
            model = self._class_model(cls)
            built = model.resolve_qualified_or_local(attribute.constructor)
            if built is not None and model.framework(built) in (Framework.MODULE, Framework.LIGHTNING):
                attribute.kind = AttrKind.MODULE
                attribute.kinds.discard(AttrKind.UNKNOWN)
                attribute.kinds.add(AttrKind.MODULE)
        return attribute

    def module_output(self, cls: ClassSummary, name: str) -> Optional[str]:
        """Words for what saved the output of ``self.<name>(…)`` in ``cls`` (None: nothing known saves it).

        An activation (``nn.ReLU``), an ``nn.Sequential`` ending in one or in a block,
        a block of this or another project file whose ``forward`` returns a saved output,
        or a configurable op (``self.f = torch.sigmoid``); through project bases too.
        """
        return self._module_output(cls, name, set())

    def forward_output(self, cls: ClassSummary) -> Optional[str]:
        """Words for what saved the value every ``return`` of ``cls.forward`` hands back (None: not one thing)."""
        return self._forward_output(cls, set())

    def _module_output(self, cls: ClassSummary, name: str, visiting: Set[int]) -> Optional[str]:
        attribute = self.attribute(cls, name)
        if attribute is None:
            return None
        dotted = f"self.{name}"
        constructor = attribute.constructor or ""
        last = constructor.rsplit(".", 1)[-1]
        if attribute.kind in (AttrKind.CALLABLE, AttrKind.UNKNOWN) and attribute.saved_output and not constructor.startswith("torch.nn."):
            return f"the output of `{dotted}` ({attribute.saved_output})"
        if constructor.startswith("torch.nn.") and last in OUTPUT_SAVING_MODULES:
            return f"the output of `{dotted}` ({OUTPUT_SAVING_MODULES[last]})"
        model = self._class_model(cls)
        if constructor.startswith("torch.nn.") and last == "Sequential":
            layer = attribute.last_layer or ""
            op = OUTPUT_SAVING_MODULES.get(layer.rsplit(".", 1)[-1]) if layer.startswith("torch.nn.") else None
            if op is not None:
                return f"the output of `{dotted}` (an `nn.Sequential` ending in `{op}`)"
            block = model.resolve_qualified_or_local(layer) if layer and not layer.startswith("torch.") else None
            inner = model._forward_output(block, visiting) if block is not None else None
            return f"the output of `{dotted}` (an `nn.Sequential` whose last layer returns {inner})" if inner else None
        block = model.resolve_qualified_or_local(constructor) if constructor and not constructor.startswith("torch.") else None
        inner = model._forward_output(block, visiting) if block is not None else None
        return f"the output of `{dotted}` (`{block.name}.forward` returns {inner})" if inner and block is not None else None

    def _forward_output(self, cls: ClassSummary, visiting: Set[int]) -> Optional[str]:
        forward = self.method(cls, "forward")
        if forward is None or id(cls) in visiting or not forward.returned_outputs:
            return None
        if "inplace" in forward.params or forward.params[:1] == ("ctx",):
            return None
        visiting.add(id(cls))
        model = self._class_model(self.class_of(forward) or cls)
        owner = self.class_of(forward) or cls
        found: Set[Optional[str]] = set()
        for produced in forward.returned_outputs:
            kind, _, name = produced.partition(":")
            if kind == "op":
                found.add(f"the output of `{name}`")
            elif kind == "self":
                found.add(model._module_output(owner, name, visiting))
            else:
                found.add(None)
        visiting.discard(id(cls))
        return found.pop() if len(found) == 1 else None

    def written_positions(self, function: FunctionSummary) -> FrozenSet[int]:
        """Positions of the call arguments ``function`` writes in place (its ``inplace_params``;
        a method's ``self`` is not an argument of the call)."""
        params = list(function.params)
        if function.class_name is not None and params[:1] == ["self"]:
            params = params[1:]
        return frozenset(i for i, name in enumerate(params) if name in function.inplace_params)

    def call_writes(self, target: Optional[Definition], caller_module: str) -> FrozenSet[int]:
        """Positions of the arguments a call of ``target`` writes in place, when it is a function
        (or a module class, whose ``forward`` runs) of a project module other than ``caller_module``;
        empty otherwise (what this module defines, the rules read in this module itself)."""
        if isinstance(target, ClassSummary):
            target = self.method(target, "forward")
        if not isinstance(target, FunctionSummary) or not target.inplace_params or target.module == caller_module:
            return frozenset()
        return self.written_positions(target)

    def is_module_class(self, cls: ClassSummary) -> bool:
        return self.framework(cls) in (Framework.MODULE, Framework.LIGHTNING)

    def runs_backward(self, function: FunctionSummary) -> bool:
        """``function`` calls backward() itself, or through the project functions and methods it calls
        (``fit()`` looping over ``self.train_step(batch)``, which back-propagates).

        Not through what a ``@torch.no_grad()`` function calls: a forward there records no graph, so
        a training step reached from it could not back-propagate (its backward would raise); that is
        evaluation or generation, whose calls reach much of a library (``model.generate(...)``)."""
        home = self._home(function)
        return home is not None and home._runs_backward(function, set())

    def retains_graph(self, function: FunctionSummary) -> bool:
        """Every backward pass ``function`` runs, itself or through the project functions it calls,
        keeps the graph (``retain_graph=True``); False when it runs none. A caller's graph handed to it
        (``show_gradients(x, out)``) is then still whole after the call."""
        passes = [b for current in self._reached(function) for b in current.backward_calls]
        return bool(passes) and all(b.retain_graph for b in passes)

    def runs_step(self, function: FunctionSummary) -> bool:
        """``function`` steps an optimizer, itself or through the project functions it calls."""
        return any(current.steps for current in self._reached(function))

    def _reached(self, function: FunctionSummary) -> List[FunctionSummary]:
        """``function`` and the project functions and methods it calls, through their calls (bounded depth).
        Kept per function: every project call the dataflow meets asks it (``runs_step``)."""
        known = self._reached_memo.get(id(function))
        if known is not None:
            return known
        found: Dict[int, FunctionSummary] = {}
        pending: List[Tuple[FunctionSummary, int]] = [(function, 0)]
        while pending:
            current, depth = pending.pop()
            if id(current) in found:
                continue
            found[id(current)] = current
            home = self._home(current)
            if home is None or depth >= _MAX_DEPTH:
                continue
            for spelled in dict.fromkeys(current.calls):
                callee = home._callee(current, spelled)
                if callee is not None and id(callee) not in found:
                    pending.append((callee, depth + 1))
        reached = self._reached_memo[id(function)] = list(found.values())
        return reached

    def loops_backward(self, function: FunctionSummary) -> bool:
        """``function`` back-propagates inside a loop of its own (an epoch of training: ``for batch in
        loader: ... loss.backward()``, or a loop calling a project step that back-propagates), or
        calls a project function that does (a run of training: ``history = train_loop(...)``, then
        ``return {"losses": history}``): what it hands back was kept after that loop."""
        return self._loops_backward(function, set())

    def _loops_backward(self, function: FunctionSummary, visiting: Set[int]) -> bool:
        if function.looped_backward:
            return True
        key = id(function)
        if key in self._loops_memo:
            return self._loops_memo[key]
        home = self._home(function)
        if home is None or key in visiting or len(visiting) > _MAX_DEPTH:
            return False
        visiting.add(key)
        found = False
        for spelled in function.looped_calls:
            callee = home._callee(function, spelled)
            if callee is not None and callee is not function and home.runs_backward(callee):
                found = True
                break
        if not found:
            for spelled in dict.fromkeys(function.calls):
                callee = home._callee(function, spelled)
                if callee is None or callee is function:
                    continue
                model = home._home(callee)
                if model is not None and model._loops_backward(callee, visiting):
                    found = True
                    break
        visiting.discard(key)
        self._loops_memo[key] = found
        return found

    def _home(self, function: FunctionSummary) -> Optional["ModuleModel"]:
        """The model of the module ``function`` is defined in (a step imported from ``utils/`` spells
        its calls there, so that module's model resolves them)."""
        return self if function.module == self.summary.name else self._module_model(function.module)

    def _runs_backward(self, function: FunctionSummary, visiting: Set[int]) -> bool:
        if function.backward_calls:
            return True
        key = id(function)
        if key in self._backward_memo:
            return self._backward_memo[key]
        if key in visiting or len(visiting) > _MAX_DEPTH or function.grad_disabled:
            return False
        visiting.add(key)
        found = False
        for spelled in dict.fromkeys(function.calls):
            callee = self._callee(function, spelled)
            if callee is None or callee is function:
                continue
            model = self._home(callee)
            if model is not None and model._runs_backward(callee, visiting):
                found = True
                break
        visiting.discard(key)
        self._backward_memo[key] = found
        return found

    def cut_params(self, function: FunctionSummary) -> FrozenSet[str]:
        """The parameters of ``function`` whose argument's graph never reaches what a call builds:
        those it reads only detached (:attr:`FunctionSummary.cut_params`), and those its body first
        hands to a call that rebinds them (:attr:`FunctionSummary.handed_on`: ``memory =
        self.repackage_hidden(memory)``, ``out, h = self.core(x, h)``) where that callee builds
        nothing from the argument: a helper handing back detached copies
        (:attr:`FunctionSummary.detached_copy`), or a project function, or the ``forward`` of a
        project module (with no ``__call__`` of its own), that cuts the parameter it binds, in turn."""
        return self._cut_params(function, set())

    def _cut_params(self, function: FunctionSummary, visiting: Set[int]) -> FrozenSet[str]:
        own = frozenset(function.cut_params)
        key = id(function)
        if not function.handed_on and not function.cut_if_handed:
            return own
        if key in self._cut_memo:
            return self._cut_memo[key]
        home = self._home(function)
        if home is None or key in visiting or len(visiting) > _MAX_DEPTH:
            return own
        visiting.add(key)
        found = set(own)
        for param, (spelled, position) in function.handed_on.items():
            if home._cuts_argument(function, spelled, position, visiting):
                found.add(param)
        for param, calls in function.cut_if_handed.items():
            if all(home._cuts_argument(function, spelled, position, visiting) for spelled, position in calls):
                found.add(param)
        visiting.discard(key)
        result = self._cut_memo[key] = frozenset(found)
        return result

    def _cuts_argument(self, function: FunctionSummary, spelled: str, position: Union[int, str], visiting: Set[int]) -> bool:
        """The call spelled ``spelled`` in ``function`` builds nothing from its argument at
        ``position``: a project function, or the ``forward`` of a project module (with no
        ``__call__`` of its own), handing back a detached copy or cutting the parameter it binds."""
        target = self.callee(function, spelled)
        if isinstance(target, ClassSummary):
            if "." not in spelled and self.resolve(spelled) is target:
                return False  # ``Net(x)`` builds a module: ``__init__`` takes the argument, not ``forward``
            held = self._class_model(target)
            if not held.is_module_class(target) or held.method(target, "__call__") is not None:
                return False
            target = held.method(target, "forward")
        if not isinstance(target, FunctionSummary):
            return False
        if target.detached_copy:
            return True
        bound = _plain_param(target, position)
        model = self._home(target)
        return bound is not None and model is not None and bound in model._cut_params(target, visiting)

    def carried_state(self, cls: ClassSummary) -> Dict[str, Tuple[str, ...]]:
        """State a module instance of ``cls`` carries from one call into the next.

        Path from the instance (``weight``, ``recurrent.weight`` for a submodule's
        state) → the methods of the owning class that re-create it (``reset_state``,
        ``reinitialize_weight``; empty when none does). A forward that rebuilds
        an attribute from its previous value (:mod:`autofix.model.self_state`)
        carries it, unless the attribute only ever holds numbers or flags.
        Submodules built from project classes, in this file or another, are followed.
        """
        if id(cls) not in self._carried_memo:
            self._carried_memo[id(cls)] = self._carried_state(cls, set())
        return self._carried_memo[id(cls)]

    def _carried_state(self, cls: ClassSummary, visiting: Set[int]) -> Dict[str, Tuple[str, ...]]:
        if id(cls) in visiting or len(visiting) > _MAX_DEPTH or not self.is_module_class(cls):
            return {}
        visiting.add(id(cls))
        found: Dict[str, Tuple[str, ...]] = {}
        ancestry = self.mro(cls)
        forward = self.method(cls, "forward")
        for attr in sorted(forward.carried_self if forward is not None else ()):
            attribute = self.attribute(cls, attr)
            kinds = attribute.kinds if attribute is not None else set()
            if kinds & {AttrKind.NUMBER, AttrKind.OTHER, AttrKind.MODULE, AttrKind.PARAMETER, AttrKind.CALLABLE}:
                continue
            found[attr] = tuple(sorted({
                name for current in ancestry for name, method in current.methods.items()
                if name not in ("__init__", "forward") and attr in method.self_writes
            }))
        seen: Set[str] = set()
        for current in ancestry:
            for name in current.attributes:
                if name in seen:
                    continue
                seen.add(name)
                attribute = self.attribute(cls, name)
                constructor = attribute.constructor if attribute is not None else None
                if not constructor or constructor.startswith("torch."):
                    continue
                block = self._class_model(current).resolve_qualified_or_local(constructor)
                if block is None:
                    continue
                inner = self._class_model(block)._carried_state(block, visiting)
                fresh = self._reset_each_call(cls, name, block)
                found.update({f"{name}.{path}": resetters for path, resetters in inner.items() if path not in fresh})
        visiting.discard(id(cls))
        return found

    def reset_each_call(self, holder: ClassSummary, member: str) -> FrozenSet[str]:
        """The attributes of the module ``self.<member>`` that ``holder``'s ``forward`` re-creates on
        every call before they can be read: it calls a method of the member's class that assigns them
        a value with no graph on every way through it (``self.decoder.init_state(bs)``,
        ``self.attention.reset_mem()``), or assigns them one itself (``self.decoder.state = None``),
        under no loop, ``try`` or condition and after no ``return``. A condition on a flag of the
        holder counts (``if self.use_att:``) when no method but ``__init__`` rebinds the flag and the
        flag guards, the same way, every use of the member in the holder's methods that may read the
        attribute: where it is false, the attribute is never read. Nothing carries from one call of
        ``holder`` into the next through them."""
        block = self._held_class(holder, [member])
        return self._reset_each_call(holder, member, block) if block is not None else frozenset()

    def _reset_each_call(self, holder: ClassSummary, member: str, block: ClassSummary) -> FrozenSet[str]:
        key = (id(holder), member, id(block))
        known = self._reset_memo.get(key)
        if known is not None:
            return known
        self._reset_memo[key] = frozenset()
        forward = self.method(holder, "forward")
        found: Set[str] = set()
        for use in forward.member_uses if forward is not None else ():
            if use.member != member or not use.every_call or not use.plain:
                continue
            if use.how == "call" and use.name not in ("__init__", "forward"):
                method = self.method(block, use.name)
                attrs: AbstractSet[str] = method.reset_self if method is not None else frozenset()
            elif use.how == "store":
                attrs = {use.name}
            else:
                continue
            found.update(a for a in attrs if a not in found and self._guards_every_read(holder, member, block, a, use.guards))
        answer = frozenset(found)
        self._reset_memo[key] = answer
        return answer

    def _guards_every_read(
        self, holder: ClassSummary, member: str, block: ClassSummary, attr: str, guards: FrozenSet[Tuple[str, bool]]
    ) -> bool:
        if not guards:
            return True
        ancestry = self.mro(holder)
        for flag, _ in guards:
            # ``training`` is rebound by ``nn.Module.train()``/``eval()``; a method or property is computed.
            if flag == "training" or any(flag in current.methods for current in ancestry):
                return False
            assigned = [current.attributes[flag] for current in ancestry if flag in current.attributes]
            if not assigned or any(set(a.assigned_in) - {"__init__"} for a in assigned):
                return False
        for current in ancestry:
            for name, method in current.methods.items():
                if name == "__init__":
                    continue
                for use in method.member_uses:
                    if use.member == member and not use.guards >= guards and self._may_read(block, use, attr):
                        return False
        return True

    def _may_read(self, block: ClassSummary, use: MemberUse, attr: str) -> bool:
        """May ``use`` of an instance of ``block`` read its attribute ``attr``?"""
        if use.how == "store":
            return False
        if use.how == "read":
            return use.name == attr or self.method(block, use.name) is not None
        if use.how == "call":
            return self._method_reads(block, use.name, attr, 0)
        return True

    def _method_reads(self, block: ClassSummary, name: str, attr: str, depth: int) -> bool:
        if name in ("forward", "__call__") or depth > _MAX_DEPTH:
            return True
        method = self.method(block, name)
        if method is None:
            # A submodule or another attribute of it called (``self.decoder.rnn(x)``), or an
            # ``nn.Module`` method that moves or lists it: neither reads the attribute.
            return name == attr or (self.attribute(block, name) is None and name not in _MODULE_BOOKKEEPING)
        return attr in method.self_reads or any(
            self._method_reads(block, callee, attr, depth + 1) for callee in method.self_calls
        )

    def instance_class(self, caller: FunctionSummary, spelled: str) -> Optional[ClassSummary]:
        """The project class of the object a name spelled ``spelled`` holds inside ``caller``.

        ``model`` where ``model = Net(…)`` (in ``caller`` or at module level, also
        ``Net(…).to(device)``), ``self.net`` built in the class's ``__init__``, and
        attributes of those (``model.encoder``). None when it cannot be told.
        """
        head, _, rest = spelled.partition(".")
        owner: Optional[ClassSummary] = None
        if caller.class_name is not None and caller.params and head == caller.params[0]:
            owner = self.class_of(caller)
        else:
            constructor = self.local_constructor(caller, head)
            if constructor is not None and self._wraps_module(constructor):
                # ``net = DataParallel(net)``: calling the wrapper runs the forward of what it wraps.
                constructor = self._wrapped_constructor(caller, head)
                if constructor is not None and self._wraps_module(constructor):
                    constructor = None  # a wrapper of a wrapper: what the inner one holds is not kept
            owner = self.constructed_class(constructor) if constructor is not None else None
        return self._held_class(owner, rest.split(".") if rest else [])

    def _wraps_module(self, constructor: str) -> bool:
        """Calling ``constructor`` (qualified) builds a wrapper whose call runs the ``forward`` of the
        module it is handed first: ``torch.nn.DataParallel`` or ``DistributedDataParallel``, or a
        project class deriving from one that defines no ``__init__``, ``forward`` or ``__call__``
        of its own (``DataParallelWithCallback`` overriding ``replicate`` only)."""
        if constructor.startswith("torch.") and constructor.rsplit(".", 1)[-1] in _MODULE_WRAPPERS:
            return True
        cls = self.resolve_qualified_or_local(constructor)
        if not isinstance(cls, ClassSummary) or any(self.method(cls, name) is not None for name in ("__init__", "forward", "__call__")):
            return False
        return any(
            base.startswith("torch.") and base.rsplit(".", 1)[-1] in _MODULE_WRAPPERS
            for current in self.mro(cls) for base in current.bases
        )

    def _wrapped_constructor(self, caller: FunctionSummary, name: str) -> Optional[str]:
        """The constructor of what the wrapper the plain name ``name`` holds was handed first
        (:attr:`FunctionSummary.wrapped_constructors`), seen as :meth:`local_constructor` sees it."""
        if name in caller.local_constructors:
            return caller.wrapped_constructors.get(name)
        body = self.summary.functions.get(MODULE_BODY)
        if body is not None and name in body.local_constructors and name not in caller.params:
            return body.wrapped_constructors.get(name)
        return None

    def parameter_class(self, function: FunctionSummary, name: str, depth: int = 0) -> Optional[ClassSummary]:
        """The project class of what every call in this file binds to the parameter ``name`` of a plain
        function of this file: ``update(policy, states)`` where ``policy = ActorCritic(...)``, also
        handed on through a caller's own parameter. None when a call passes anything else (or leaves
        the parameter to its default), when calls disagree, or when no call is seen here."""
        if (
            depth > 3 or function.class_name is not None or name not in function.params
            or self.summary.functions.get(function.qualname) is not function
        ):
            return None
        key = (function.qualname, name)
        if key in self._parameter_classes:
            return self._parameter_classes[key]
        self._parameter_classes[key] = None  # a recursive call binds nothing new
        position = function.params.index(name)
        found: Optional[ClassSummary] = None
        for caller in self.functions():
            for positional, keywords in caller.call_arguments.get(function.name, ()):
                passed = positional[position] if position < len(positional) else dict(keywords).get(name)
                bound = None if passed is None else self.instance_class(caller, passed) or self.parameter_class(caller, passed, depth + 1)
                if bound is None or (found is not None and found.qualname != bound.qualname):
                    return None
                found = bound
        self._parameter_classes[key] = found
        return found

    def returned_element_graphs(self, function: FunctionSummary) -> Optional[Tuple[FrozenSet[str], ...]]:
        """What each element of the one tuple length ``function`` returns may take its graph from when
        the arguments carry none (:attr:`FunctionSummary.returned_element_sources`). For a method,
        each ``self.<attr>`` must be something the instance holds (a submodule, a parameter), not a
        method of its class, and ``self`` must not be handed on whole. Runs of a submodule that
        carries state from one call into the next (:meth:`carried_state`: ``self.rnn`` keeping
        ``self.rnn.hidden``) count as what it holds: each run reads the graph the one before left.
        None when not known."""
        if len(function.returned_element_sources) != 1:
            return None
        (elements,) = function.returned_element_sources.values()
        known = tuple(frozenset(s for s in e if not self._record_type(s)) for e in elements if e is not None)
        if len(known) != len(elements):
            return None
        if function.class_name is None or not function.params:
            return known
        cls = self.class_of(function)
        me = function.params[0]
        for source in frozenset().union(*known):
            head, _, attribute = held_source(source).partition(".")
            if head == me and (cls is None or not attribute or self.method(cls, attribute) is not None):
                return None
        if cls is not None and any(RUN_MARK in source for element in known for source in element):
            carried = {path.split(".", 1)[0] for path in self.carried_state(cls)}
            if carried:
                known = tuple(
                    frozenset(held_source(s) if held_source(s).partition(".")[2] in carried else s for s in element)
                    for element in known
                )
        return known

    def _record_type(self, source: str) -> bool:
        """``source`` (a global called, as :func:`returned_element_sources` spells it) is a record
        type of this file: ``State = namedtuple("State", ...)`` or a ``typing.NamedTuple`` class.
        Building one runs no module; its fields keep what the arguments read."""
        if "." in source or RUN_MARK in source:
            return False
        body = self.summary.functions.get(MODULE_BODY)
        if body is not None and body.local_constructors.get(source) in _RECORD_FACTORIES:
            return True
        found = self.resolve(source)
        return isinstance(found, ClassSummary) and "typing.NamedTuple" in found.bases

    def forward_readable(self, caller: FunctionSummary, spelled: str) -> bool:
        """What a call spelled ``spelled`` inside ``caller`` runs is code the model knows: a function
        of the project, the ``forward`` of a project class an instance was built from, or a
        ``torch.nn`` layer built here. Not a module from a factory or a configuration
        (``model = create_model(opt)``, ``self.network = config.network_fn()``), a parameter, or a
        ``DataParallel`` wrapper of such a module."""
        if self.resolve_function(spelled) is not None or self.instance_class(caller, spelled) is not None:
            return True
        head, _, rest = spelled.partition(".")
        constructor: Optional[str] = None
        if caller.class_name is not None and caller.params and head == caller.params[0] and rest and "." not in rest:
            cls = self.class_of(caller)
            held = self.attribute(cls, rest) if cls is not None else None
            constructor = held.constructor if held is not None else None
        elif not rest:
            constructor = self.local_constructor(caller, head)
        if constructor is None:
            return False
        return constructor.startswith("torch.nn.") and constructor.rsplit(".", 1)[-1] not in _MODULE_WRAPPERS

    def local_constructor(self, caller: FunctionSummary, name: str) -> Optional[str]:
        """The qualified callee whose result the plain name ``name`` holds inside ``caller``: assigned
        there (``meter = AverageMeter()``), or at module level when no parameter shadows it."""
        if name in caller.local_constructors:
            return caller.local_constructors[name]
        body = self.summary.functions.get(MODULE_BODY)
        if body is not None and name in body.local_constructors and name not in caller.params:
            return body.local_constructors[name]
        return None

    def library_instance(self, caller: FunctionSummary, name: str) -> bool:
        """``name`` (a plain name) holds an instance of a class from a library outside the project
        and outside torch: ``model = ARGVA(encoder, discriminator).to(device)`` with ``ARGVA``
        imported from a package that is no file of the project.

        What such an object's named methods do with their arguments is not visible: whether
        ``model.discriminator_loss(z)`` hands back ``z``'s graph or a detached copy is a guess.
        """
        constructor = self.local_constructor(caller, name)
        if constructor is None:
            return False
        root, _, rest = constructor.partition(".")
        last = constructor.rsplit(".", 1)[-1]
        imported = {target.split(".", 1)[0] for target in self.summary.imports.values()}
        if not rest or not last[:1].isupper() or root in ("torch", "builtins") or root not in imported:
            return False
        return self.constructed_class(constructor) is None and self._module(root) is None

    def _held_class(self, owner: Optional[ClassSummary], path: List[str]) -> Optional[ClassSummary]:
        """The class of the object reached from an instance of ``owner`` through attributes ``path``."""
        for part in path:
            if owner is None:
                return None
            attribute = self.attribute(owner, part)
            if attribute is None or not attribute.constructor:
                return None
            owner = self._class_model(owner).constructed_class(attribute.constructor)
        return owner

    def constructed_class(self, constructor: str) -> Optional[ClassSummary]:
        """The project class an object built by calling ``constructor`` (qualified) is an instance of:
        the class itself, or what a factory function of the project returns (``create_loss(cfg)``)."""
        found = self.resolve_qualified_or_local(constructor)
        if found is not None:
            return found
        if "." not in constructor and self.summary.star_imports:
            # ``from util.misc import *`` then ``AverageMeter()``: a name no import spells.
            starred = self.resolve(constructor)
            if isinstance(starred, ClassSummary):
                return starred
        name = self.summary.name
        local = constructor[len(name) + 1:] if name and constructor.startswith(name + ".") else constructor
        factory: Optional[Definition] = self.summary.functions.get(local)
        if factory is None:
            factory = self.resolve_qualified(constructor)
        if not isinstance(factory, FunctionSummary) or factory.class_name is not None or not factory.returned_constructor:
            return None
        model = self._home(factory)
        return model.resolve_qualified_or_local(factory.returned_constructor) if model is not None else None

    def _module_model(self, module_name: str) -> Optional["ModuleModel"]:
        """The model of another project module, by dotted name (memoised like :meth:`_class_model`)."""
        model = self._models.get(module_name)
        if model is None:
            summary = self._module(module_name)
            if summary is None:
                return None
            model = ModuleModel(summary, self.project, Path(summary.path))
            self._models[module_name] = model
        return model

    # ------------------------------------------------------------------ functions and loops

    def class_of(self, function: FunctionSummary) -> Optional[ClassSummary]:
        """The class ``function`` is a method of (in whichever project module defines it)."""
        if function.class_name is None:
            return None
        if function.module == self.summary.name:
            return self.summary.classes.get(function.class_name)
        if self.project is None:
            return None
        module = self._module(function.module)
        return module.classes.get(function.class_name) if module is not None else None

    def loop_contract(self, function: FunctionSummary) -> Optional[LoopContract]:
        """The framework contract when ``function`` is one iteration of a framework's loop."""
        cls = self.class_of(function)
        if cls is not None:
            manual = any(c.manual_optimization for c in self.mro(cls))
            return method_contract(self.framework(cls), function.name, function.params, manual)
        if function.qualname in self.summary.loop_functions or function.name in self.summary.loop_functions:
            return update_function_contract(function.name, function.params)
        return None

    def returns(self, function: FunctionSummary) -> Returns:
        """What ``function`` returns, following returned calls into the project's callees.

        ``via_calls`` of the answer are the returned calls that could not be
        followed (library functions, unknown callables, recursion); each adds
        ``Kind.UNKNOWN``.
        """
        return self._returns(function, set())

    def _returns(self, function: FunctionSummary, visiting: Set[int]) -> Returns:
        result = function.returns
        if not result.via_calls:
            return result
        key = id(function)
        if key in self._returns_memo:
            return self._returns_memo[key]
        if key in visiting or len(visiting) > _MAX_DEPTH:
            return result
        visiting.add(key)
        kinds = set(result.direct)
        unresolved = []
        home = self._home(function)
        for callee in result.via_calls:
            found = home._callee(function, callee) if home is not None else None
            if found is None:
                unresolved.append(callee)
                continue
            followed = self._returns(found, visiting)
            kinds |= followed.kinds
            unresolved.extend(followed.via_calls)
        visiting.discard(key)
        if unresolved:
            kinds.add(Kind.UNKNOWN)
        answer = Returns(frozenset(kinds), result.dict_keys, result.tuple_kinds, tuple(unresolved), result.direct)
        self._returns_memo[key] = answer
        return answer

    def returns_instances(self, function: FunctionSummary) -> bool:
        """Every ``return`` of ``function`` constructs an object (``return Net(...)``, a factory of
        models or estimators; ``model = Net(); ...; return model``, also wrapped as
        ``model = DataParallel(model)``): calling it runs no forward pass, whatever the object then holds."""
        result = function.returns
        if result.via_calls and not result.direct:
            return all(self._constructs(callee) for callee in result.via_calls)
        constructor = function.returned_constructor
        return constructor is not None and self._constructs(constructor)

    def _constructs(self, callee: str) -> bool:
        """A returned call spelled ``callee`` (qualified when imported) constructs an object: a class of
        the project, a ``torch.nn`` module, or another library's imported capitalised name (not
        ``torch.Tensor``, ``Normal`` or ``nn.Parameter``, which make tensors or hold them)."""
        head = callee.partition(".")[0]
        found = self.resolve(callee) if head not in self.summary.imports else self.resolve_qualified(callee)
        if found is None and "." in callee:
            found = self.resolve_qualified(callee)  # this module's own names come qualified in a project
        if isinstance(found, ClassSummary):
            return True
        imported = head in self.summary.imports or callee in self.summary.imports.values()
        if found is not None or not imported:
            return False  # a function, or a name bound here (``G = Generator()``)
        last = callee.rsplit(".", 1)[-1]
        if callee.startswith("torch.") and not (callee.startswith("torch.nn.") and last not in _TENSOR_CLASSES):
            return False  # ``torch.Tensor(…)``, ``Normal(mu, sigma)``: tensors, or objects holding them
        return last[:1].isupper() and not last.isupper()

    def returned_shapes(self, function: FunctionSummary) -> FrozenSet[Shape]:
        """The shapes ``function`` returns; where every return is one call of a project function
        (``return self.net(x)``, ``return helper(x)``), that function's shapes; a returned tuple's
        element unpacked from a project call (``_, q1, q2 = self.update_critic(obs); return info, q1,
        q2``), what that call returns there."""
        return self._returned_shapes(function, set())

    def _returned_shapes(self, function: FunctionSummary, visiting: Set[int]) -> FrozenSet[Shape]:
        shapes = self._followed_shapes(function)
        home = self._home(function)
        if function.returned_unpacked and home is not None and id(function) not in visiting and len(visiting) <= _MAX_DEPTH:
            visiting.add(id(function))
            shapes = frozenset(home._unpacked_parts(function, shape, visiting) for shape in shapes)
            visiting.discard(id(function))
        return shapes

    def _followed_shapes(self, function: FunctionSummary) -> FrozenSet[Shape]:
        result = function.returns
        home = self._home(function)
        if len(result.via_calls) == 1 and not result.direct and home is not None:
            found = home._callee(function, result.via_calls[0])
            if found is not None and found is not function:
                return found.returns.shapes
        if result.via_calls:
            # Returned calls (and arithmetic on their results) that all give values holding no graph
            # (``return 2 * se * pc / (se + pc)`` of helpers returning floats): those kinds.
            followed = self.returns(function).kinds
            if followed and followed <= GRAPHLESS_KINDS:
                return frozenset(Shape(kind) for kind in followed)
        return result.shapes

    def _unpacked_parts(self, function: FunctionSummary, shape: Shape, visiting: Set[int]) -> Shape:
        """``shape`` (a returned tuple of ``function``, which this model's module defines) with each
        element of unknown shape that was unpacked from a project call given the shape that call
        returns in that position, where every tuple it may return of that length agrees on it."""
        origins = function.returned_unpacked.get(len(shape.parts)) if shape.kind is Kind.TUPLE else None
        if not origins:
            return shape
        parts = list(shape.parts)
        for index, origin in enumerate(origins):
            # A bare graph there is no fact about the element either: it is the kind of the whole
            # call (``losses, stats = self.model.forward(x)`` — a forward makes a graph), passed
            # to each part unpacked from it; what the callee returns in that position says more.
            guessed = parts[index].kind is Kind.GRAPH and not parts[index].parts
            if origin is None or parts[index].kind is not Kind.UNKNOWN and not guessed:
                continue
            spelled, position, length = origin
            callee = self._callee(function, spelled)
            if callee is None or callee is function:
                continue
            returned = self._returned_shapes(callee, visiting)
            if any(s.kind not in (Kind.TUPLE, Kind.LIST, Kind.NONE) or s.kind is not Kind.NONE and not s.parts for s in returned):
                continue  # it may return something of a length not known
            there = {s.parts[position] for s in returned if s.kind is not Kind.NONE and len(s.parts) == length}
            if len(there) == 1 and not (guessed and next(iter(there)).kind is Kind.UNKNOWN):
                parts[index] = there.pop()
        return Shape(shape.kind, tuple(parts), shape.values)

    def kind_of_call_result(self, function: FunctionSummary, callee: str) -> Kind:
        """The one kind a call spelled ``callee`` inside ``function`` returns (``UNKNOWN`` unless one)."""
        found = self._callee(function, callee)
        if found is None:
            return Kind.UNKNOWN
        kind = self.returns(found).only
        return kind if kind is not None else Kind.UNKNOWN

    def _callee(self, caller: FunctionSummary, callee: str) -> Optional[FunctionSummary]:
        """The function a call spelled ``callee`` inside ``caller`` runs (``self.m`` → the class's ``m``).

        ``callee`` is spelled as ``caller``'s summary records it: qualified where its module imports or
        defines it (``helper`` defined there is ``<module>.helper``, ``from utils import helper`` is
        ``utils.helper``), so it is resolved in that module.
        """
        head, _, rest = callee.partition(".")
        if caller.class_name is not None and caller.params and head == caller.params[0] and rest and "." not in rest:
            cls = self.class_of(caller)
            return self.method(cls, rest) if cls is not None else None
        if rest and "." in rest and caller.class_name is not None and caller.params and head == caller.params[0] or (
            rest and self.local_constructor(caller, head) is not None
        ):
            # ``self.net.train_step`` of ``self.net = Net(...)``, ``meter.update`` of ``meter = Meter()``:
            # a method of the project class the object was built from.
            receiver, _, name = callee.rpartition(".")
            holder = self.instance_class(caller, receiver)
            return self._class_model(holder).method(holder, name) if holder is not None else None
        found: Optional[Definition]
        own = self.summary.name
        if own and callee.startswith(own + ".") and caller.module == own:
            found = self._local(self.summary, callee[len(own) + 1:])
        elif head in self.summary.imports or any(
            callee == imported or callee.startswith(imported + ".") for imported in self.summary.imports.values()
        ):
            found = self.resolve_qualified(callee)
        else:
            found = self.resolve(callee)
        if isinstance(found, ClassSummary):
            return None
        return found

    def callee_of(self, header: FunctionSummary, spelled: str, constructed: AbstractSet[str]) -> Optional[Definition]:
        """:meth:`callee` for a function of this module known by its ``def`` line (``header``, see
        :func:`function_header`), given the names its body binds from a call (``constructed``, see
        :func:`constructed_names`).

        The body's summary is read only when the call may be on an object the body built
        (``meter.update`` where ``meter = AverageMeter()``, ``meters[k].update``): the answer for
        ``self.block``, ``helper``, ``utils.helper``, ``torch.cat`` or ``x.view`` where ``x`` is
        bound otherwise depends on nothing else in the body.
        """
        head, dot, _ = spelled.partition(".")
        if head.endswith("[]") or (dot and head in constructed):
            caller = self.function(header.qualname)
            return self.callee(caller, spelled) if caller is not None else None
        return self.callee(header, spelled)

    def callee(self, caller: FunctionSummary, spelled: str, element: Optional[str] = None) -> Optional[Definition]:
        """What a call spelled ``spelled`` inside ``caller`` runs, when the project defines it.

        * ``self.m`` → method ``m`` of the caller's class (or of a project base);
        * ``self.block`` → the class ``self.block`` was built from (call its ``forward``);
        * ``self.meter.update`` → method ``update`` of that class;
        * ``meter.update`` where ``meter = AverageMeter()`` in the caller → ``AverageMeter.update``;
        * ``helper``, ``utils.helper``, ``Net`` → the function or class imported or defined;
        * ``meters[k].update`` where ``element`` is the constructor of the container's elements at
          that call (:attr:`FunctionSummary.element_receivers`) → that class's ``update``.

        None for library callees and whatever cannot be told.
        """
        head, _, rest = spelled.partition(".")
        owner: Optional[ClassSummary] = None
        body = self.summary.functions.get(MODULE_BODY)
        if head.endswith("[]"):
            # ``meters[k].update``: a method of the container's elements.
            constructor = element or caller.element_constructors.get(head[:-2])
            if constructor is None and body is not None and head[:-2] not in caller.params:
                constructor = body.element_constructors.get(head[:-2])
            found = self.constructed_class(constructor) if constructor and rest else None
            if found is None:
                return None
            owner = found
        elif caller.class_name is not None and caller.params and head == caller.params[0]:
            cls = self.class_of(caller)
            if cls is None or not rest:
                return cls
            first, _, rest = rest.partition(".")
            if not rest:
                method = self.method(cls, first)
                if method is not None:
                    return method
            if not first.endswith("[]"):
                # ``self.block`` (its class, to call its forward), ``self.meter.update``, ``self.a.b.m``.
                receiver, _, name = spelled.rpartition(".")
                if not rest:
                    return self.instance_class(caller, spelled)
                holder = self.instance_class(caller, receiver)
                return self._class_model(holder).method(holder, name) if holder is not None else None
            # ``self.meters[k].update``: a method of the elements the attribute's container was built with.
            attribute = self.attribute(cls, first[:-2])
            built = attribute.element_constructor if attribute is not None else None
            if not built:
                return None
            owner = self._class_model(cls).resolve_qualified_or_local(built)
        elif rest and self.local_constructor(caller, head) is not None:
            # ``meter.update`` where ``meter = AverageMeter()`` here or at module level; ``metrics.track.add``.
            receiver, _, name = spelled.rpartition(".")
            holder = self.instance_class(caller, receiver)
            return self._class_model(holder).method(holder, name) if holder is not None else None
        else:
            return self.resolve(spelled)
        if owner is None:
            return None
        if not rest:
            return owner
        *path, name = rest.split(".")
        holder = self._held_class(owner, path)
        return self._class_model(holder).method(holder, name) if holder is not None else None

    def self_method_calls(self, function: FunctionSummary, local: bool = False) -> List[FunctionSummary]:
        """The methods of its own class (or project bases; ``local``: bases of this module only) that
        ``function`` calls on ``self``, in order."""
        cls = self.class_of(function)
        if cls is None:
            return []
        found = []
        for name in function.self_calls:
            method = self.method(cls, "forward" if name == "__call__" else name, local)
            if method is not None:
                found.append(method)
        return found


#: ``torch.nn`` classes that run the forward of whatever module they were handed
_MODULE_WRAPPERS = frozenset({"DataParallel", "DistributedDataParallel"})
#: calls that make a record type (a tuple with named fields)
_RECORD_FACTORIES = frozenset({"collections.namedtuple", "typing.NamedTuple"})


@functools.lru_cache(maxsize=4096)
def _sibling_file(path: str, head: str) -> Optional[Path]:
    """``<head>.py`` beside the file ``path`` (not the file itself), if there is one; asked for
    names that resolved to nothing, often the same few (``torch``, ``np``) from the same file."""
    here = Path(path).resolve()
    sibling = here.parent / f"{head}.py"
    return sibling if sibling != here and sibling.is_file() else None


def _plain_param(callee: FunctionSummary, position: Union[int, str]) -> Optional[str]:
    """The parameter of ``callee`` an argument at ``position`` (an index after the receiver, or a
    keyword) binds, where it is one of the plain ones (:attr:`FunctionSummary.handed_on`) that the
    model says the function cuts or hands on; None otherwise."""
    params = callee.params
    if callee.class_name is not None and "staticmethod" not in callee.decorators and params:
        params = params[1:]
    if isinstance(position, int):
        if callee.var_positional is not None and callee.var_positional in params:
            # past ``*args`` every positional argument goes to it (what follows is keyword-only)
            position = min(position, params.index(callee.var_positional))
        name = params[position] if position < len(params) else None
    else:
        name = position if position != callee.var_positional else None
    return name if name is not None and name in params and name != callee.var_keyword else None


def cls_module(cls: ClassSummary) -> Optional[str]:
    return cls.module or None


def model_for_source(
    source: Union[bytes, str], path: str, project: Optional[Project] = None, tree: Optional[ast.Module] = None
) -> Optional[ModuleModel]:
    """The model of ``source`` at ``path`` (``project`` for cross-file lookups; None: the file alone;
    ``tree``: Python's parse of ``source`` when the caller has one)."""
    if project is not None and path and not path.startswith("<"):
        file = Path(path).resolve()
        data = source.encode("utf-8") if isinstance(source, str) else source
        summary = project.summary_of_file(file, data, tree)
        if summary is None:
            return None
        return ModuleModel(summary, project, file)
    summary = parse_summary(source, "", path, tree=tree)
    return None if summary is None else ModuleModel(summary, None, None)


def imports_model(tree: ast.Module, path: str, project: Project) -> ModuleModel:
    """A model of the module at ``path`` that knows only its imports: it resolves imported names
    through the project as the full model does, without summarising the module itself."""
    file = Path(path).resolve()
    name, _ = project.module_name(file)
    package = name if file.name == "__init__.py" else name.rpartition(".")[0]
    return ModuleModel(summarize_imports(tree, name, str(file), package), project, file)


def empty_model(path: str) -> ModuleModel:
    """The model of a module Python cannot parse: it knows nothing."""
    return ModuleModel(ModuleSummary("", path), None, None)


def project_for(path: str) -> Optional[Project]:
    """The project around ``path``; None for a path that is not a file on disk (stdin, ``<string>``)."""
    if not path or path.startswith("<") or path == "-":
        return None
    file = Path(path)
    if not file.is_file() and not file.parent.is_dir():
        return None
    return Project.for_path(os.path.abspath(path))


__all__ = [
    "FIND_PROJECT",
    "ModuleModel",
    "Project",
    "find_root",
    "model_for_source",
    "parse_summary",
    "project_for",
    "clear_cache",
    "empty_model",
    "imports_model",
]
