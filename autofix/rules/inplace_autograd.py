from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import ClassVar, Optional, Tuple

import libcst as cst

from autofix.analysis.inplace import InplaceEvent, inplace_events, torch_alias
from autofix.analysis.locate import Statements, pair_statements, same_call
from autofix.analysis.names import dotted_name
from autofix.analysis.screen import origin_model
from autofix.model.vocabulary import LIBRARIES
from autofix.model.inplace_ops import (
    FUNCTIONAL_INPLACE_FUNCTIONS,
    INPLACE_METHODS,
    TORCH_FUNCTIONS,
    TORCH_INPLACE_FUNCTIONS,
)
from autofix.rule import Fix, InsertBefore, Replace, Rule
from autofix.types import Applicability, Expectation

_AUG_OPERATORS = {
    "AddAssign": "+",
    "SubtractAssign": "-",
    "MultiplyAssign": "*",
    "DivideAssign": "/",
    "FloorDivideAssign": "//",
    "ModuloAssign": "%",
    "PowerAssign": "**",
    "MatrixMultiplyAssign": "@",
    "BitAndAssign": "&",
    "BitOrAssign": "|",
    "BitXorAssign": "^",
    "LeftShiftAssign": "<<",
    "RightShiftAssign": ">>",
}
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString)
#: LibCST's binary operator classes and the operator they spell (``x += y`` is ``AddAssign``, ``+``).
_BINARY_OPERATORS = {name[: -len("Assign")]: op for name, op in _AUG_OPERATORS.items()}
# Binding strength of binary operators, loosest first (Python's grammar).
_PRECEDENCE = {"|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6, "/": 6, "//": 6, "%": 6, "@": 6, "**": 7}


_AUTOGRAD_CODE = re.compile(r"\bdef\s+forward\b|backward")
_INPLACE_SPELLING = re.compile(r"[a-z0-9]_\(|inplace\s*=\s*True|[-+*/@%&|^]=|<<=|>>=|\]\s*=[^=]")
#: An import from the file's own project (relative, or not one of the usual libraries): a helper
#: there may write in place what this file passes it (``utils.attention.mask_(scores)``).
_PROJECT_IMPORT = re.compile(
    r"^[ \t]*from[ \t]+\.|^[ \t]*(?:from|import)[ \t]+(?!(?:%s)\b)[A-Za-z_]" % "|".join(sorted(LIBRARIES)), re.MULTILINE
)


@dataclass(frozen=True)
class _Found:
    """An :class:`InplaceEvent` with the LibCST nodes the report and the fix are made of."""

    #: The operation: a ``Call``, an ``AugAssign`` or an ``Assign`` to a subscript.
    node: cst.CSTNode
    form: str
    target: str
    reason: str
    detail: str
    #: The small statement holding the operation (None in an ``if``/``while`` test), and its line
    #: (None for a statement after a compound statement's colon).
    small: Optional[cst.BaseSmallStatement]
    line: Optional[cst.SimpleStatementLine]
    visible: bool
    read_after: bool
    aliases_read: Tuple[str, ...]
    #: For ``x[mask] = v`` whose exact out-of-place form is ``x.masked_fill(mask, v)``: (mask, v).
    masked_fill: Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]


def _locate(event: InplaceEvent, statements: Statements) -> Optional[_Found]:
    """The event on LibCST's tree (None where the two trees do not line up: nothing is reported)."""
    paired = statements.get(id(event.statement))
    if paired is None:
        return None
    statement, line = paired
    node: Optional[cst.CSTNode] = statement
    if event.node is not event.statement:
        if isinstance(event.statement, (ast.If, ast.While)):
            node = same_call(event.statement.test, event.node, statement.test)  # type: ignore[arg-type,attr-defined]
        else:
            node = same_call(event.statement, event.node, statement)  # type: ignore[arg-type]
    if node is None:
        return None
    masked_fill = None
    if event.masked_fill and isinstance(node, cst.Assign):
        index = node.targets[0].target.slice[0].slice  # type: ignore[attr-defined]
        masked_fill = (index.value, node.value)
    return _Found(
        node=node,
        form=event.form,
        target=event.target,
        reason=event.reason,
        detail=event.detail,
        small=statement if isinstance(statement, cst.BaseSmallStatement) else None,
        line=line,
        visible=event.visible,
        read_after=event.read_after,
        aliases_read=event.aliases_read,
        masked_fill=masked_fill,
    )


class InplaceRule(Rule):
    """What AF103 and AF107 share: the in-place analysis, its screens and the out-of-place fix.

    A subclass sets :attr:`CALLER_ONLY`: AF103 takes the writes autograd objects
    to, AF107 those only the caller observes.
    """

    #: Report the events autograd has no objection to (AF107) instead of the others (AF103).
    CALLER_ONLY: ClassVar[bool] = False
    # Autograd code is reached from a forward or a backward() call: one of these words must occur.
    TRIGGERS = ("forward", "backward")
    FIXES: ClassVar[Tuple[Applicability, ...]] = (Applicability.SAFE, Applicability.UNSAFE)
    EXPECTATION = Expectation.IDENTICAL_OR_REPAIRED

    @classmethod
    def may_fire_in(cls, tree: ast.Module) -> bool:
        # The screen is the analysis itself, on Python's parse tree: its events are kept on the
        # tree, and :meth:`check` maps them onto LibCST's nodes.
        return bool(inplace_events(tree, lambda: origin_model(tree), cls.CALLER_ONLY))

    @classmethod
    def may_fire(cls, text: str) -> bool:
        # Autograd code is a ``def forward`` or a ``backward`` call ("forward"
        # alone is mostly prose in docstrings), and the file must spell some
        # in-place write: ``name_(``, ``inplace=True``, ``x += …`` or ``x[i] = …``, or import a helper
        # of its own project that may write in place.
        return _AUTOGRAD_CODE.search(text) is not None and (
            _INPLACE_SPELLING.search(text) is not None or _PROJECT_IMPORT.search(text) is not None
        )

    def check(self) -> None:
        tree = self.context.python_tree()
        if tree is None:
            return  # Python cannot parse it (LibCST accepts a little more): nothing is known
        events = inplace_events(tree, lambda: self.context.model, self.CALLER_ONLY)
        if not events:
            return
        self.torch = torch_alias(tree)
        statements = self.context.fact("ast_statements", lambda: pair_statements(tree, self.context.module))
        for event in events:
            found = _locate(event, statements)
            if found is None:
                continue
            fix = self._fix(found)
            message = self.MESSAGE.format(op=_describe(found), target=found.target, detail=found.detail)
            if fix is None:
                message += f" (no fix: {_why_no_fix(found)})"
            self.report(found.node, message, fix=fix)

    def _fix(self, event: _Found) -> Optional[Fix]:
        # Leaves, views and aliases need a decision, not a rewrite.
        if event.reason not in ("argument", "saved", "multi-view") or event.aliases_read:
            return None
        edits = self._edits(event)
        if edits is None:
            return None
        title = f"Use the out-of-place form and rebind `{event.target}`"
        return Fix.unsafe(title, *edits) if event.visible else Fix.safe(title, *edits)

    def _edits(self, event: _Found):
        small, target = event.small, event.target
        if small is None:
            return None
        if event.form == "augassign":
            assert isinstance(small, cst.AugAssign)
            operator = _AUG_OPERATORS.get(type(small.operator).__name__)
            if operator is None:
                return None
            value = self.context.code_for(small.value)
            if _needs_parentheses(small.value, operator):
                value = f"({value})"
            return (Replace(small, _assign(f"{target} = {target} {operator} {value}")),)
        if event.form == "setitem":
            if event.masked_fill is None:
                return None
            mask, value = (self.context.code_for(n) for n in event.masked_fill)  # type: ignore[union-attr]
            return (Replace(small, _assign(f"{target} = {target}.masked_fill({mask}, {value})")),)
        call = event.node
        assert isinstance(call, cst.Call)
        new_call = self._out_of_place(event, call)
        if new_call is None:
            return None
        if isinstance(small, cst.Expr) and small.value is call:
            return (Replace(small, cst.Assign([cst.AssignTarget(cst.Name(target))], new_call)),)
        rebinds_target = (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value == target
        )
        if not isinstance(small, (cst.Assign, cst.Return)) or small.value is not call:
            return None
        if rebinds_target or (event.form == "functional" and not event.read_after):
            return (Replace(call, new_call),)
        # y = x.relu_() binds both names to the new value: keep it so.
        if event.line is None or len(event.line.body) != 1:
            return None
        rebind = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(target))], new_call)])
        return (InsertBefore(event.line, (rebind,)), Replace(call, cst.Name(target)))

    def _out_of_place(self, event: _Found, call: cst.Call) -> Optional[cst.BaseExpression]:
        if event.form == "functional":
            args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "inplace")]
            if len(args) == len(call.args):
                # inplace=True was positional: the last positional argument.
                args = [a for a in call.args if a.keyword is None][:-1] + [a for a in call.args if a.keyword is not None]
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return call.with_changes(args=args)
        if event.form == "function":
            func = call.func
            if not isinstance(func, cst.Attribute):
                return None
            name = func.attr.value
            plain = TORCH_INPLACE_FUNCTIONS.get(name) or FUNCTIONAL_INPLACE_FUNCTIONS.get(name)
            return call.with_changes(func=func.with_changes(attr=cst.Name(plain))) if plain else None
        if event.form != "method":
            return None
        links = []
        node: cst.BaseExpression = call
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            links.append(node)
            node = node.func.value
        if len(links) == 1:
            single = self._single_method(call, event.target)
            if single is not None:
                return single
        rebuilt: cst.BaseExpression = node
        for link in reversed(links):
            assert isinstance(link.func, cst.Attribute)
            plain = INPLACE_METHODS.get(link.func.attr.value)
            if plain is None:
                return None
            rebuilt = link.with_changes(func=link.func.with_changes(value=rebuilt, attr=cst.Name(plain)))
        return rebuilt

    def _single_method(self, call: cst.Call, target: str) -> Optional[cst.BaseExpression]:
        assert isinstance(call.func, cst.Attribute)
        name = call.func.attr.value
        if self.torch is None:
            return None
        if name == "zero_" and not call.args:
            return cst.parse_expression(f"{self.torch}.zeros_like({target})")
        if name == "fill_" and len(call.args) == 1 and call.args[0].keyword is None:
            value = self.context.code_for(call.args[0].value)
            if isinstance(call.args[0].value, (cst.Integer, cst.Float, cst.UnaryOperation)):
                return cst.parse_expression(f"{self.torch}.full_like({target}, {value})")
            return None
        plain = INPLACE_METHODS.get(name)
        # x.relu_() -> torch.relu(x): the spelling for argument-free ops.
        if plain in TORCH_FUNCTIONS and not call.args:
            return cst.parse_expression(f"{self.torch}.{plain}({target})")
        return None




class InplaceAutograd(InplaceRule):
    """
    ## What it does
    Finds in-place operations that autograd rejects, or that corrupt a tensor
    a later `backward()` reads, in code that runs under autograd: an
    `nn.Module.forward`, a training step (a function or script that calls
    `backward()`), and the helpers and modules of the same file they call:

    * in-place methods (`x.relu_()`, `x.add_(y)`, `x.mul_(s).add_(b)`,
      `x.clamp_(...)`, `x.zero_()` … every `torch.Tensor` method `name_`),
      `torch.relu_(x)` and `F.relu_(x)`;
    * augmented assignment on a tensor (`x += y`, `x *= s`);
    * functional `inplace=True` (`F.relu(x, inplace=True)`, `F.dropout(..., inplace=True)`);
    * a module built with `inplace=True` (`self.act = nn.ReLU(inplace=True)`) applied to such a tensor;
    * indexed assignment (`x[mask] = 0`);
    * a call to a helper, or to a module of the same file, whose code writes
      that argument in place (reported at the call, on the caller's tensor);

    when the tensor written is
    * a leaf that requires grad (`torch.randn(..., requires_grad=True)`,
      `nn.Parameter`, a parameter updated from its own `.grad` outside `torch.no_grad()`);
    * a value autograd saved for backward: the output of `sigmoid`, `tanh`,
      `exp`, `softmax`, `log_softmax`, `relu`, `sqrt` … (also through a module
      that ends in one, such as an `nn.Sequential` whose last layer is
      `nn.ReLU(inplace=True)`), or an input of `*`, `/`, `@`, `pow`, `log`, a
      `Linear`/`Conv`/norm layer …;
    * a view of one of those, or a value with a plain alias read afterwards
      (the alias silently sees the new value).

    In a training step a saved value only matters while a later `backward()`
    can still reach it: metrics computed after `loss.backward()` are left alone,
    and so is a write whose tensor no backward of the step depends on (a
    softmax edited into a hand-made gradient while only `F.cross_entropy(x, y)`
    is back-propagated). The names are followed through the step's assignments
    and calls, in any order: what reaches a `backward()`/`autograd.grad`
    statement, a `return`/`yield`, a parameter (`self` too), a global, or the
    arguments of a call the walk cannot see into (a project's function, which
    may back-propagate) keeps the report; a step with a nested function or
    class is not followed. A forward's outputs reach a backward elsewhere: it
    is always reported.
    Nor does what an operation saved when only a graph-cutting use reads its
    result (`while x.norm().item() > 1: x /= 2`, a comparison, `float(...)`):
    that graph node is dropped at once. A value saved in one branch of an
    `if`/`elif` chain and written in another is never both in one call. A
    helper's parameter that every call in the file hands a tensor requiring no
    grad (a sinusoid table built from constant tensors) saves nothing.

    A forward's own arguments are taken to require grad: the module may be a
    block of a larger model, a discriminator fed a generator's output, or an
    instance built by name from a registry, and nothing in the source ties
    such an instance to the calls that feed it. So standardising the input
    in place (`x = x - x.mean(1, keepdim=True); x /= torch.sqrt(x.var(1,
    keepdim=True))`) is reported even where the project's own loop only ever
    passes it data; the out-of-place fix is right either way.

    What the project does with the module is read, though, when every use of
    it can be seen. A post-processing module (`class ClipBoxes(nn.Module)`
    whose forward writes `boxes[:, :, 0] = torch.clamp(boxes[:, :, 0],
    min=0)`) that the project's files only build as `clip = ClipBoxes()` or
    `self.clip = ClipBoxes()` and call under `torch.no_grad()` /
    `torch.inference_mode()` (or in a function decorated with them) gets no
    finding of autograd's kind in its forward; called in the inference branch
    of `if self.training:` as well, it loses only the findings a backward
    would raise (a leaf written there still raises in grad mode). Any other
    mention of the class's name in the project's Python files (a subclass, an
    instance passed to a function or put in an `nn.Sequential`, an alias, a
    registry string, a call with grad) keeps the finding, as does a class no
    file uses. Only calls made directly in such a context count: a function
    merely reached from one is not followed.

    A forward that writes to a tensor its caller passed in, where nothing
    shows that autograd saved it, is AF107 (`inplace-argument`, off by default).

    It stays silent under `torch.no_grad()`/`torch.inference_mode()`, in
    `__init__`, `reset_parameters` and other initialisation functions, in
    optimizers and `autograd.Function`s, on attributes (`self.running_mean`,
    `p.data`), on freshly created tensors (`torch.zeros(...)`, `x.clone()`), in
    functions that take an `inplace` flag, on `x += pos` where `x` is an
    embedding's output (an embedding does not save its output), and on the
    standard `nn.ReLU(inplace=True)` right after a convolution or batch norm,
    whose backward needs neither value.

    ## Why is this bad?
    Autograd keeps references to the tensors a backward formula needs and
    checks their version counter. Writing to one in place makes `backward()`
    raise `RuntimeError: one of the variables needed for gradient computation
    has been modified by an inplace operation`; writing to a leaf that
    requires grad raises `a leaf Variable that requires grad is being used in
    an in-place operation`. An alias of the written tensor read afterwards
    holds the new value, not the one its author meant.

    ## Example
    ```python
    class Head(nn.Module):
        def forward(self, x):
            p = torch.sigmoid(self.fc(x))
            p.mul_(self.scale)        # sigmoid's backward needs p
            return p
    ```

    Use instead:
    ```python
    class Head(nn.Module):
        def forward(self, x):
            p = torch.sigmoid(self.fc(x))
            p = p.mul(self.scale)
            return p
    ```

    ## Fix safety
    The fix writes the out-of-place form and rebinds the name: `x.relu_()`
    becomes `x = torch.relu(x)`, `x.add_(y)` becomes `x = x.add(y)`, `y =
    x.relu_()` becomes `x = torch.relu(x)` then `y = x`, `x += y` becomes `x =
    x + y`, `F.relu(x, inplace=True)` loses `inplace=True`, and `x[x < 0] = 0`
    becomes `x = x.masked_fill(x < 0, 0)` (only for a mask computed from `x`
    itself and a scalar, where the two are exactly equal). The values the
    function computes are unchanged, and the saved tensor keeps the value
    backward needs. The fix is safe when nothing outside the function can see
    the write; it is unsafe when the tensor is an argument, has an alias or a
    view, or was stored in a container or attribute, because those no longer
    see the new value. Leaves, views and aliases read later are reported
    without a fix: the right cure (`torch.no_grad()`, a `clone()`, or which
    value the alias meant) is a decision for the author. `self.act =
    nn.ReLU(inplace=True)` is reported without a fix because changing the
    constructor changes every use of the module; a write inside a helper is
    reported at the call without a fix, since the cure is in the helper.
    Every finding without a fix says why at the end of its message.

    The views `chunk`, `split` and `unbind` return are one more case: autograd
    refuses any in-place write to them while their base requires grad, so
    `mean, log_std = head(x).chunk(2, -1); log_std.clamp_(-5, 2)` is fixed to
    `log_std = log_std.clamp(-5, 2)` (unsafe when the chunked tensor has a name,
    since the base no longer changes). A recurrent module's sequence output
    (`out, _ = self.lstm(x)`, `self.lstm(x)[0]`) is saved by its backward;
    its final hidden state is not. An `nn.Parameter` of the module and a tensor
    flagged with `requires_grad = True` are leaves: in-place ops on them outside
    `torch.no_grad()` are reported without a fix.

    In-place ops are recognised by torch's own naming (a table generated from
    `torch.Tensor`, `torch` and `torch.nn.functional`); what autograd saves is
    a table after `derivatives.yaml`. A tensor whose origin the rule cannot
    see (an unknown function's result) is never assumed to be saved.

    ## Runtime evidence
    With `autofix --run CMD` the doctor re-runs a step that raised "modified
    by an inplace operation" with saved-tensor hooks and version counters: it
    records the in-place op that changed a tensor autograd saved (which op,
    where, the node that saved it and that node's forward line), even when the
    op hides in a module from another file or a config (an `nn.Sequential`
    ending in `ReLU(inplace=True)` followed by `+=`). The finding sits at the
    in-place op; a `+=` there becomes the out-of-place form.

    ## References
    - [Autograd mechanics: in-place operations](https://pytorch.org/docs/stable/notes/autograd.html#in-place-operations-with-autograd)
    - [`tools/autograd/derivatives.yaml`](https://github.com/pytorch/pytorch/blob/main/tools/autograd/derivatives.yaml)
    """

    CODE = "AF103"
    NAME = "inplace-autograd"
    SUMMARY = "in-place operation on a tensor autograd saved for backward, or on a leaf that requires grad"
    MESSAGE = "in-place {op} on `{target}`: {detail}"
    FIXES = (Applicability.SAFE, Applicability.UNSAFE)


def _why_no_fix(event: _Found) -> str:
    """The clause ending a finding that comes without a fix."""
    if event.reason == "leaf":
        return "update it under `torch.no_grad()` or write to a clone"
    if event.reason in ("view", "argument-view"):
        return "decide whether the base tensor should change, then clone the view or the base"
    if event.aliases_read:
        names = ", ".join(f"`{a}`" for a in event.aliases_read)
        return f"decide whether {names} meant the old value (then clone it) or the new one"
    if event.form == "module":
        return "the module is built with inplace=True, and rebuilding it changes every use"
    if event.form == "call":
        return f"the write is inside `{_describe_callee(event)}`; make it out of place there"
    if event.form == "setitem":
        return "only a mask computed from the tensor itself has an exact out-of-place form; write to a clone"
    if event.form == "slice":
        return f"it writes through a slice of `{event.target}`; compute the slices out of place and join them with `torch.cat`"
    return "this write has no exact out-of-place spelling here"


def _needs_parentheses(value: cst.BaseExpression, operator: str) -> bool:
    """Does ``x <operator> value`` need parentheses around ``value`` to mean ``x <operator>= value``?"""
    if isinstance(value, _ATOMS) or value.lpar:
        return False
    if isinstance(value, cst.UnaryOperation) and not isinstance(value.operator, cst.Not):
        return False  # x - -y, x ** -y
    if isinstance(value, cst.BinaryOperation):
        # A right operand binds without parentheses only when strictly tighter.
        spelled = _BINARY_OPERATORS.get(type(value.operator).__name__, "")
        return _PRECEDENCE.get(spelled, 0) <= _PRECEDENCE[operator]
    return True


def _assign(code: str) -> cst.BaseSmallStatement:
    line = cst.parse_statement(code)
    assert isinstance(line, cst.SimpleStatementLine)
    return line.body[0]


def _describe_callee(event: _Found) -> str:
    node = event.node
    assert isinstance(node, cst.Call)
    return (dotted_name(node.func) or "the callee") + "()"


def _describe(event: _Found) -> str:
    node = event.node
    if event.form == "augassign":
        assert isinstance(node, cst.AugAssign)
        return f"`{_AUG_OPERATORS.get(type(node.operator).__name__, '?')}=`"
    if event.form == "setitem":
        return "indexed assignment"
    assert isinstance(node, cst.Call)
    while event.form in ("method", "slice") and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Call):
        node = node.func.value  # name the first write of a chain x.mul_(a).add_(b)
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "?")
    if event.form == "functional":
        return f"`{name}(..., inplace=True)`"
    if event.form == "module":
        return f"`self.{name}` (built with inplace=True)"
    if event.form == "call":
        return f"write by `{dotted_name(func) or name}()`"
    return f"`{name}()`"
