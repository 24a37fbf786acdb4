from __future__ import annotations

import ast

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from autofix.analysis import screen
from autofix.analysis.dataflow import (
    DICT,
    GRAPH,
    NUMBER,
    TENSOR,
    TENSOR_DICT,
    TENSOR_LIST,
    TENSORS,
    Accumulation,
    Backward,
    GraphFlow,
    Kinds,
    graph_flows,
)
from autofix.analysis.loops import children, iter_reads, target_names
from autofix.analysis.names import dotted_name
from autofix.model.nodes import nodes_of
from autofix.rule import Fix, Replace, Rule
from autofix.types import Applicability, Expectation

# Consumers that take a list of Python numbers as happily as a list of tensors.
_NUMBER_CONSUMERS = {"sum", "len", "max", "min", "print", "sorted", "mean", "fmean", "median", "round", "float"}


class GraphAccumulation(Rule):
    """
    ## What it does
    Finds a tensor that still carries its autograd graph — a loss, or anything
    computed from a model's output — added into a running total or list that
    outlives the loop iteration (`total_loss += loss`, `running = running + loss`,
    `losses.append(loss)`, `stats["loss"] += loss`), when the total is never
    back-propagated.

    A method that runs one training step per call (its own `backward()`, or a
    framework's backward of the loss it returns, as in Lightning's
    `training_step`) is such a loop for totals kept on `self`
    (`self.history.append(loss)`, `self.meters["loss"].update(loss)`); so is a
    loop calling a step function that back-propagates the loss it returns
    (`epoch_loss += self.train_step(batch)`).

    It fires only in a loop that runs `backward()`, only on values that hold a
    graph (not on `loss.item()`, `loss.detach()`, `float(loss)`, values computed
    under `torch.no_grad()`, counts from `argmax`/comparisons, the entries of a
    dict a step fills key by key with such numbers and hands back), and not when the
    total itself is back-propagated later (summing losses for one `backward()`).
    Nor when the total lives one training step only: the loop around the inner
    loop runs a `backward()` of its own and starts the total afresh each
    iteration, and the inner loop's `backward()` went through each value added
    (discriminators updated one by one inside the generator's step), so the
    total holds one step's graphs, their saved tensors already freed.

    A meter reached through a local dict is a project object like a named one
    (`meters[k].update(loss)` runs `Meter.update`) also when the dict starts
    empty (`meters = {}` each epoch) and the loop fills it by key
    (`if k not in meters: meters[k] = Meter()`): every way to the call binds
    the name to that fresh dict, nothing but `Meter()` is ever stored into it
    by key, and it is not filled another way (`meters.update(d)`), handed to a
    call or aliased before the call. Rebinding the name to numbers after the
    loop does not hide it. A class reached by a star import
    (`from util.misc import *`) counts as its module's.

    What a step method hands back carries the graph of the module's own
    forward when it calls itself (`out = self(x)` in `step`, whose log is kept
    by `training_step`): the receiver is no argument of the call. A name that
    is a loss on one branch and `None` on the other (`if not self.predicting:
    loss = ... else: loss = None`) may hold a graph: it is reported, and never
    given a bare `.detach()` (it is not surely a tensor).
    Nor on a numpy array (`np.zeros(n)`, `np.empty_like(x)`, not `dtype=object`):
    storing a loss into it by index stores a number; and a numpy function's
    result (`np.mean(losses)`) is never a tensor, so no fix ever detaches it.
    Nor on a list made for the call and written and read only at the index of
    a `range` loop (`losses[k] = ...; losses[k].backward()`): no iteration
    reads what an earlier one stored. Nor on `x.item() if c else x` where `x`
    may be a Python number (bound to a number literal in the scope): the
    author's test says which arm holds the tensor. The other parts of a tuple a
    project method returns (`loss, rank, reg = model.pairwise_loss(u, i, n)`,
    only `loss` back-propagated) carry the graph of the arguments they read
    where gradients flow, and are reported when they are totalled, without a
    fix (their kind is not proven).
    Nor on `meter += loss` where `meter` is an instance of a project class
    whose `__iadd__` keeps nothing of the value it is given (it stores
    `value.detach()` or `float(value)`, and neither keeps, returns nor hands
    on the value itself): `+=` is a call of that method, not a tensor total.
    The same holds for `self.meters[k] += v` inside a tracker's `update(d)`
    when the container is built empty (or by one such constructor) and the
    class stores nothing but instances of such classes into it
    (`self.meters[k] = Meter()`). An `__iadd__` that keeps the value as given
    is still reported; a class with only `__add__` is treated as a tensor.
    Nor when the iteration leaves the total detached (`k = k + d; k = k.detach()`),
    when the list is what `torch.autograd.grad` differentiates against (MAML's
    fast weights), or when the name is the step's own loss, rebound and
    back-propagated each iteration before the `+=` that reuses it.
    When the total leaves the function (returned, stored on an object, passed to
    an unknown function) it fires only if the accumulated tensors' graph is
    provably freed by the loop's own `backward()`, so no caller can
    back-propagate through them.

    A container the loop never empties (`replay.append(features)`) whose
    entries a later iteration's `backward()` goes through again (a replay
    buffer sampled for the loss) is reported too, without a fix: those
    entries' graph was freed by an earlier backward, and whether what produced
    them should keep learning from the buffer is the author's decision.

    ## Why is this bad?
    A tensor keeps alive the whole graph it was computed from: the
    activations autograd saved for every layer. Adding it into a total that
    lives across iterations chains each iteration's graph onto the next, so
    memory grows with every step until the process runs out of it — the
    classic "memory leak" in a training loop. The graphs are never used:
    nothing back-propagates through the total.

    ## Example
    ```python
    total_loss = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss
    print(total_loss / len(loader))
    ```

    Use instead:
    ```python
    total_loss = 0.0
    for x, y in loader:
        ...
        total_loss += loss.item()
    ```

    The fix adds `.item()` when the total is a plain number (it starts from a
    numeric literal, or the list is only summed, averaged or printed), stays
    inside the function, and the value is a scalar (it is back-propagated
    without arguments, or is a `.mean()`/`.sum()`); otherwise it adds
    `.detach()`, which keeps a tensor for later `torch.stack`, `.mean()`,
    `.to(device)` or for a caller.

    ## Fix safety
    Gradients and parameter updates are unchanged: the total was never
    back-propagated. `.detach()` keeps the same values and dtype; `.item()`
    turns the total into a Python float, so a total printed as
    `tensor(1.23, grad_fn=…)` prints as `1.23`. Model outputs are recognised
    heuristically (construction from `torch.nn`, classes deriving from
    `*Module`, `.parameters()` called on a name, `.backward()` called on it).

    ## Runtime evidence
    With `autofix --run CMD` the doctor measures the live autograd graph after
    each of the first steps and who holds it (frame locals, attributes, list
    and dict entries). A holder whose graph grows every step and that no
    backward goes through is this rule's total; the finding sits at its
    accumulation (`total += x`, `totals[k] += x`, `history.append(x)`), fixed
    with `.detach()` where this rule could not prove the value was a tensor.

    ## References
    - [PyTorch FAQ: my model reports "cuda runtime error(2): out of memory" — don't accumulate history across your training loop](https://pytorch.org/docs/stable/notes/faq.html#my-model-reports-cuda-runtime-error-2-out-of-memory)
    - [`torch.Tensor.item`](https://pytorch.org/docs/stable/generated/torch.Tensor.item.html)
    """

    CODE = "AF105"
    NAME = "graph-accumulation"
    SUMMARY = "a graph-carrying tensor is accumulated across iterations but never back-propagated"
    MESSAGE = (
        "`{target}` accumulates `{value}` with its autograd graph, keeping every iteration's graph "
        "alive; it is never back-propagated, so add {cure}"
    )
    NO_FIX_MESSAGE = (
        "`{target}` accumulates `{value}` with its autograd graph, keeping every iteration's graph "
        "alive; it is never back-propagated (no fix: {reason})"
    )
    REPLAY_MESSAGE = (
        "`{target}` keeps `{value}` with its autograd graph across iterations, and a later iteration's "
        "backward() goes through entries whose graph an earlier backward() freed (no fix: store "
        "`{value}` detached if what produced it should not learn from the buffer, or recompute the "
        "entries from stored inputs)"
    )
    # ``training_step`` / ``compute_loss``: a framework back-propagates the loss they return.
    TRIGGERS = ("backward", "training_step", "compute_loss")
    FIXES = (Applicability.SAFE,)
    EXPECTATION = Expectation.IDENTICAL_OR_REPAIRED

    @classmethod
    def may_fire_in(cls, tree: ast.Module) -> bool:
        # A Lightning ``training_step`` (a Hugging Face ``compute_loss``) runs no backward itself:
        # the framework back-propagates the loss it returns.
        return screen.may_backpropagate(tree) or any(
            isinstance(node, ast.FunctionDef) and node.name in ("training_step", "compute_loss")
            for node in nodes_of(tree).functions
        )

    def check(self) -> None:
        for flow in graph_flows(self.context):
            # One statement may keep several values in one total (``ema = loss if ema is None
            # else a * ema + b * loss``): one finding, with every value detached.
            found: Dict[Tuple[cst.CSTNode, str], List[Accumulation]] = {}
            for accumulation in list(flow.accumulations.values()):
                if self._check(flow, accumulation):
                    found.setdefault((accumulation.statement, accumulation.target), []).append(accumulation)
            for group in found.values():
                self._report(flow, group)

    def _check(self, flow: GraphFlow, acc: Accumulation) -> bool:
        """Whether ``acc`` keeps a graph nothing uses (reported by ``check``); replayed buffers
        are reported here."""
        loop = self._outliving_loop(flow, acc)
        # The total must outlive an iteration of a loop that runs backward().
        if loop is None:
            return False
        training = [b for b in _backwards(flow) if loop in b.loops]
        if not training:
            return False
        # Only values that carry a graph, and not totals of totals (the root is reported). A value
        # rebuilt from itself within one iteration (``loss = loss + reg``, ``loss += aux``) is no total.
        if acc.value.level < GRAPH or any(
            label[0] == "unproven" or label[0] == "acc" and self._is_total(flow, label[1]) for label in acc.value.labels
        ):
            return False
        if acc.value.graph_is_assumed:
            return False
        kept = flow.loop_end.get(loop, {}).get(acc.target) if acc.kind in ("augassign", "assign") else None
        if kept is not None and kept.level < GRAPH:
            # ``k = k + lam * d_gap; k = k.detach()``: what the iteration leaves in the total holds no graph.
            return False
        label = ("acc", acc.target)
        # Summing losses for one backward (or autograd.grad) is the point of the total ...
        if any(label in b.value.labels for b in flow.backwards.values()):
            # ... unless it is a buffer never emptied, read back by every iteration's backward.
            if self._replayed(flow, acc, loop, training):
                value_code = self.context.code_for(acc.value_node)
                node = _small_statement(acc.statement, acc.value_node) or acc.value_node
                self.report(node, self.REPLAY_MESSAGE.format(target=acc.target, value=value_code))
            return False
        if any(_differentiates_against(b, acc.target) for b in training):
            # ``grad = torch.autograd.grad(loss, fast_weights, create_graph=True)``: the list is what
            # autograd differentiates with respect to; its graph is the point (MAML's fast weights).
            return False
        if any(_backpropagates_name(b, acc.target) for b in training):
            # ``loss = criterion(...); loss.backward()`` in the same iteration (an inner loop that may
            # run): the name is the step's loss, rebound before the ``loss += ...`` that reuses it,
            # not a total nothing back-propagates.
            return False
        if acc.kind == "slot" and self._graph_freed(training, acc, whole=True):
            # ``q_vals[:, t] = q_t`` into a tensor table the call made before the loop, where the
            # same iteration's backward() goes through every model call of what it stores: no
            # iteration's saved tensors outlive it, and the table itself dies with the call.
            return False
        if self._rebuilt_each_step(flow, acc, loop, training):
            return False
        escapes = _escapes(flow, acc)
        if escapes and not self._graph_freed(training, acc):
            return False
        return True

    def _is_total(self, flow: GraphFlow, target: str) -> bool:
        """Some accumulation into ``target`` outlives an iteration of its loop (not reset at its top)."""
        return any(
            other.target == target and self._outliving_loop(flow, other) is not None
            for other in flow.accumulations.values()
        )

    def _replayed(self, flow: GraphFlow, acc: Accumulation, loop: cst.CSTNode, training) -> bool:
        """``buffer.append(x)`` of a graph tensor into a container the loop never empties, while a
        backward() of the loop that frees its graph goes through the container's entries."""
        if acc.kind not in ("append", "add", "insert", "store", "slot"):
            return False
        carried = flow.carried.get(loop)
        if carried is None or carried.assignments.get(acc.target):
            return False  # emptied or rebuilt inside the loop
        if _entry_per_iteration(flow, acc, loop):
            return False
        label = ("acc", acc.target)
        return any(label in b.value.labels and not b.retain_graph for b in training)

    def _outliving_loop(self, flow: GraphFlow, acc: Accumulation) -> Optional[cst.CSTNode]:
        """The innermost loop around the accumulation that runs backward() and whose iterations the
        total outlives (``meters[k].update(v)`` in a loop over the loss terms inside the step loop)."""
        for loop in reversed(flow.loops_of(acc.loops)):
            carried = flow.carried.get(loop)
            if carried is None:
                return None
            if acc.target in carried.assignments and acc.target not in carried.first_read:
                return None  # reset at the top of every iteration
            if any(loop in b.loops for b in _backwards(flow)):
                return loop
        return self._outliving_call(flow, acc)

    @staticmethod
    def _outliving_call(flow: GraphFlow, acc: Accumulation) -> Optional[cst.CSTNode]:
        """A method whose own body runs one backward() per call (a training step) keeps ``self.*``
        totals across its calls: the object outlives the call, as a loop's total outlives an iteration."""
        scope = flow.scope
        if not (isinstance(scope, cst.FunctionDef) and acc.target.startswith("self.") and scope in acc.loops):
            return None
        if not any(not flow.loops_of(b.loops) for b in _backwards(flow)):
            return None  # the backward runs in a loop of the method: that loop is the iteration
        carried = flow.carried.get(scope)
        if carried is None or (acc.target in carried.assignments and acc.target not in carried.first_read):
            return None  # rebuilt at the top of every call
        return scope

    def _rebuilt_each_step(self, flow: GraphFlow, acc: Accumulation, loop: cst.CSTNode, training) -> bool:
        """The loop right around ``loop`` is a training step of its own (its iteration runs a
        backward() outside ``loop``) and rebuilds the total at the top of each iteration, while
        ``loop``'s own backward() goes through every model call of each value added: the total
        holds the graphs of one step at most, already freed of what autograd saved, and nothing
        grows from step to step (discriminators updated one by one inside the generator's step)."""
        loops = flow.loops_of(acc.loops)
        if loop not in loops or loops.index(loop) == 0:
            return False
        outer = loops[loops.index(loop) - 1]
        carried = flow.carried.get(outer)
        if carried is None or acc.target not in carried.assignments or acc.target in carried.first_read:
            return False
        if not any(outer in b.loops and loop not in b.loops for b in _backwards(flow)):
            return False  # an epoch around a loop of steps: the total grows with every step
        return self._graph_freed(training, acc, whole=True)

    def _graph_freed(self, training, acc: Accumulation, whole: bool = False) -> bool:
        """The accumulated value shares the graph a backward() of the same loop frees; ``whole``:
        that backward() goes through every model call the value's graph comes from (not only the
        body an unused head shares with the loss)."""
        added = dotted_name(acc.value_node)
        sources = {label for label in acc.value.labels if label[0] == "src"}
        for backward in training:
            if backward.retain_graph:
                continue
            receiver = backward.call.func.value if isinstance(backward.call.func, cst.Attribute) else None
            if added is not None and receiver is not None and dotted_name(receiver) == added:
                return True
            if isinstance(receiver, cst.Subscript) and receiver.deep_equals(acc.value_node):
                # ``losses["total"].backward()`` and ``total += losses["total"]``: the same entry.
                return True
            if isinstance(receiver, cst.Subscript) and added is not None and dotted_name(receiver.value) == added and not whole:
                # ``output["loss"].backward()`` and ``outputs.append(output)``: the step's own result.
                return True
            if sources and (sources <= backward.value.labels if whole else sources & backward.value.labels):
                return True
        return False

    def _report(self, flow: GraphFlow, group: List[Accumulation]) -> None:
        acc = group[-1]
        value = acc.value_node
        cure = self._cure(flow, acc)
        value_code = self.context.code_for(value)
        edits, reason = _detached(value, value_code, acc.value.kinds, cure, acc.kind)
        for other in group[:-1]:
            # Every value the statement keeps must lose its graph, or none is fixed.
            other_code = self.context.code_for(other.value_node)
            other_edits, other_reason = _detached(other.value_node, other_code, other.value.kinds, cure, other.kind)
            edits = edits + other_edits if edits and other_edits else []
            reason = reason or other_reason
        fix = None
        node = _small_statement(acc.statement, value) or value
        if edits:
            title = f"Accumulate `{value_code}.{cure}()`" if acc.value.is_tensor else f"Accumulate `{value_code}` detached"
            fix = Fix.safe(title, *edits)
            message = self.MESSAGE.format(target=acc.target, value=value_code, cure=_cure_text(acc, cure))
        else:
            message = self.NO_FIX_MESSAGE.format(target=acc.target, value=value_code, reason=reason)
        self.report(node, message, fix=fix)

    def _cure(self, flow: GraphFlow, acc: Accumulation) -> str:
        # A total that leaves the function keeps its type: callers may use it as a tensor.
        if _escapes(flow, acc):
            return "detach"
        if _is_scalar(flow, acc.value_node) and self._used_as_number(flow, acc):
            return "item"
        return "detach"

    def _used_as_number(self, flow: GraphFlow, acc: Accumulation) -> bool:
        scope = flow.scope
        statements = {a.statement for a in flow.accumulations.values() if a.target == acc.target}
        if acc.kind in ("augassign", "assign"):
            # A total that starts as a Python number stays one with .item().
            if not _starts_as_number(scope, acc.target):
                return False
            return not _used_as_tensor(scope, acc.target, statements)
        if acc.kind == "append":
            return _only_number_consumers(scope, acc.target, statements)
        return False


def _entry_per_iteration(flow: GraphFlow, acc: Accumulation, loop: cst.CSTNode) -> bool:
    """``predL_r[replay_id] = loss_fn(...)`` in ``for replay_id in range(n)``, where the loop reads
    the list only at ``predL_r[replay_id]``: each iteration writes and reads its own entry (range
    gives each iteration an index of its own), so no iteration reads what an earlier one stored.
    The list must be a local that holds no graph when the loop starts and is made afresh before
    each run of the loop (every loop of the scope around ``loop`` rebuilds it at its top), so no
    earlier run's entries are read either."""
    if not isinstance(loop, cst.For) or not isinstance(loop.target, cst.Name) or "." in acc.target or acc.target in flow.params:
        return False
    index = loop.target.value
    iterated = loop.iter
    if not (isinstance(iterated, cst.Call) and dotted_name(iterated.func) == "range"):
        return False
    target = _stored_subscript(acc.statement, acc.value_node)
    if target is None or dotted_name(target.value) != acc.target or not _indexed_by(target, index):
        return False
    own: Set[int] = set()
    for node in _walk(loop.body):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False  # a closure may read the list at another index, later
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.AsName)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [getattr(node, "target", None) or getattr(node, "name", None)]
            if any(name == index for t in targets if t is not None for name, _ in target_names(t)):
                return False  # the index is rebound inside the body
        if isinstance(node, cst.Subscript) and dotted_name(node.value) == acc.target:
            if not _indexed_by(node, index):
                return False
            own.add(id(node.value))
        elif isinstance(node, (cst.Name, cst.Attribute)) and dotted_name(node) == acc.target and id(node) not in own:
            return False  # the whole list is read (``sum(predL_r)``) or handed on inside the loop
    # Made before the loop with no graph in it, afresh for each run of the loop.
    outside = [a for a in flow.assignments if a.name == acc.target and loop not in a.loops]
    if not outside or any(a.value.level >= GRAPH for a in outside):
        return False
    loops = flow.loops_of(acc.loops)
    for outer in loops[: loops.index(loop)] if loop in loops else ():
        carried = flow.carried.get(outer)
        if carried is None or acc.target not in carried.assignments or acc.target in carried.first_read:
            return False
    return True


def _stored_subscript(line: cst.CSTNode, value: cst.CSTNode) -> Optional[cst.Subscript]:
    """The subscript ``line`` stores ``value`` into (``log[i] = value``)."""
    for small in getattr(line, "body", ()):
        if isinstance(small, cst.Assign) and small.value is value and len(small.targets) == 1:
            target = small.targets[0].target
            return target if isinstance(target, cst.Subscript) else None
    return None


def _indexed_by(node: cst.Subscript, index: str) -> bool:
    """``node`` is ``x[index]`` (one plain index, the name ``index``)."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return False
    spelled = node.slice[0].slice.value
    return isinstance(spelled, cst.Name) and spelled.value == index


def _differentiates_against(backward: Backward, name: str) -> bool:
    """``name`` is read by the inputs of the backward call (``torch.autograd.grad(loss, name)``,
    ``loss.backward(inputs=name)``), not by the tensor back-propagated."""
    call = backward.call
    first = isinstance(call.func, cst.Name) or isinstance(call.func, cst.Attribute) and call.func.attr.value in ("grad", "jacobian")
    inputs = [arg for index, arg in enumerate(call.args) if not (first and index == 0 and arg.keyword is None)]
    inputs = [arg for arg in inputs if arg.keyword is None or arg.keyword.value == "inputs"]
    return any(read == name for arg in inputs for read, _ in iter_reads(arg.value))


def _backpropagates_name(backward: Backward, name: str) -> bool:
    """``name.backward()``: the backward pass runs on whatever the name holds then."""
    func = backward.call.func
    return isinstance(func, cst.Attribute) and dotted_name(func.value) == name


def _backwards(flow: GraphFlow) -> List[Backward]:
    """The backward passes of the scope: its own, and those of the project functions it calls that
    back-propagate the loss they return."""
    return [*flow.backwards.values(), *flow.callee_backwards.values()]


def _cure_text(acc: Accumulation, cure: str) -> str:
    if acc.value.is_tensor:
        return f"`.{cure}()`"
    return "`.detach()` to each tensor in it"


def _detached(
    value: cst.BaseExpression, code: str, kinds: Kinds, cure: str, kind: str
) -> Tuple[List[Replace], str]:
    """The edits that accumulate ``value`` without its graph, element-wise for containers of
    tensors; none, with the reason, where the kind of value is not known to be safe to detach."""
    if kind == "extend":
        if kinds & {TENSORS, TENSOR_LIST} and kinds <= {TENSORS, TENSOR_LIST}:
            return [Replace(value, cst.parse_expression(f"[t.detach() for t in {code}]"))], ""
        return [], f"the elements of `{code}` are not known to be tensors; extend with detached tensors"
    if isinstance(value, (cst.Tuple, cst.List)) and kinds & {TENSORS, TENSOR_LIST}:
        return [_detach_node(e.value) for e in value.elements], ""
    if isinstance(value, cst.Dict) and kinds == {TENSOR_DICT}:
        return [_detach_node(e.value) for e in value.elements if isinstance(e, cst.DictElement)], ""
    if isinstance(value, (cst.Tuple, cst.List, cst.Dict, cst.StarredElement)):
        return [], f"the parts of `{code}` are not all known to be tensors; store them detached"
    if kinds == {TENSOR}:
        return [_detach_node(value, cure)], ""
    if kinds == {TENSOR_DICT}:
        return [Replace(value, cst.parse_expression(f"{{k: v.detach() for k, v in {code}.items()}}"))], ""
    if kinds == {TENSORS}:
        return [Replace(value, cst.parse_expression(f"tuple(t.detach() for t in {code})"))], ""
    if kinds == {TENSOR_LIST}:
        return [Replace(value, cst.parse_expression(f"[t.detach() for t in {code}]"))], ""
    if kinds & {DICT, TENSOR_DICT}:
        return [], f"`{code}` is a dict; store `.item()` or `.detach()` of its tensor entries"
    if NUMBER in kinds:
        return [], f"`{code}` may be a Python number; convert it with `.item()` where it is a tensor"
    return [], f"`{code}` is not known to be a tensor; add `.detach()` where it is one"


def _detach_node(value: cst.BaseExpression, cure: str = "detach") -> Replace:
    code = cst.Module([]).code_for_node(value)
    needs_parens = not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
    text = f"({code}).{cure}()" if needs_parens else f"{code}.{cure}()"
    replacement = cst.parse_expression(text)
    if not needs_parens:
        replacement = replacement.with_changes(lpar=value.lpar, rpar=value.rpar)
    return Replace(value, replacement)


def _escapes(flow: GraphFlow, acc: Accumulation) -> bool:
    """The total is visible outside the function: returned, passed on, an attribute or a parameter."""
    if ("acc", acc.target) in flow.escaped or "." in acc.target:
        return True
    return acc.target in flow.params


def _small_statement(line: cst.CSTNode, value: cst.CSTNode) -> Optional[cst.CSTNode]:
    for small in getattr(line, "body", ()):
        stack = [small]
        while stack:
            node = stack.pop()
            if node is value:
                return small
            stack.extend(children(node))
    return None


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def _is_scalar(flow: GraphFlow, value: cst.BaseExpression) -> bool:
    """``loss`` back-propagated without arguments, or a full ``.mean()``/``.sum()`` reduction."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        return value.func.attr.value in {"mean", "sum"} and not value.args
    name = dotted_name(value)
    if name is None:
        return False
    for backward in flow.backwards.values():
        func = backward.call.func
        if isinstance(func, cst.Attribute) and dotted_name(func.value) == name and not backward.call.args:
            return True
    return False


def _starts_as_number(scope: cst.CSTNode, target: str) -> bool:
    found = False
    for node in _walk(scope):
        if isinstance(node, cst.Assign) and any(dotted_name(t.target) == target for t in node.targets):
            if not isinstance(node.value, (cst.Integer, cst.Float)):
                if not (isinstance(node.value, cst.BinaryOperation) and dotted_name(node.value.left) == target):
                    return False
            else:
                found = True
    return found


def _used_as_tensor(scope: cst.CSTNode, target: str, own: Set[cst.CSTNode]) -> bool:
    """A method called on the total or on a value computed from it (``avg = total / n;
    avg.item()``), or either handed to a ``torch`` function."""
    derived = _derived_names(scope, target, own)
    for node in _walk(scope):
        if node in own:
            continue
        if isinstance(node, cst.Attribute) and dotted_name(node.value) in derived:
            return True
        if isinstance(node, cst.Call) and (dotted_name(node.func) or "").split(".")[0] in {"torch", "th", "F"}:
            if any(name in derived for arg in node.args for name, _ in iter_reads(arg.value)):
                return True
    return False


def _derived_names(scope: cst.CSTNode, target: str, own: Set[cst.CSTNode]) -> Set[str]:
    """``target`` and the plain names assigned, anywhere in ``scope``, from an expression that
    reads it or another such name: what keeps the total's type when it is a tensor."""
    assigns = [node for node in _walk(scope) if isinstance(node, cst.Assign) and node not in own]
    derived = {target}
    grew = True
    while grew:
        grew = False
        for node in assigns:
            if not any(name in derived for name, _ in iter_reads(node.value)):
                continue
            for assigned in node.targets:
                for name, _ in target_names(assigned.target):
                    if "." not in name and name not in derived:
                        derived.add(name)
                        grew = True
    return derived


def _only_number_consumers(scope: cst.CSTNode, target: str, own: Set[cst.CSTNode]) -> bool:
    if "." in target:
        return False
    consumed = False
    allowed: Set[cst.CSTNode] = set()
    for node in _walk(scope):
        if node in own:
            for inner in _walk(node):
                allowed.add(inner)
            continue
        if isinstance(node, cst.Call):
            func = (dotted_name(node.func) or "").rsplit(".", 1)[-1]
            if func in _NUMBER_CONSUMERS:
                for arg in node.args:
                    if dotted_name(arg.value) == target:
                        allowed.add(arg.value)
                        consumed = True
    bindings = {
        bound
        for node in _walk(scope)
        if isinstance(node, cst.Assign)
        for t in node.targets
        for _, bound in target_names(t.target)
    } | {node.target for node in _walk(scope) if isinstance(node, cst.AnnAssign)}
    for node in _walk(scope):
        if isinstance(node, cst.Name) and node.value == target and node not in allowed and node not in bindings:
            return False
    return consumed
