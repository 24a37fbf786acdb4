"""Training-step facts: backward calls, optimizer steps, zero_grad calls, no_grad regions.

Optimizers are recognised by construction (``torch.optim.*`` resolved through
LibCST qualified names, including ``self.opt = optim.Adam(...)``), by use
(a receiver that has both ``.zero_grad()`` and ``.step()`` called on it,
``scaler.step(opt)``) and, only for names the module never constructs as
something else, by a conventional name (``optimizer``, ``opt_g``, …).
Learning-rate schedulers are recognised the same way and are never optimizers.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass, field
from typing import AbstractSet, Dict, List, Optional, Set

import libcst as cst

from autofix.analysis.index import module_index
from autofix.analysis.names import children as _children, dotted_name, method_call
from autofix.analysis.screen import BACKWARD_NAMES
from autofix.context import RuleContext

_OPTIMIZER_NAME = re.compile(r"(^|[._])(opt|optim|optimizer|optimiser)(s?)(_\w+|\d+)?$", re.IGNORECASE)
_GRAD_DISABLING = {
    "torch.no_grad",
    "torch.inference_mode",
    "torch.autograd.no_grad",
    "torch.autograd.grad_mode.no_grad",
    "torch.autograd.grad_mode.inference_mode",
}


def qualified_names(context: RuleContext, node: cst.CSTNode) -> Set[str]:
    """Qualified names of an expression, resolved through the module's imports.

    ``import torch as th`` makes ``th.optim.Adam`` read ``torch.optim.Adam``;
    ``from torch import nn`` makes ``nn.ReLU`` read ``torch.nn.ReLU``. This is
    what LibCST's ``QualifiedNameProvider`` answers for these rules, without
    its scope analysis, which costs more than all the rules together on large
    files. Rebinding an imported name (``torch = None``) is not followed.
    """
    name = dotted_name(node) if isinstance(node, cst.BaseExpression) else None
    if name is None:
        return set()
    head, _, rest = name.partition(".")
    aliases = import_aliases(context)
    if head in aliases:
        target = aliases[head]
        return {f"{target}.{rest}" if rest else target}
    if head in _BUILTINS and not rest:
        return {f"builtins.{head}"}
    return {name}


_BUILTINS = frozenset(dir(builtins))


def import_aliases(context: RuleContext) -> Dict[str, str]:
    """Local name → imported dotted name, for every import in the module."""
    return context.fact("import_aliases", lambda: _collect_aliases(context))


def _collect_aliases(context: RuleContext) -> Dict[str, str]:
    aliases: Dict[str, str] = {}
    for node in module_index(context).imports:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted_name(alias.name)
                if full is None:
                    continue
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    aliases[alias.asname.name.value] = full
                else:
                    head = full.split(".", 1)[0]
                    aliases[head] = head
            continue
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            continue
        base = dotted_name(node.module)
        if base is None:
            continue
        for alias in node.names:
            imported = dotted_name(alias.name)
            if imported is None:
                continue
            local = imported
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            aliases[local] = f"{base}.{imported}"
    return aliases


@dataclass
class OptimizerFacts:
    """Dotted names bound to optimizers and to LR schedulers anywhere in the module."""

    optimizers: Set[str] = field(default_factory=set)
    schedulers: Set[str] = field(default_factory=set)
    #: receiver dotted name → methods called on it (``zero_grad``, ``step`` …)
    methods: Dict[str, Set[str]] = field(default_factory=dict)
    #: optimizer dotted name → what it was built from: ``model`` for
    #: ``Adam(model.parameters())``, ``params`` for ``SGD(params)``.
    param_sources: Dict[str, Set[str]] = field(default_factory=dict)
    #: names bound to an object constructed from parameters or from an optimizer
    param_holders: Set[str] = field(default_factory=set)

    def holds_parameters(self, name: Optional[str]) -> bool:
        """An optimizer, or any object built from parameters (``SAM(model.parameters(), ...)``,
        ``Lookahead(opt)``): its methods may read or change gradients."""
        if name is None or name in self.schedulers:
            return False
        return self.is_optimizer(name) or name in self.param_holders

    def is_optimizer(self, name: Optional[str]) -> bool:
        if name is None or name in self.schedulers:
            return False
        if name in self.optimizers:
            return True
        used = self.methods.get(name, set())
        if {"zero_grad", "step"} <= used:
            return True
        last = name.rsplit(".", 1)[-1]
        return bool(_OPTIMIZER_NAME.search(last)) and "sched" not in last.lower()


def optimizer_facts(context: RuleContext) -> OptimizerFacts:
    return context.fact("optimizer_facts", lambda: _collect_optimizer_facts(context))


def _collect_optimizer_facts(context: RuleContext) -> OptimizerFacts:
    facts = OptimizerFacts()
    index = module_index(context)
    classes = _optimizer_class_names(context, index)
    for node, _ in index.assigns:
        if not isinstance(node.value, cst.Call):
            continue
        kind = _constructed_kind(context, node.value, classes)
        if kind is None:
            if _built_from_parameters(node.value, facts):
                facts.param_holders.update(filter(None, (dotted_name(t.target) for t in node.targets)))
            continue
        for target in node.targets:
            name = dotted_name(target.target)
            if name:
                (facts.optimizers if kind == "optimizer" else facts.schedulers).add(name)
                if kind == "optimizer":
                    facts.param_sources.setdefault(name, set()).update(_param_sources(node.value))
    for call in index.calls:
        mc = method_call(call)
        if mc is None:
            continue
        receiver = dotted_name(mc[0])
        if receiver:
            facts.methods.setdefault(receiver, set()).add(mc[1])
    _expand_parameter_names(index, facts)
    return facts


def _expand_parameter_names(index, facts: OptimizerFacts) -> None:
    """``params = chain(G.parameters(), E.parameters()); opt = Adam(params)``: the optimizer updates
    ``G`` and ``E`` too. A name bound once in the module adds the models its value takes parameters of."""
    named = {name for sources in facts.param_sources.values() for name in sources if "." not in name}
    if not named:
        return
    values: Dict[str, List[cst.BaseExpression]] = {}
    for node, _ in index.assigns:
        for target in node.targets:
            if isinstance(target.target, cst.Name) and target.target.value in named:
                values.setdefault(target.target.value, []).append(node.value)
    for sources in facts.param_sources.values():
        for name in list(sources):
            bound = values.get(name, [])
            if len(bound) == 1:
                sources.update(_sources_in([bound[0]], parameters_only=True))


def _built_from_parameters(call: cst.Call, facts: OptimizerFacts) -> bool:
    """A constructor (a capitalised callee) given ``x.parameters()`` or an optimizer seen so far."""
    callee = (dotted_name(call.func) or "").rsplit(".", 1)[-1]
    if not callee[:1].isupper() or not call.args:
        return False
    first = call.args[0].value
    mc = method_call(first)
    if mc is not None and mc[1] in ("parameters", "named_parameters"):
        return True
    return facts.is_optimizer(dotted_name(first))


def _param_sources(call: cst.Call) -> Set[str]:
    """Models or parameter lists an optimizer constructor call was given."""
    args = [a for a in call.args if a.keyword is None or a.keyword.value == "params"][:1]
    return _sources_in([a.value for a in args])


def _sources_in(expressions: List[cst.BaseExpression], parameters_only: bool = False) -> Set[str]:
    """The models whose ``.parameters()`` the expressions take, and (unless ``parameters_only``)
    the names they spell."""
    found: Set[str] = set()
    stack: list = list(expressions)
    while stack:
        node = stack.pop()
        mc = method_call(node)
        if mc is not None and mc[1] in ("parameters", "named_parameters"):
            name = dotted_name(mc[0])
            if name:
                found.add(name)
            continue
        name = dotted_name(node)
        if name is not None:
            if not parameters_only:
                found.add(name)
            continue
        stack.extend(c for c in _children(node) if isinstance(c, cst.BaseExpression) or isinstance(c, (cst.Element, cst.DictElement, cst.Arg, cst.CompFor)))
    return found


def _optimizer_class_names(context: RuleContext, index) -> Set[str]:
    """Names that hold an optimizer class rather than spell one: a parameter defaulting to one
    (``def __init__(self, ..., optimizer_class=optim.Adam)``), a name assigned one (``opt_cls =
    torch.optim.SGD``). Calling them builds an optimizer, as calling the class does."""
    found: Set[str] = set()
    for function, _ in index.functions:
        p = function.params
        for param in (*p.posonly_params, *p.params, *p.kwonly_params):
            if param.default is not None and _names_optimizer_class(context, param.default):
                found.add(param.name.value)
    for node, _ in index.assigns:
        if isinstance(node.value, (cst.Name, cst.Attribute)) and _names_optimizer_class(context, node.value):
            found.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
    return found


def _names_optimizer_class(context: RuleContext, expression: cst.BaseExpression) -> bool:
    names = qualified_names(context, expression) or {dotted_name(expression) or ""}
    return any(
        name.startswith(("torch.optim.", "optim.")) and "lr_scheduler" not in name
        and name.rsplit(".", 1)[-1][:1].isupper()
        for name in names
    )


def _constructed_kind(context: RuleContext, call: cst.Call, classes: AbstractSet[str] = frozenset()) -> Optional[str]:
    if isinstance(call.func, cst.Name) and call.func.value in classes:
        return "optimizer"
    names = qualified_names(context, call.func) or {dotted_name(call.func) or ""}
    for name in names:
        if "lr_scheduler" in name or name.endswith("Scheduler") or name.endswith("LR"):
            return "scheduler"
        if name.startswith("torch.optim.") or name.startswith("optim."):
            return "optimizer"
    return None


# --------------------------------------------------------------------------- calls


def is_backward_call(context: RuleContext, call: cst.Call) -> bool:
    """``x.backward(...)``, ``self.manual_backward(loss)`` or ``torch.autograd.backward(...)``."""
    mc = method_call(call)
    if mc is not None and mc[1] in BACKWARD_NAMES:
        return True
    return "torch.autograd.backward" in qualified_names(context, call.func)


def is_step_call(context: RuleContext, call: cst.Call) -> bool:
    """An optimizer step: ``opt.step()``, ``scaler.step(opt)``."""
    mc = method_call(call)
    if mc is None or mc[1] != "step":
        return False
    facts = optimizer_facts(context)
    receiver = dotted_name(mc[0])
    if facts.is_optimizer(receiver):
        return True
    # AMP: scaler.step(optimizer)
    return bool(call.args) and facts.is_optimizer(dotted_name(call.args[0].value))


def is_zero_grad_call(call: cst.Call) -> bool:
    mc = method_call(call)
    return mc is not None and mc[1] == "zero_grad"


# --------------------------------------------------------------------------- regions


def disables_grad(context: RuleContext, item: cst.BaseExpression) -> bool:
    """A ``with`` item or decorator that turns autograd off (``torch.no_grad()`` …)."""
    call = item if isinstance(item, cst.Call) else None
    func = call.func if call is not None else item
    names = qualified_names(context, func) | {dotted_name(func) or ""}
    if names & _GRAD_DISABLING or any(n.endswith(("no_grad", "inference_mode")) for n in names):
        return True
    if call is not None and any(n.endswith("set_grad_enabled") for n in names):
        return bool(call.args) and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == "False"
    return False


def grad_disabled_nodes(context: RuleContext) -> Set[cst.CSTNode]:
    """The bodies of ``with torch.no_grad():`` blocks and ``@torch.no_grad()`` functions."""
    return context.fact("grad_disabled_nodes", lambda: _collect_disabled(context))


def _collect_disabled(context: RuleContext) -> Set[cst.CSTNode]:
    found: Set[cst.CSTNode] = set()
    index = module_index(context)
    for node in index.withs:
        if any(disables_grad(context, item.item) for item in node.items):
            found.add(node.body)
    for func, _ in index.functions:
        if any(disables_grad(context, d.decorator) for d in func.decorators):
            found.add(func.body)
    return found


#: training wrappers whose ``.backward(loss)`` takes the loss as an argument
_BACKWARD_WRAPPER = re.compile(r"accelerator|fabric|trainer|strategy|precision|engine|booster", re.IGNORECASE)


def is_function_backward(context: RuleContext, call: cst.Call) -> bool:
    """The loss is the first argument: ``torch.autograd.backward(loss)``, ``accelerator.backward(loss)``,
    Lightning's ``self.manual_backward(loss)``."""
    if "torch.autograd.backward" in qualified_names(context, call.func):
        return True
    mc = method_call(call)
    if mc is not None and mc[1] == "manual_backward":
        return True
    receiver = dotted_name(mc[0]) if mc is not None and mc[1] == "backward" else None
    return receiver is not None and bool(_BACKWARD_WRAPPER.search(receiver.rsplit(".", 1)[-1]))
