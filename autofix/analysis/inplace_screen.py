"""AF103's and AF107's screen: can the in-place analysis report anything in this module?

Part of the syntactic screens (:mod:`autofix.analysis.screen`), run on
Python's own parse tree before any LibCST parse. It is a query over the
program model's in-place facts (:mod:`autofix.model.writes`): among the
scopes the analysis walks (forwards, code calling ``backward()``, and the
functions and methods of the file they call), is there a write whose target
may be something the rule reports? For AF103 that is a leaf, a view, an
alias, a saved output or a value an op saved before the write; for AF107 a
tensor the caller passed in.

When the engine says which file the tree is (:func:`autofix.analysis.screen.set_origin`), a call
of a helper imported from the project writes only the arguments the program model says it
writes (:meth:`ModuleModel.helper_writes`, what the analysis asks too); otherwise any argument.

``tests/test_screens.py`` holds it to that against the full analysis.
"""

from __future__ import annotations

import ast
from typing import FrozenSet, List, Optional, Set

from autofix.analysis.screen import origin
from autofix.model.nodes import nodes_of
from autofix.model.summaries import dotted
from autofix.model.writes import AUTOGRAD_FACTS, CALLER_FACTS, HelperWrites, module_writes


def may_have_inplace_events(tree: ast.Module, caller_only: bool = False) -> bool:
    """False when the in-place analysis cannot report anything in ``tree`` (``caller_only``: for AF107)."""
    wanted = CALLER_FACTS if caller_only else AUTOGRAD_FACTS
    writes = module_writes(tree, _project_helpers(tree))
    return any(write.facts & wanted for scope in writes.reachable() for write in scope.writes)


def _project_helpers(tree: ast.Module) -> Optional[HelperWrites]:
    """What the program model says the project helpers ``tree`` calls write (None: no project known)."""
    where = origin(tree)
    if where is None:
        return None
    found = getattr(tree, "_autofix_helpers", None)
    if found is not None:
        return found  # type: ignore[no-any-return]
    path, project = where
    from autofix.model.project import FIND_PROJECT, imports_model, project_for

    if project is FIND_PROJECT:
        project = project_for(path)
    if project is None:
        return None
    model = imports_model(tree, path, project)
    rebound: List[Set[str]] = []

    def helper_writes(call: ast.Call) -> Optional[FrozenSet[int]]:
        spelled = dotted(call.func)
        if spelled is None:
            return None
        if not rebound:
            rebound.append(_assigned_names(tree))
        if spelled.split(".", 1)[0] in rebound[0]:
            return None  # ``masking = Masking()`` in some function: the analysis calls that object's method
        return model.helper_writes(spelled)

    tree._autofix_helpers = helper_writes  # type: ignore[attr-defined]
    return helper_writes


def _assigned_names(tree: ast.Module) -> Set[str]:
    """Names bound by an assignment anywhere in ``tree``."""
    found: Set[str] = set()
    for nodes in nodes_of(tree).local.values():
        for node in nodes:
            kind = type(node)
            if kind is ast.Assign:
                found.update(t.id for t in node.targets if isinstance(t, ast.Name))  # type: ignore[attr-defined]
            elif kind is ast.AnnAssign and isinstance(node.target, ast.Name):  # type: ignore[attr-defined]
                found.add(node.target.id)  # type: ignore[attr-defined]
    return found
