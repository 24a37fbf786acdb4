"""AF103's and AF107's screen: can the in-place analysis report anything in this module?

Part of the syntactic screens (:mod:`autofix.analysis.screen`), run on
Python's own parse tree before any LibCST parse. It is a query over the
program model's in-place facts (:mod:`autofix.model.writes`): among the
scopes the analysis walks (forwards, code calling ``backward()``, and the
functions and methods of the file they call), is there a write whose target
may be something the rule reports? For AF103 that is a leaf, a view, an
alias, a saved output or a value an op saved before the write; for AF107 a
tensor the caller passed in.

``tests/test_screens.py`` holds it to that against the full analysis.
"""

from __future__ import annotations

import ast

from autofix.model.writes import AUTOGRAD_FACTS, CALLER_FACTS, module_writes


def may_have_inplace_events(tree: ast.Module, caller_only: bool = False) -> bool:
    """False when the in-place analysis cannot report anything in ``tree`` (``caller_only``: for AF107)."""
    wanted = CALLER_FACTS if caller_only else AUTOGRAD_FACTS
    return any(write.facts & wanted for scope in module_writes(tree).reachable() for write in scope.writes)
