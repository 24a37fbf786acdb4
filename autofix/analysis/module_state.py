"""Module instances a loop calls that carry graph state from one call into the next.

The model tells which project classes keep state across ``forward`` calls
(:meth:`autofix.model.project.ModuleModel.carried_state`, followed into
submodules and other files). This module finds, inside one loop, the calls
of such instances and whether the loop re-creates that state: assigns it
(``model.rnn.h = None``, ``model.rnn.h = model.rnn.h.detach()``), rebuilds the
instance, or calls a method of its class that resets it.

Two readings of "re-creates", one per use:

* ``strict`` (AF106, before it drops ``retain_graph=True``): only what surely
  re-creates the state counts; anything else leaves the flag alone.
* liberal (AF102, before it reports): any other method called on the
  instance or a part of it, or the instance handed to a function
  (``reset_states(model)``), may reset it, and the loop is not reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from autofix.analysis import loops
from autofix.analysis.names import dotted_name
from autofix.analysis.training import grad_disabled_nodes
from autofix.context import RuleContext
from autofix.model.summaries import ClassSummary, FunctionSummary
from autofix.model.vocabulary import MODULE_SELF_METHODS

#: ``nn.Module`` methods that read or move a module but never touch the state its forward keeps
_PURE_METHODS = MODULE_SELF_METHODS | {
    "forward", "parameters", "named_parameters", "buffers", "named_buffers", "modules", "named_modules",
    "children", "zero_grad", "state_dict", "size", "dim", "numel",
}


@dataclass(frozen=True)
class StatefulCall:
    """A call, inside a loop, of a module instance whose carried state the loop does not re-create."""

    call: cst.Call
    #: the instance as spelled (``model``, ``self.net``)
    instance: str
    cls: ClassSummary
    #: path from the instance to the carried state (``recurrent.weight``) → the methods re-creating it
    state: Dict[str, Tuple[str, ...]]


def unreset_calls(context: RuleContext, loop: cst.CSTNode, scope: str, strict: bool) -> List[StatefulCall]:
    """Calls of stateful module instances in ``loop`` (with grad enabled) whose state it keeps carrying.

    ``scope`` is the model's qualname of the function holding the loop. One per
    instance, the first call in source order.
    """
    return context.fact(
        ("module_state.unreset_calls", id(loop), strict), lambda: _unreset_calls(context, loop, scope, strict)
    )


def _unreset_calls(context: RuleContext, loop: cst.CSTNode, scope: str, strict: bool) -> List[StatefulCall]:
    model = context.model
    caller: Optional[FunctionSummary] = model.function(scope)
    if caller is None:
        return []
    disabled = _disabled_ids(context, loop)
    found: Dict[str, StatefulCall] = {}
    for node in loops.walk(loop):
        if not isinstance(node, cst.Call) or id(node) in disabled:
            continue
        spelled = dotted_name(node.func)
        if spelled is None:
            continue
        if spelled.endswith(".forward"):
            spelled = spelled[: -len(".forward")]
        if spelled in found:
            continue
        cls = model.instance_class(caller, spelled)
        if cls is None or not model.is_module_class(cls):
            continue
        state = model.carried_state(cls)
        if state:
            found[spelled] = StatefulCall(node, spelled, cls, state)
    answers = []
    for spelled, stateful in found.items():
        kept = {path: resetters for path, resetters in stateful.state.items()
                if not _recreated(loop, spelled, path, resetters, strict)}
        if kept:
            answers.append(StatefulCall(stateful.call, spelled, stateful.cls, kept))
    return answers


def _disabled_ids(context: RuleContext, loop: cst.CSTNode) -> Set[int]:
    disabled = grad_disabled_nodes(context)
    found: Set[int] = set()
    for node in loops.walk(loop):
        if node in disabled:
            found.update(id(inner) for inner in loops.walk(node))
    return found


def _recreated(loop: cst.CSTNode, instance: str, path: str, resetters: Tuple[str, ...], strict: bool) -> bool:
    """Does ``loop`` re-create ``<instance>.<path>`` on its way round?"""
    full = f"{instance}.{path}"
    owner = full.rpartition(".")[0]
    for node in loops.walk(loop):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                for part in loops.target_parts(target):
                    name = dotted_name(part) if isinstance(part, (cst.Name, cst.Attribute)) else None
                    # The instance rebuilt, the part holding the state replaced, or the state itself assigned.
                    if name is not None and (full == name or full.startswith(name + ".")):
                        return True
        elif isinstance(node, cst.Call):
            called = dotted_name(node.func)
            if called is not None and called.startswith(instance + "."):
                receiver, _, method = called.rpartition(".")
                if receiver == owner and method in resetters:
                    return True
                if receiver == full and method == "detach_":
                    return True
                if not strict and method not in _PURE_METHODS and full.startswith(receiver):
                    return True
            if not strict and any(_hands_on(arg.value, instance) for arg in node.args):
                return True
    return False


def _hands_on(value: cst.BaseExpression, instance: str) -> bool:
    """``reset(model)``, ``repackage(model.rnn)``: the instance or a part of it handed to a call."""
    name = dotted_name(value)
    return name is not None and (name == instance or name.startswith(instance + "."))
