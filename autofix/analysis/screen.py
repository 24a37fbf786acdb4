"""Syntactic screens: can a rule fire on this module at all?

The rules' analyses walk LibCST trees, and LibCST's parser is about ten times
slower than Python's own. After the text pre-filter (each rule's trigger
words), the engine parses a file with :mod:`ast` and asks each remaining rule
whether its necessary conditions hold; only files that pass some rule's
screen are parsed with LibCST. A screen may pass a module the rule then finds
nothing in, never the reverse: ``tests/test_screens.py`` checks each screen
against the full rules on the corpus, generated programs and real code.

* :func:`calls_backward`: AF101 and AF104 look at statements holding a call
  named ``backward`` (``loss.backward()``, ``accelerator.backward(loss)``,
  ``torch.autograd.backward(...)``).
* :func:`may_backpropagate`: AF102 and AF105 follow graphs into a
  ``backward()``, ``torch.autograd.grad`` or ``jacobian`` call, imported
  under any name.
* AF103's and AF107's screen is their analysis itself (:mod:`autofix.analysis.inplace`), which
  reads Python's parse tree: LibCST parses only the files where it reports something.
"""

from __future__ import annotations

import ast
import warnings
from typing import TYPE_CHECKING, Any, FrozenSet, Optional, Tuple, Union

from autofix.model.nodes import ModuleNodes, nodes_of
from autofix.model.vocabulary import BACKWARD_CALLS, DIFFERENTIATING_CALLS

if TYPE_CHECKING:
    from autofix.model.project import ModuleModel

__all__ = [
    "ModuleNodes", "nodes_of", "parse_python", "calls_backward", "may_backpropagate", "forward_writes_self",
    "set_origin", "origin", "origin_model", "kept_model",
]


def parse_python(source: Union[bytes, str]) -> Optional[ast.Module]:
    """Python's own parse of ``source``; None when it cannot (newer syntax, bad encoding …).

    A file Python cannot parse goes on to LibCST, which parses or reports it.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError, LookupError):
        return None


def set_origin(tree: ast.Module, path: str, project: Any, source: Union[bytes, str, None] = None) -> None:
    """Say where ``tree`` was read from: a screen may then ask the program model about the names
    it imports from its project (``project``: a Project, None for a file alone, or FIND_PROJECT;
    ``source``: the text ``tree`` was parsed from, which the model is cached by)."""
    tree._autofix_origin = (path, project)  # type: ignore[attr-defined]
    tree._autofix_source = source  # type: ignore[attr-defined]


def origin(tree: ast.Module) -> Optional[Tuple[str, Any]]:
    """``(path, project setting)`` given to :func:`set_origin`; None when the tree's file is unknown."""
    return getattr(tree, "_autofix_origin", None)


def kept_model(tree: Optional[ast.Module]) -> Optional["ModuleModel"]:
    """The model :func:`origin_model` built for ``tree``, if it built one."""
    return getattr(tree, "_autofix_model", None)


def origin_model(tree: ast.Module) -> "ModuleModel":
    """The program model of the module ``tree`` was read from (built once, kept on the tree, where
    the rules' context finds it): linked to its project when :func:`set_origin` said where it is,
    the file alone otherwise."""
    found = kept_model(tree)
    if found is None:
        from autofix.model.project import FIND_PROJECT, empty_model, model_for_source, project_for

        path, project = origin(tree) or ("<string>", None)
        if project is FIND_PROJECT:
            project = project_for(path)
        source = getattr(tree, "_autofix_source", None)
        if source is None:
            source = ast.unparse(tree)  # only the model's cache key: the summary is read from ``tree``
        found = model_for_source(source, path, project, tree=tree) or empty_model(path)
        tree._autofix_model = found  # type: ignore[attr-defined]
    return found  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- backward


#: Methods that back-propagate (the model's vocabulary): ``loss.backward()``,
#: ``accelerator.backward(loss)``, Lightning's ``self.manual_backward(loss)``.
BACKWARD_NAMES = BACKWARD_CALLS
_BACKPROPAGATE = DIFFERENTIATING_CALLS


def calls_backward(tree: ast.Module) -> bool:
    """A call named ``backward`` or ``manual_backward`` anywhere (what AF101/AF104's ``backward_holders`` look for)."""
    return _calls_named(tree, BACKWARD_NAMES, aliases=False)


def may_backpropagate(tree: ast.Module) -> bool:
    """A call to ``backward``, ``grad`` or ``jacobian``, under any imported alias."""
    return _calls_named(tree, _BACKPROPAGATE, aliases=True)


def forward_writes_self(tree: ast.Module) -> bool:
    """A method named ``forward`` that assigns a ``self`` attribute it also reads (AF102's state kept
    on a module between calls, whose training loop may be in another file)."""
    for node in nodes_of(tree).classes:  # the screens' one walk has filed the classes
        for method in node.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name not in ("forward", "training_step"):
                continue
            loaded: set = set()
            stored: set = set()
            for inner in ast.walk(method):
                if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id == "self":
                    (stored if isinstance(inner.ctx, ast.Store) else loaded).add(inner.attr)
            if loaded & stored:
                return True
    return False


def _calls_named(tree: ast.Module, names: FrozenSet[str], aliases: bool) -> bool:
    nodes = nodes_of(tree)
    wanted = set(names)
    if aliases:
        for node in nodes.imports:
            if isinstance(node, ast.ImportFrom):
                wanted.update(a.asname for a in node.names if a.asname and a.name in names)
    for call in nodes.calls:
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name in wanted:
            return True
    return False
