from __future__ import annotations

import ast
import re

from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst.metadata import PositionProvider

from autofix.analysis import loops, module_state, screen
from autofix.analysis.dataflow import (
    STATEFUL_CALLS,
    GRAPH,
    NONE,
    TENSOR,
    TENSOR_DICT,
    TENSOR_LIST,
    TENSORS,
    Kinds,
    tuple_parts,
    GraphFlow,
    ModuleFacts,
    graph_flows,
    keeps_state_on_self,
    module_facts,
    nn_kind_of,
)
from autofix.analysis.loops import children
from autofix.analysis.names import dotted_name
from autofix.analysis.training import qualified_names
from autofix.model.summaries import AttrKind, AttributeSummary, ClassSummary, FunctionSummary
from autofix.model.vocabulary import FACTORIES, FRESH_METHODS, SAVES_OUTPUT
from autofix.rule import Fix, InsertBefore, Rule
from autofix.types import Applicability, Expectation

_TENSOR_KINDS = {"RNN", "GRU", "RNNCell", "GRUCell"}


def _saves_only_its_output(statements: Sequence[cst.CSTNode], name: str) -> bool:
    """Every assignment of ``name`` among ``statements`` is one op whose backward reads only its
    own output (``self.log_alpha.exp()``, ``torch.sigmoid(self.logit)``), applied to a plain name:
    the graph saves none of the tensors an optimizer's step rewrites in place."""
    values = [
        small.value
        for statement in statements
        for small in getattr(statement, "body", ())
        if isinstance(small, cst.Assign) and any(dotted_name(t.target) == name for t in small.targets)
    ]
    if not values or len(values) != len(statements):
        return False
    for value in values:
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
            return False
        if value.func.attr.value not in SAVES_OUTPUT:
            return False
        if value.args:
            operand = value.args[0].value if len(value.args) == 1 and dotted_name(value.func.value) == "torch" else None
        else:
            operand = value.func.value
        if operand is None or dotted_name(operand) is None:
            return False
    return True


class CarriedState(Rule):
    """
    ## What it does
    Finds a tensor produced with autograd in one loop iteration and fed into
    the next one — an RNN hidden state `h`, an LSTM `(h, c)` tuple, state kept
    on an object such as `self.hidden` — while `backward()` runs inside the
    loop, with no `detach()` on the way.

    It fires only when all of these hold: the value assigned in the loop comes
    from a model call or from tensor operations on one; the next iteration
    reads it before reassigning it; the tensor back-propagated in the loop is
    computed from that read; and the value is not detached, re-created
    (`h = torch.zeros(...)`, `model.init_hidden()`), or produced under
    `torch.no_grad()`. A method of a class that calls `backward()` counts as
    one iteration of its caller's loop for the `self.*` state it carries.

    State kept in an entry of a dict or list the loop never rebinds counts
    the same way (`state["h"] = rnn(x, state["h"])`, `hiddens[i] =
    cell(x, hiddens[i])` in an inner `for i in range(...)`): an entry under
    the same key on every pass (a literal, a name the loop does not change,
    or the counter of an inner `range`/`enumerate` loop) that an iteration
    reads before it stores it. Each entry is a value of its own: a counter
    kept beside the state in the same dict carries nothing.

    A read sees the previous iteration only on a way through the body that
    can run: an `if`/`elif` chain on a setting no iteration changes
    (`self.mode` set in `__init__`, `args.hier` of a parameter the loop does
    not hand on, `isinstance(x, list)` or `type(x) == list` of a name the
    loop does not rebind) takes the same branch every time; a branch ending in `raise`,
    `return`, `continue` or `break` does not go on; an inner `for` loop is
    taken to run; and a name nothing binds before the loop would fail with
    NameError on the first iteration rather than carry anything. What a
    project function hands back carries only the graphs of the arguments
    each returned element reads where gradients flow (a hand-written batch
    norm's output does not read its moving averages).

    A module call carries nothing of an argument its `forward` cuts: one that
    `forward` rebinds as its first use through a helper handing back detached
    copies (`memory = self.repackage_hidden(memory)`, recursing into tuples),
    or hands straight to a submodule or function that does, in turn. A model
    wrapped in `nn.DataParallel` or `DistributedDataParallel` runs the forward
    of the module it wraps.

    A forward that folds one of its arguments into state it keeps on the
    module (`self.center = 0.9 * self.center + 0.1 * t.mean(0)`), outside
    `torch.no_grad()`, while its output goes through that state, is reported
    where a training loop of the same file passes that argument a graph
    (`crit(student(x), teacher(x))`); the fix detaches the state as forward
    starts only where it is a tensor on every call (a tensor in `__init__`,
    rebound only by arithmetic on itself).

    A test no iteration changes is also a fact of the way that passed it:
    past `assert cost < 0`, an `if cost >= 0:` does not run. A graph made
    before the loop is reported only where the loop's backward goes through
    the name that holds it (not through `td_target.detach()`), and not where
    it sits in a container the loop stores entries into (`batch["value"] =
    critic(batch["obs"])` after the backward, or under `if epoch > 0:`
    before the read): the container's keys are read as one joined value,
    which cannot show that the graph sits under a key the loop never
    rebuilds.

    A name that every way on to the next iteration rebinds after the
    iteration's backward is carried with a graph that backward freed only
    where the new value is built from what it walked: an iterative attack
    that re-makes its input as a fresh leaf past `loss.backward()` and then
    recomputes `outputs = model(inputs)` carries a new graph, while the same
    recomputation from an input stepped through `torch.tanh(inputs + ...)`
    chains to the freed one and is reported.

    What a method of the model hands back (`gap, weights =
    model.weighted_gap(feats, weights)` in an epoch function given the model
    as a parameter) is what that method's summary says: weights handed back
    as given (or a fresh table) carry nothing; nudged by the batch's features
    they carry its graph and are reported.

    A name set under `if T:` and read later in the same iteration only under
    the same test `T` carries nothing, however the two tests are spaced
    (`opt.adv>0  and i%k==0` is `opt.adv > 0 and i % k == 0`); read under a
    looser test (`if opt.adv > 0:`) it is reported.

    Retained graphs (`torch.autograd.grad(..., create_graph=True)`,
    `retain_graph=True`) that every backward of the loop keeps are full
    back-propagation asked for, not a leak, unless an optimizer step in the
    loop rewrites the weights under them. A `step` given the loss itself
    (`diffopt.step(loss)`, a differentiable optimizer of a MAML inner loop)
    is not taken for such a step: `torch.optim` steps take a closure, a
    scaler's an optimizer.

    State kept on an `nn.Module` between `forward` calls is reported in the
    module's own file even when the training loop is in another file, unless
    the class offers a method that re-creates it (`reset_hidden()`,
    `detach_hidden()`) that nothing in the file calls, or that a holder's
    method only hands on (`for cell in self.cells: cell.detach_hidden()`) in
    a file that trains nothing: re-creating it is then its caller's part, and
    a training loop that calls the module and never does is reported where
    the model can follow the module to that state. A function whose every
    `backward()` runs outside its own loops is one step of its caller's loop
    (`def update(self, episode): self.q.hidden = None; ...; loss.backward()`):
    a reset there, assigning the state a value with no graph through the
    instance or calling a method of the module that re-creates it, starts
    every step afresh, and the forwards it chains before its one backward are
    full back-propagation through time, not a bug. A model whose own
    `forward` re-creates the state of a module it holds on every call
    (`self.decoder.init_state(bs)`, `self.attention.reset_mem()`: a method
    that assigns it a value with no graph on every way through it, or such an
    assignment through `self.decoder`), under no loop, `try` or condition
    and after no `return`, carries nothing from one call into the next: no
    report in the module's file nor in a loop calling the model. A
    condition on a flag of the model counts (`if self.enable_att:`) when only
    `__init__` binds the flag and the same flag guards every use of that
    module in the model's methods that may read the state: where it is
    false, the state is never read. State a
    forward keeps only on calls that opt in with a flag off by default, and
    reads nowhere else (`if use_cache: self.cache_k = torch.cat([self.cache_k,
    k])`, a cache text generation fills under `no_grad`), is not: a training
    step's default call never takes that branch. Three
    related shapes are reported without a fix: a state object whose
    `detach()` method detaches nothing; a value computed from parameters at
    the end of one call and read by the next (recompute it where it is used;
    detaching it would cut the parameters' gradient); a value computed
    from parameters once in `__init__` that every iteration's loss goes
    through; and a forward pass run once before the loop (`style =
    encoder(x)`) whose result every iteration back-propagates through (not
    when the loop may stop after its first iteration or the backward retains
    the graph).

    ## Why is this bad?
    Every `backward()` frees the graph it walked. The carried state still
    points into that freed graph, so the next iteration's `backward()` walks
    back into it and fails with `RuntimeError: Trying to backward through the
    graph a second time`. Passing `retain_graph=True` does not cure it: once
    `optimizer.step()` has updated the weights in place, walking the old graph
    fails with "modified by an inplace operation"; without a step in between,
    every backward walks the whole history, so time and memory grow with
    every iteration.

    ## Example
    ```python
    hidden = torch.zeros(1, batch, 32)
    for x, y in loader:
        out, hidden = rnn(x, hidden)
        loss = criterion(head(out[:, -1]), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ```

    Use instead:
    ```python
    hidden = torch.zeros(1, batch, 32)
    for x, y in loader:
        hidden = hidden.detach()
        out, hidden = rnn(x, hidden)
        ...
    ```

    The fix detaches the state where an iteration starts using it: right
    before the first statement of the loop body that reads it, or before an
    earlier one that may rebind it (`if fresh: h = enc(x)` ahead of the read:
    before that `if`). That point is reached by every iteration whatever
    `continue` or early step the body has, and the current iteration's own
    graph is left whole. An LSTM
    `(h, c)` tuple is detached element by element; where the kind of state is
    unknown (a custom model's `hidden`), the inserted code handles both a
    tensor and a tuple of tensors; state that may be `None` is guarded. A
    value that already holds a graph where the loop is first entered (the
    output of a forward run before it) gets no fix: a detach as each
    iteration starts would also cut the first step's gradient into what made
    it. A carried entry is detached in place (`state["h"] =
    state["h"].detach()`) right before the statement that reads it, in the
    block of the loop that walks its key; only where the container is known
    to be a dict or list of tensors (not a dict that also holds a number, not
    a tensor written row by row), where that statement reads the entry on
    every way (not under an `if` or a conditional expression), and where no
    other key of the container is stored in the loop.

    ## Fix safety
    The fix turns the (failing) full back-propagation through time into
    truncated back-propagation through time — the usual intent. The first
    iteration's gradients are unchanged; the original fails from the second.
    When a `backward(..., retain_graph=True)` in the loop keeps the original
    running, the fix changes its gradients and is marked unsafe; so it is when
    every backward of the loop is under a test (`if step % 2 == 0:`), where
    the first backward that runs goes back through the iterations before it. So is the
    detach-in-forward fix of module state where the training loop is not in
    the module's file, or where the file re-creates the state somewhere that
    may run between training steps (a method with no backward of its own): a
    caller that re-creates it before each sequence and back-propagates once
    runs correctly, and the detach would truncate its gradients. Recognising
    models and detaching helpers is heuristic (construction from `torch.nn`,
    classes deriving from `*Module`, `.parameters()` called on a name;
    helpers count as detaching when their body detaches, or when their name
    says so: `repackage_hidden`, `_detach_hidden`, …).

    ## Runtime evidence
    With `autofix --run CMD` the doctor re-runs a failing step with anomaly
    mode: the freed node was created in an earlier iteration, and the variable
    or attribute that still pointed into that graph after the previous backward
    (`h`, `hidden` of an LSTM, `self.state` of a module in another file) is the
    carrier. Where this rule could not prove the value's shape, the doctor
    detaches the carrier where it is first read, as a tensor or a tuple of
    tensors as the run saw it.

    ## References
    - [PyTorch word language model: `repackage_hidden`](https://github.com/pytorch/examples/blob/main/word_language_model/main.py)
    - [Autograd mechanics: saved tensors](https://pytorch.org/docs/stable/notes/autograd.html#saved-tensors)
    - [`torch.Tensor.detach`](https://pytorch.org/docs/stable/generated/torch.Tensor.detach.html)
    """

    CODE = "AF102"
    NAME = "carried-state"
    SUMMARY = "state carried across loop iterations keeps the previous iteration's freed graph"
    MESSAGE = (
        "`{name}` {verb} the previous iteration's graph into this one, and backward() inside the "
        "loop frees that graph; detach at the start of each iteration (truncated BPTT)"
    )
    MODULE_MESSAGE = (
        "`{name}` carries the previous call's graph into this forward, and backward() on each output "
        "frees that graph; detach it as forward starts (truncated BPTT)"
    )
    PARAMETER_STATE_MESSAGE = (
        "`{name}` is computed from parameters in one call and read by the next call's forward, whose loss "
        "then uses (and back-propagates through) the value from before the optimizer's last step "
        "(no fix: recompute `{name}` from the parameters where it is used, in the same call)"
    )
    METHOD_PARAMETER_MESSAGE = (
        "`{name}` is computed from parameters at the end of one call and back-propagated by the next "
        "call, through a graph built before the optimizer's last step{freed} (no fix: recompute `{name}` "
        "from the parameters where it is used, in the same call, or store it detached)"
    )
    METHOD_PARAMETER_FREED = "; the second backward() through it in that call finds it freed"
    INIT_MESSAGE = (
        "`{name}` was computed from parameters once, in `__init__`, and every iteration back-propagates "
        "through it: {effect} (no fix: compute it from the parameters in each iteration, where the loss is built)"
    )
    ARGUMENT_STATE_MESSAGE = (
        "`{name}` keeps the graph of argument `{param}` (given one by the call on line {line}) from one call "
        "to the next, and this forward's output goes through it: the next backward() reaches the graph "
        "the previous one freed; detach it as forward starts, or update it under torch.no_grad()"
    )
    INIT_FREED = "the first backward() frees its graph and the next one fails"
    INIT_FORWARD_MESSAGE = (
        "`{name}` was computed from parameters once, in `__init__`, and every output of forward goes "
        "through it: the first training step's backward() frees its graph and the next one fails "
        "(no fix: compute it from the parameters in forward)"
    )
    PRELOOP_MESSAGE = (
        "`{name}` holds the graph of `{code}`, computed once before the loop, and every iteration "
        "back-propagates through it: "
        "the first backward() frees it and the next one fails (no fix: compute it inside the loop, or "
        "detach it where it is made if what produced it should not be trained)"
    )
    INIT_RETAINED = (
        "retain_graph=True keeps that graph alive, but its value never follows the updated parameters"
    )
    STEP_MESSAGE = (
        "`{name}` carries the previous batch's graph into this training_step: {who}, so the next "
        "backward() reaches the freed graph; detach it as the step starts (truncated BPTT)"
    )
    MAYBE_RESET_NOTE = (
        " (unsafe fix: {where}; a caller that re-creates "
        "`{name}` before each sequence and back-propagates once after it trains through the whole "
        "sequence, which the detach would truncate)"
    )
    MAYBE_RESET_HERE = (
        "code of this file, or the loop out of sight that calls its training step, may re-create it between steps"
    )
    MAYBE_RESET_ELSEWHERE = "the training loop is not in this file and may re-create it"
    ELSEWHERE_MESSAGE = (
        "`{name}` carries the previous call's graph into this forward: the module keeps it across calls, "
        "so when a training loop (not in this file) back-propagates each output, the next backward() "
        "reaches the freed graph; detach it as forward starts (truncated BPTT)"
    )
    STATEFUL_MESSAGE = (
        "`{instance}` (`{cls}`) keeps `{path}` from one call to the next, built from the previous call's graph, "
        "and leaves re-creating it to its caller; this loop never does, so {effect} "
        "(no fix: call {reset} or detach `{full}` once per iteration)"
    )
    STATEFUL_FREED = "from the second iteration on, backward() reaches the graph the previous backward() freed"
    STATEFUL_RETAINED = (
        "each backward() walks back through every earlier iteration's graph, which retain_graph=True keeps: "
        "once optimizer.step() has updated the weights in place that walk fails, and without a step time "
        "and memory grow with every iteration"
    )
    # ``forward``: a module keeping state across calls is reported in its own file (its loop elsewhere).
    TRIGGERS = ("backward", "forward", "training_step")
    FIXES = (Applicability.SAFE, Applicability.UNSAFE)
    EXPECTATION = Expectation.REPAIRED

    @classmethod
    def may_fire_in(cls, tree: ast.Module) -> bool:
        return screen.may_backpropagate(tree) or screen.forward_writes_self(tree)

    def check(self) -> None:
        facts = module_facts(self.context)
        maybe_none = _maybe_none_names(self.context.module)
        flows = graph_flows(self.context)
        frozen = _FREEZES_PARAMETERS.search(self.context.code or self.context.module.code) is not None
        for flow in flows:
            carried = self._carried_states(flow)
            for loop, names in carried.items():
                self._report_loop(flow, facts, loop, names, maybe_none)
            if not frozen:
                self._report_preloop_graphs(flow, set(carried))
            self._report_init_graphs(flow)
            if not frozen:
                self._report_forward_init_graphs(flow)
            self._report_method_parameter_state(flow)
            self._report_stateful_instances(flow)
        # Without a backward here, the module is trained elsewhere (another file of the project).
        elsewhere = not any(flow.backwards for flow in flows)
        for flow in flows:
            if isinstance(flow.scope, cst.FunctionDef) and keeps_state_on_self(flow.scope) and self._in_module(flow):
                self._report_module_state(flow, flows, facts, maybe_none, elsewhere)
                self._report_kept_arguments(flow, flows, facts, maybe_none)

    def _report_stateful_instances(self, flow: GraphFlow) -> None:
        """A loop that back-propagates and calls a module whose state (kept on the module, in
        this file or another) the module leaves to its caller to re-create, while the loop never
        does: the module's own file is silent because it offers a reset, so the caller is told."""
        reported: Set[Tuple[str, str]] = set()
        for backward in flow.backwards.values():
            for loop in flow.loops_of(backward.loops):
                for stateful in module_state.unreset_calls(self.context, loop, flow.qualname, strict=False):
                    for path, resetters in sorted(stateful.state.items()):
                        full = f"{stateful.instance}.{path}"
                        if not resetters or (stateful.instance, path) in reported:
                            continue
                        reported.add((stateful.instance, path))
                        owner = full.rpartition(".")[0]
                        effect = self.STATEFUL_RETAINED if backward.retain_graph else self.STATEFUL_FREED
                        self.report(stateful.call, self.STATEFUL_MESSAGE.format(
                            instance=stateful.instance, cls=stateful.cls.name, path=path, effect=effect,
                            reset=f"`{owner}.{resetters[0]}()`", full=full,
                        ))

    def _report_preloop_graphs(self, flow: GraphFlow, carried_loops: Set[cst.CSTNode]) -> None:
        """A forward pass run once before a loop, held by a name the loop body reads and never
        rebinds, that every iteration back-propagates through (``prompt = encoder(x)`` above
        ``for batch in loader: (model(batch) * prompt).sum().backward()``): the first backward frees
        its graph, the second fails. Loops that may stop after one iteration (``break``,
        ``return``) and retained graphs (AF106's question) are left alone."""
        reported: Set[cst.CSTNode] = set()
        for backward in flow.backwards.values():
            real = flow.loops_of(backward.loops)
            if not real or backward.retain_graph:
                continue
            loop = real[-1]
            carried = flow.carried.get(loop)
            if carried is None or loop in carried_loops or _may_stop_early(loop):
                continue
            entry = flow.loop_entry.get(loop, {})
            # Each iteration's own element (``for loss in losses``) is no value made before the loop.
            bound = {n for n, _ in loops.target_names(loop.target)} if isinstance(loop, cst.For) else set()
            for name in sorted(set(carried.first_read) - set(carried.assignments) - bound):
                value = entry.get(name)
                if value is None or value.level < GRAPH or ("pre", loop, name) not in backward.value.labels:
                    # Not back-propagated through this name (``td_target.detach()`` only), whatever
                    # else made from the same graph the backward reaches.
                    continue
                if not value.kinds or not value.kinds <= {TENSOR, TENSORS, TENSOR_DICT}:
                    # Only a value known to be tensors: ``D = D.cuda()`` (a module), an iterable
                    # the loop walks or an unsummarised helper's result may hold no graph at all.
                    continue
                for label in sorted(value.labels & backward.value.labels, key=str):
                    # A model call, or an operation on leaves that keeps a tensor for its backward
                    # (``Y = X @ true_w`` of a ``requires_grad=True`` tensor); not an assignment.
                    source = label[1] if label[0] in ("src", "leaf") and len(label) == 2 else None
                    if not isinstance(source, (cst.Call, cst.BinaryOperation)) or source in reported:
                        continue
                    if not _encloses(flow.scope, source) or _encloses(loop, source) or not self._before(source, loop):
                        continue
                    reported.add(source)
                    code = self.context.code_for(source).strip()
                    code = code if len(code) <= 60 else code[:57] + "..."
                    self.report(source, self.PRELOOP_MESSAGE.format(name=name, code=code))

    def _before(self, node: cst.CSTNode, loop: cst.CSTNode) -> bool:
        return self.context.get(PositionProvider, node).start.line < self.context.get(PositionProvider, loop).start.line

    def _report_init_graphs(self, flow: GraphFlow) -> None:
        """An attribute built from parameters in ``__init__`` that a backward inside a loop goes through."""
        reported = set()
        for backward in flow.backwards.values():
            if not flow.loops_of(backward.loops):
                continue
            for label in backward.value.labels:
                if label[0] == "init" and label in flow.init_reads and label not in reported:
                    reported.add(label)
                    effect = self.INIT_RETAINED if backward.retain_graph else self.INIT_FREED
                    self.report(flow.init_reads[label], self.INIT_MESSAGE.format(name=label[1], effect=effect))

    def _report_forward_init_graphs(self, flow: GraphFlow) -> None:
        """A module's forward returns a value built on an attribute whose graph ``__init__`` made
        from parameters (``self.scale = self.log_scale.exp()``): whoever trains the module (a loop
        here or in another file) back-propagates each output, and the second backward reaches the
        graph the first one freed."""
        scope = flow.scope
        if not isinstance(scope, cst.FunctionDef) or scope.name.value != "forward" or flow.returned is None:
            return
        if not self._in_module(flow):
            return
        for label in sorted(flow.returned.labels, key=str):
            if label[0] == "init" and label in flow.init_reads:
                self.report(flow.init_reads[label], self.INIT_FORWARD_MESSAGE.format(name=label[1]))

    def _report_method_parameter_state(self, flow: GraphFlow) -> None:
        """A method that trains (runs backward itself) and leaves on ``self`` a value computed from
        parameters alone after its last backward (``self.alpha = self.log_alpha.exp()``): the next
        call back-propagates through a graph of the previous call. The carried-graph check above
        wants the value built before a backward of the same call, so it does not see this one."""
        method = flow.scope
        if not isinstance(method, cst.FunctionDef) or not flow.in_class or method not in flow.carried:
            return
        own = [b for b in flow.backwards.values() if method in b.loops and not flow.loops_of(b.loops)]
        end = flow.loop_end.get(method, {})
        first_read = flow.carried[method].first_read
        for name in sorted(n for n in flow.carried[method].names if n.startswith("self.") and n.count(".") == 1):
            kept = end.get(name)
            if kept is None or kept.level < GRAPH or any(label[0] in ("src", "carry", "init") for label in kept.labels):
                continue
            label = ("carry", method, name)
            through = [b for b in own if label in b.value.labels]
            if len(through) == 1 and _saves_only_its_output(flow.carried[method].assignments.get(name, []), name):
                # One backward per call through ``exp(log_alpha)`` made after the last step: its
                # backward reads the value itself, never the parameter the step rewrote in place.
                continue
            if name in first_read and through:
                freed = self.METHOD_PARAMETER_FREED if len(through) > 1 else ""
                self.report(first_read[name], self.METHOD_PARAMETER_MESSAGE.format(name=name, freed=freed))

    def _in_module(self, flow: GraphFlow) -> bool:
        """The scope is a method of an ``nn.Module`` (its base may be defined in another file)."""
        if flow.in_module_class:
            return True
        model = self.context.model
        cls = model.cls(flow.class_qualname) if flow.class_qualname else None
        return cls is not None and model.is_module_class(cls)

    def _report_module_state(
        self, flow: GraphFlow, flows: List[GraphFlow], facts: ModuleFacts, maybe_none: Set[str], elsewhere: bool
    ) -> None:
        """State kept on the module between calls of ``forward``: each call's output depends on the
        graph of the previous call, and the training loop (elsewhere) back-propagates every output."""
        forward = flow.scope
        assert isinstance(forward, cst.FunctionDef)
        carried = flow.carried[forward]
        end = flow.loop_end.get(forward, {})
        returned = flow.returned.labels if flow.returned is not None else frozenset()
        body = loops.block_statements(forward.body)
        for name in sorted(n for n in carried.names if n.startswith("self.") and n.count(".") == 1):
            kept = end.get(name)
            if kept is None or kept.level < GRAPH or kept.graph_is_assumed or ("carry", forward, name) not in returned:
                continue
            reset = self._reset_of_state(flows, facts, flow.class_name, name[len("self."):])
            if reset == "reset":
                continue
            first = carried.first_read[name]
            if _rewritten_before_read_when_set(forward, name, first):
                continue
            anchor = _top_statement(body, first)
            if anchor is None:
                continue
            kind = _state_kind(kept.kinds) if kept.kinds else "unknown"
            if forward.name.value == "training_step":
                # Manual optimisation back-propagates inside the step; otherwise the framework does.
                who = "each step back-propagates its loss" if flow.backwards else "the framework back-propagates each returned loss"
                message = self.STEP_MESSAGE.format(name=name, who=who)
            else:
                message = (self.ELSEWHERE_MESSAGE if elsewhere else self.MODULE_MESSAGE).format(name=name)
            fix: Optional[Fix] = None
            if not any(label[0] in ("src", "carry") for label in kept.labels):
                # Computed from parameters alone: detaching it would cut their gradient.
                message = self.PARAMETER_STATE_MESSAGE.format(name=name)
            elif kind == "unknown" or self._also_holds_non_tensor(flow, name[len("self."):]):
                message += f" (no fix: `{name}` is not known to be a tensor or a tuple of tensors; detach it in {forward.name.value})"
            else:
                statements = _detach_statements([name], [kind], maybe_none, self._fresh_name())
                title = f"Detach `{name}` as forward starts"
                if reset == "doubt" or elsewhere:
                    # Where a caller may re-create the state before each sequence and back-propagate
                    # once after it, the original runs (full BPTT) and the detach truncates it.
                    message += self.MAYBE_RESET_NOTE.format(
                        name=name, where=self.MAYBE_RESET_HERE if reset == "doubt" else self.MAYBE_RESET_ELSEWHERE
                    )
                    fix = Fix.unsafe(title, InsertBefore(anchor, tuple(statements)))
                else:
                    fix = Fix.safe(title, InsertBefore(anchor, tuple(statements)))
            self.report(first, message, fix=fix)

    def _report_kept_arguments(
        self, flow: GraphFlow, flows: List[GraphFlow], facts: ModuleFacts, maybe_none: Set[str]
    ) -> None:
        """A forward that folds an argument into state it keeps on the module (``self.center = 0.9 *
        self.center + 0.1 * t.mean(0)``) and whose output goes through that state, called in this
        file's training loop with an argument that holds a graph (``crit(student(x),
        teacher(x))``): each call's state holds the previous call's graph, which the previous
        backward freed. Within forward the argument's graph is unknown, so the state-kept check
        above sees none; the call that hands it one is the evidence."""
        forward = flow.scope
        summary = flow.summary
        if not isinstance(forward, cst.FunctionDef) or forward.name.value != "forward" or summary is None:
            return
        carried = flow.carried[forward]
        returned = flow.returned.labels if flow.returned is not None else frozenset()
        end = flow.loop_end.get(forward, {})
        body = loops.block_statements(forward.body)
        for param, attrs in sorted(summary.accumulated_params.items()):
            for attr in sorted(attrs):
                name = f"self.{attr}"
                kept = end.get(name)
                if kept is not None and kept.level >= GRAPH:
                    continue  # a graph of forward's own: the state-kept check above decides
                if name not in carried.names or ("carry", forward, name) not in returned:
                    continue
                if not any(a.name == name and not a.graph_off for a in flow.assignments):
                    continue  # only rebuilt under ``torch.no_grad()``
                reset = self._reset_of_state(flows, facts, flow.class_name, attr)
                if reset == "reset":
                    continue
                first = carried.first_read[name]
                if _rewritten_before_read_when_set(forward, name, first):
                    continue
                call = self._graph_passed(flows, flow, summary, param)
                anchor = _top_statement(body, first)
                if call is None or anchor is None:
                    continue
                line = self.context.get(PositionProvider, call).start.line
                message = self.ARGUMENT_STATE_MESSAGE.format(name=name, param=param, line=line)
                fix: Optional[Fix] = None
                model = self.context.model
                cls = model.cls(flow.class_qualname) if flow.class_qualname else None
                held = model.attribute(cls, attr) if cls is not None else None
                if not _stays_a_tensor(forward, name, held):
                    message += f" (no fix: `{name}` is not known to be a tensor; detach it in forward)"
                else:
                    statements = _detach_statements([name], ["tensor"], maybe_none, self._fresh_name())
                    title = f"Detach `{name}` as forward starts"
                    if reset == "doubt":
                        message += self.MAYBE_RESET_NOTE.format(name=name, where=self.MAYBE_RESET_HERE)
                        fix = Fix.unsafe(title, InsertBefore(anchor, tuple(statements)))
                    else:
                        fix = Fix.safe(title, InsertBefore(anchor, tuple(statements)))
                self.report(first, message, fix=fix)

    def _graph_passed(
        self, flows: List[GraphFlow], flow: GraphFlow, summary: FunctionSummary, param: str
    ) -> Optional[cst.Call]:
        """A call in this file, inside a loop that back-propagates, of an object of ``flow``'s class
        that passes a value holding a graph for ``param`` of its forward."""
        params = [p for p in summary.params if p != "self"]
        for other in flows:
            training = {loop for b in other.backwards.values() for loop in other.loops_of(b.loops)}
            for called in other.instance_calls:
                if called.cls != flow.class_name or not training & set(called.loops):
                    continue
                for index, arg in enumerate(called.call.args):
                    spelled = arg.keyword.value if arg.keyword is not None else (
                        params[index] if index < len(params) and not arg.star else None
                    )
                    value = called.args[index]
                    if spelled == param and value.level >= GRAPH and not value.graph_is_assumed:
                        return called.call
        return None

    def _also_holds_non_tensor(self, flow: GraphFlow, attr: str) -> bool:
        """Somewhere (``__init__``, a reset) the attribute is given a number, a container or another
        object (``self.h = 0``): a ``.detach()`` as forward starts would raise on the call after it."""
        model = self.context.model
        cls = model.cls(flow.class_qualname) if flow.class_qualname else None
        held = model.attribute(cls, attr) if cls is not None else None
        return held is not None and bool(held.kinds & _NON_TENSOR_ATTRIBUTES)

    def _reset_of_state(self, flows: List[GraphFlow], facts: ModuleFacts, cls: Optional[str], attr: str) -> str:
        """``reset`` where the state is re-created where the training loop runs: a method of the
        class that assigns it (``reset_state()``, ``init_hidden()``), or the attribute assigned from
        outside, called in a loop that runs backward() or in a step function whose backward() runs
        outside its own loops; or such a reset exists but its caller is not in this file. ``doubt`` where the file re-creates the state at a
        place that may run between two training steps (a method with no backward of its own, such
        as an episode's start) and so may cut the chain the report is about: the original may run,
        back-propagating through each whole sequence, and a detach in forward would truncate it;
        ``none`` where nothing re-creates it but code that runs once around a whole training loop."""
        model = self.context.model
        summary = model.cls(cls) if cls is not None else None
        resetters = {
            name
            for current in (model.mro(summary) if summary is not None else [])
            for name, method in current.methods.items()
            if name != "__init__" and name not in STATEFUL_CALLS and attr in method.self_writes
        }
        training_loops = [
            loop for f in flows for b in f.backwards.values() for loop in f.loops_of(b.loops)[-1:]
        ]
        # A function whose every backward() runs outside its own loops is one step of its caller's
        # loop (``def train(self, batch): ...; loss.backward()``): each call runs its code once, so a
        # reset in it re-creates the state once per backward, as a reset in a training loop does.
        training_steps = [
            f.scope for f in flows
            if isinstance(f.scope, cst.FunctionDef) and f.backwards
            and not any(f.loops_of(b.loops) for b in f.backwards.values())
        ]
        module = self.context.module

        def resets(node: cst.CSTNode, names: Set[str]) -> bool:
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                return node.func.attr.value in names and dotted_name(node.func.value) != "self"
            if isinstance(node, cst.Assign):
                return any(
                    isinstance(t.target, cst.Attribute) and t.target.attr.value == attr
                    and dotted_name(t.target.value) not in (None, "self")
                    for t in node.targets
                )
            return False

        # In a file that trains nothing, a method of a holder class that hands the reset on
        # (``def detach_hidden(self): for rnn in self.rnns: rnn.detach_hidden()``) offers it to its
        # own caller, in another file: its calls are the resets, followed up to a fixed point. A
        # file that trains is the caller: there, a reset only handed on is a reset not made.
        names = set(resetters)
        candidates = [
            node for node in loops.walk(module)
            if isinstance(node, cst.Assign) or isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
        ]
        while True:
            sites = [node for node in candidates if resets(node, names)]
            handing = {
                site: None if training_loops or any(_encloses(step, site) for step in training_steps)
                else _hands_on_reset(module, site)
                for site in sites
            }
            more = {method for method in handing.values() if method is not None} - names
            if not more:
                break
            names |= more
        found_reset = doubt = False
        for node in candidates:
            if node in handing:
                if handing[node] is not None:
                    continue  # judged by the calls of the method that hands it on
                found_reset = True
                if any(_encloses(loop, node) for loop in training_loops):
                    return "reset"
                if summary is not None and _holder_resets(model, module, node, attr, summary):
                    # A holder's forward re-creates it on every call that may read it (behind a
                    # flag fixed in ``__init__`` that guards every use): nothing crosses calls.
                    return "reset"
                cleared = not isinstance(node, cst.Assign) or _fresh_value(node.value)
                if cleared and any(_encloses(step, node) for step in training_steps):
                    return "reset"
                if cleared and _reset_per_call(self.context.module, node):
                    # A module's forward re-creates it on every call, or on the calls its caller
                    # chooses by argument (``use_cache=False``): a per-call cache, not carried state.
                    return "reset"
                if cleared and not _around_training_loop(module, node, training_loops):
                    doubt = True
            elif isinstance(node, cst.Assign) and _fresh_value(node.value) and any(
                dotted_name(t.target) == f"self.{attr}" for t in node.targets
            ):
                # ``else: self.state = None`` in the forward itself, on the calls whose arguments
                # ask for no cache: the caller decides whether the state is kept.
                if _reset_per_call(self.context.module, node):
                    return "reset"
        # A reset method nobody in this file calls, or calls only from a method handing it on to
        # its own caller: that caller (another file) decides; stay silent.
        if resetters and not found_reset:
            return "reset"
        if training_steps and not training_loops:
            # Only step functions back-propagate here: the loop calling them is out of sight, and
            # it may re-create the state before each call.
            doubt = True
        return "doubt" if doubt else "none"

    def _carried_states(self, flow: GraphFlow) -> Dict[cst.CSTNode, List[str]]:
        found: Dict[Tuple[cst.CSTNode, str], bool] = {}
        for backward in flow.backwards.values():
            for label in backward.value.labels:
                # Only the loops the backward itself runs in: backward after the loop is full BPTT.
                if label[0] == "carry" and label[1] in backward.loops:
                    found[(label[1], label[2])] = found.get((label[1], label[2]), False) or backward.retain_graph
        by_loop: Dict[cst.CSTNode, List[str]] = {}
        for (loop, name), _ in found.items():
            if not self._carries_graph(flow, loop, name):
                continue
            if _keeps_whole_graph(flow, loop):
                continue
            if isinstance(loop, cst.FunctionDef) and _read_only_where_just_set(self.context.module, loop, name):
                # ``if flag: self.l = ...`` then ``(self.l if flag else 0)``: this call's value, not the last one's.
                continue
            if _back_propagated_in(flow, loop, name):
                # The loss itself: detaching it would cut the backward it is about to run.
                continue
            # Report at the innermost loop only; its fix also cuts the outer carry.
            if any(inner is not loop and name == n and _encloses(loop, inner) for inner, n in found if self._carries_graph(flow, inner, n)):
                continue
            by_loop.setdefault(loop, []).append(name)
        for loop, names in by_loop.items():
            # An object that carries the graph is reported once, not again for each attribute of it.
            by_loop[loop] = [n for n in names if not any(n.startswith(o + ".") for o in names if o in flow.stub_detached)]
        return by_loop

    def _carries_graph(self, flow: GraphFlow, loop: cst.CSTNode, name: str) -> bool:
        # The value handed to the next iteration holds a graph ...
        kept = flow.loop_end.get(loop, {}).get(name)
        if kept is None or kept.level < GRAPH or kept.graph_is_assumed:
            return False
        if isinstance(loop, cst.FunctionDef) and not name.startswith("self."):
            return False
        # ... built before a backward of the same iteration freed it.
        positions = self.context.metadata(PositionProvider)
        backwards = [(_start(positions, b.call), b) for b in flow.backwards.values() if loop in b.loops]
        entries = {e.name for e in flow.carried_entries.get(loop, ())}
        for assignment in flow.assignments:
            if assignment.name != name or loop not in assignment.loops or assignment.value.level < GRAPH:
                continue
            at = _start(positions, assignment.statement)
            if any(at < start for start, _ in backwards):
                return True
            # ... or after it, from what it went through (``prev = out``, ``center = 0.9 * center +
            # 0.1 * t.mean(0)`` past ``loss.backward()``): built on the graph that backward freed.
            made_of = {label for label in assignment.value.labels if label[0] != "assumed"}
            if name in entries:
                # An entry stored after the backward: what the other entries of its container
                # hold is read as one value (``trajectories["state"]`` as all of ``trajectories``),
                # so only a value made from the entry's own previous one is known to be the freed
                # graph (``state["c"] = 0.9 * state["c"] + ...``), not a fresh forward of another entry.
                made_of &= {("carry", loop, name)}
            rebound_each_time = ("carry", loop, name) not in kept.labels
            for start, backward in backwards:
                if not start < at:
                    continue
                walked = made_of & backward.value.labels
                if rebound_each_time:
                    # Every way on to the next iteration rebinds the name (nothing of the value the
                    # iteration started with is kept): a model call or leaf operation that runs after
                    # this backward, in this loop's own body, builds a new graph
                    # (``outputs = model(inputs)`` of a leaf re-made past ``loss.backward()``); its
                    # label also names the previous iterations' graphs only because they share the call.
                    walked = {label for label in walked if not _made_after(positions, loop, start, label)}
                if walked:
                    return True
        return False

    def _report_loop(
        self, flow: GraphFlow, facts: ModuleFacts, loop: cst.CSTNode, names: List[str], maybe_none: Set[str]
    ) -> None:
        carried = flow.carried[loop]
        # Entries of containers the loop never rebinds (``state["h"] = rnn(x, state["h"])``).
        entries = [e for e in flow.carried_entries.get(loop, ()) if e.name in names]
        if entries:
            self._report_entries(flow, loop, entries)
            names = [n for n in names if n not in {e.name for e in entries}]
            if not names:
                return
        body = [s for s in loops.block_statements(getattr(loop, "body", loop)) if isinstance(s, cst.BaseStatement)]
        positions = self.context.metadata(PositionProvider)
        groups: Dict[cst.BaseStatement, List[str]] = {}
        for name in sorted(names, key=lambda n: _start(positions, carried.first_read[n])):
            anchor = _top_statement(body, carried.first_read[name])
            if anchor is None:
                # Read first by a ``while`` condition: detach as the body starts.
                if not body:
                    continue
                anchor = body[0]
            else:
                # ``if fresh: h = enc(x)`` before the first read: the iteration starts using the
                # carried value before that ``if``, which may rebind it to this iteration's graph.
                anchor = next((s for s in body[: body.index(anchor)] if _rebinds(s, name)), anchor)
            groups.setdefault(anchor, []).append(name)
        retain = any(b.retain_graph for b in flow.backwards.values() if loop in b.loops)
        # Every backward under a test (``if step % 2 == 0:``): an iteration may skip it, so the first
        # backward that runs walks several iterations' graphs, and a detach as each starts changes it.
        gated = not any(
            loop in b.loops and _unconditional_in(loop, call) for call, b in flow.backwards.items()
        )
        for anchor, group in groups.items():
            first = carried.first_read[group[0]]
            kinds = [self._kind(flow, facts, loop, name) for name in group]
            label = ", ".join(f"{n}" for n in group)
            message = self.MESSAGE.format(name=label, verb="carry" if len(group) > 1 else "carries")
            unknown = [n for n, k in zip(group, kinds) if k == "unknown"]
            stubs = [n for n in group if n in flow.stub_detached]
            unbound = [n for n in group if not _bound_before(self.context.module, loop, anchor, n, carried.first_read[n])]
            entering = [n for n in group if _enters_with_graph(flow, loop, n)]
            fix: Optional[Fix] = None
            if stubs:
                listed = ", ".join(f"`{n}.detach()`" for n in stubs)
                message += f" (no fix: {listed} detaches nothing, its class's detach() returns the tensors as they are; "
                message += "make it return detached tensors)"
            elif unbound:
                # A name bound only on some ways before the loop (``if icm: ... else: r = zeros(1)``):
                # a detach inserted where it may be unbound raises UnboundLocalError.
                listed = ", ".join(f"`{n}`" for n in unbound)
                what = "set" if all("." in n for n in unbound) else "bound"
                message += f" (no fix: {listed} may not be {what} yet where the iteration starts; "
                message += "detach it where it is assigned)"
            elif entering:
                # The first iteration back-propagates into what made the value before the loop; a
                # detach where every iteration starts would cut that, changing the first step.
                listed = ", ".join(f"`{n}`" for n in entering)
                message += f" (no fix: {listed} already {'holds' if len(entering) == 1 else 'hold'} a graph where the loop "
                message += "starts, and detaching it at the start of each iteration would change the first step's "
                message += "gradients; detach it after each backward())"
            elif unknown:
                # Detaching something that is not a tensor (a dict, a number, an object) raises.
                listed = ", ".join(f"`{n}`" for n in unknown)
                message += f" (no fix: {listed} {'is' if len(unknown) == 1 else 'are'} not known to be a tensor or "
                message += "a tuple of tensors; detach its tensors where the iteration starts)"
            else:
                statements = _detach_statements(group, kinds, maybe_none, self._fresh_name())
                title = "Detach " + ", ".join(f"`{n}`" for n in group) + " at the start of each iteration"
                edit = InsertBefore(anchor, tuple(statements))
                if gated and not retain:
                    message += (" (the backward runs only on some iterations: the first one that runs went back "
                                "through the earlier ones, and this fix cuts that, so it is unsafe)")
                fix = Fix.unsafe(title, edit) if retain or gated else Fix.safe(title, edit)
            self.report(first, message, fix=fix)

    def _report_entries(self, flow: GraphFlow, loop: cst.CSTNode, entries: List[loops.CarriedEntry]) -> None:
        """Entries of containers the loop keeps (``state["h"]``, ``hiddens[i]``) that carry the graph:
        each is detached (``state["h"] = state["h"].detach()``) right before the statement that reads
        it, in the block of the loop that walks its key, where that statement reads it on every way
        (so the entry exists there: the inserted read raises nothing the original would not)."""
        positions = self.context.metadata(PositionProvider)
        retain = any(b.retain_graph for b in flow.backwards.values() if loop in b.loops)
        groups: Dict[Optional[cst.BaseStatement], List[loops.CarriedEntry]] = {}
        for entry in sorted(entries, key=lambda e: _start(positions, e.read)):
            owner_body = [s for s in loops.block_statements(getattr(entry.owner, "body", entry.owner)) if isinstance(s, cst.BaseStatement)]
            anchor = _top_statement(owner_body, entry.read)
            groups.setdefault(anchor, []).append(entry)
        end = flow.loop_end.get(loop, {})
        for anchor, group in groups.items():
            spelled = [self.context.code_for(e.read).strip() for e in group]
            listed = ", ".join(f"`{n}`" for n in spelled)
            message = self.MESSAGE.format(name=", ".join(spelled), verb="carry" if len(group) > 1 else "carries")
            why = None
            if any(_enters_with_graph(flow, loop, e.name) for e in group):
                why = (f"{listed} already {'holds' if len(group) == 1 else 'hold'} a graph where the loop starts, "
                       "and detaching it at the start of each iteration would change the first step's gradients; "
                       "detach it after each backward()")
            elif not all(_entry_is_tensor(flow, loop, e) and _entry_is_tensor(flow, loop, e, end) for e in group):
                # A dict with other values, a list of unknown things, a tensor stored into in place.
                why = f"{listed} {'is' if len(group) == 1 else 'are'} not known to be a tensor; detach it where it is read"
            elif anchor is None or any(not _read_on_every_way(anchor, e.read) or e.others_stored for e in group):
                # The read may not run (a branch, another key stored first): an entry read earlier
                # might not exist yet, or be this iteration's own value.
                why = f"{listed} {'is' if len(group) == 1 else 'are'} not read on every way through the iteration; detach it where it is read"
            fix: Optional[Fix] = None
            if why is not None:
                message += f" (no fix: {why})"
            else:
                assert anchor is not None
                statements = tuple(cst.parse_statement(f"{code} = {code}.detach()\n") for code in spelled)
                title = "Detach " + listed + " at the start of each iteration"
                edit = InsertBefore(anchor, statements)
                fix = Fix.unsafe(title, edit) if retain else Fix.safe(title, edit)
            self.report(group[0].read, message, fix=fix)

    def _fresh_name(self) -> str:
        # The generator variable of a tuple-aware detach; pick one the file does not use.
        used = self.context.fact("carried_state.names", lambda: _all_names(self.context.module))
        for candidate in ("t", "s", "part", "tensor", "state_part"):
            if candidate not in used:
                return candidate
        return "_af102_part"

    def _kind(self, flow: GraphFlow, facts: ModuleFacts, loop: cst.CSTNode, name: str) -> str:
        """``tensor``, ``tuple`` (of tensors) or ``unknown``: what the carried value is."""
        carried = flow.loop_end.get(loop, {}).get(name)
        entry = flow.loop_entry.get(loop, {}).get(name)
        if carried is not None and carried.kinds:
            kind = _state_kind(carried.kinds)
            first = entry.kinds - {NONE} if entry is not None else frozenset()
            if kind != "unknown" and first and _state_kind(first) != kind:
                # The first iteration starts from something else (``h = 0``): ``h.detach()`` raises there.
                return "unknown"
            return kind
        if entry is not None and entry.kinds and name not in _maybe_none_names(self.context.module):
            # Assigned in the loop from something of unknown type (a model passed in): state keeps the
            # type it starts the loop with, a tensor or a tuple of tensors.
            return _state_kind(entry.kinds)
        kinds = set()
        for assignment in flow.assignments:
            if assignment.name != name or loop not in assignment.loops or assignment.value.level < GRAPH:
                continue
            kinds.add(_assigned_kind(self.context, facts, assignment.statement, name))
        return kinds.pop() if len(kinds) == 1 else "unknown"


#: what a ``self`` attribute may be given that has no ``detach()``
_NON_TENSOR_ATTRIBUTES = frozenset(
    {AttrKind.NUMBER, AttrKind.DICT, AttrKind.LIST, AttrKind.OTHER, AttrKind.CALLABLE, AttrKind.MODULE,
     AttrKind.OPTIMIZER, AttrKind.SCHEDULER, AttrKind.SCALER}
)


def _state_kind(kinds: Kinds) -> str:
    if kinds == {TENSOR}:
        return "tensor"
    if kinds == {TENSOR_DICT}:
        return "dict"
    parts = tuple_parts(kinds)
    if kinds == {TENSORS} or parts is not None and all(p == {TENSOR} for p in parts):
        return "tuple"
    return "unknown"


def _stays_a_tensor(forward: cst.FunctionDef, name: str, held: Optional[AttributeSummary]) -> bool:
    """``self.<attr>`` starts as a tensor in ``__init__`` and only ``forward`` rebinds it, each time with
    arithmetic on its own value (``0.9 * self.center + 0.1 * m``): an operation with a tensor operand
    gives a tensor (or raises), so the attribute is a tensor on every call."""
    if held is None or held.kind is not AttrKind.TENSOR or set(held.assigned_in) - {"__init__", "forward"}:
        return False
    values = [
        small.value
        for node in loops.walk(forward)
        if isinstance(node, cst.SimpleStatementLine)
        for small in node.body
        if isinstance(small, cst.Assign) and name in _assigned_names(small)
    ]
    other = [
        node for node in loops.walk(forward)
        if isinstance(node, (cst.AugAssign, cst.AnnAssign)) and name in _assigned_names(node)
    ]
    return bool(values) and not other and all(_arithmetic_on(value, name) for value in values)


def _arithmetic_on(value: cst.BaseExpression, name: str) -> bool:
    """``value`` is arithmetic one of whose operands, through other arithmetic, is ``name`` itself."""
    if isinstance(value, cst.BinaryOperation):
        return any(
            dotted_name(part) == name or _arithmetic_on(part, name) for part in (value.left, value.right)
        )
    if isinstance(value, cst.UnaryOperation) and not isinstance(value.operator, cst.Not):
        return dotted_name(value.expression) == name or _arithmetic_on(value.expression, name)
    return False


def _entry_is_tensor(flow: GraphFlow, loop: cst.CSTNode, entry: loops.CarriedEntry, state: Optional[Dict] = None) -> bool:
    """The entry is a tensor, in a dict or a list of tensors, where ``loop`` is entered (``state``
    None) or where its iteration ends. A tensor indexed in place (``h[l] = ...``) is no such
    container: detaching an entry and storing it back leaves the tensor's own graph."""
    values = flow.loop_entry.get(loop, {}) if state is None else state
    container, value = values.get(entry.container), values.get(entry.name)
    return (
        container is not None and container.kinds in ({TENSOR_DICT}, {TENSOR_LIST})
        and value is not None and value.is_tensor
    )


def _read_on_every_way(statement: cst.BaseStatement, read: cst.CSTNode) -> bool:
    """``statement`` is a simple statement line whose evaluation reaches ``read`` on every way: not
    inside a conditional expression, a boolean operator, a lambda or a comprehension."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    path = _path_to(statement, read)
    return bool(path) and not any(
        isinstance(node, (cst.IfExp, cst.BooleanOperation, cst.Lambda, cst.GeneratorExp, cst.ListComp,
                          cst.SetComp, cst.DictComp))
        for node in path
    )


def _keeps_whole_graph(flow: GraphFlow, loop: cst.CSTNode) -> bool:
    """Every backward in ``loop`` retains the graph and no optimizer step runs in it (here or in a
    project callee): nothing frees the previous iterations' graph and no weight changes under it, so
    back-propagating through all of them is what the loop asks for (the gradient of an input through
    a growing stack of layers, full BPTT accumulated chunk by chunk), not a leak to cut."""
    passes = [b for b in flow.backwards.values() if loop in b.loops]
    return bool(passes) and all(b.retain_graph for b in passes) and not flow.steps_in(loop)


def _enters_with_graph(flow: GraphFlow, loop: cst.CSTNode, name: str) -> bool:
    """The value ``name`` holds where ``loop`` is first entered is known to have a graph of its own
    (a graph carried in by an enclosing loop is the same stale one, freed already)."""
    entry = flow.first_entry.get(loop, {}).get(name)
    return entry is not None and entry.level >= GRAPH and not entry.graph_is_assumed


def _back_propagated_in(flow: GraphFlow, loop: cst.CSTNode, name: str) -> bool:
    """``name.backward()`` or ``backward(name)`` runs in ``loop``: ``name`` is a loss, not state."""
    for backward in flow.backwards.values():
        if loop not in backward.loops:
            continue
        call = backward.call
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
        if receiver is not None and dotted_name(receiver) == name:
            return True
        if call.args and dotted_name(call.args[0].value) == name:
            return True
    return False


def _start(positions, node: cst.CSTNode) -> Tuple[int, int]:
    start = positions[node].start
    return (start.line, start.column)


#: the file freezes parameters somewhere: a forward before the loop may well build no graph
_FREEZES_PARAMETERS = re.compile(r"\.requires_grad\s*=\s*False|requires_grad_\(\s*False")


def _made_after(positions, loop: cst.CSTNode, start: Tuple[int, int], label: Tuple) -> bool:
    """``label`` names the graph of one model call or leaf operation (``("src", call)``,
    ``("leaf", op)``) that sits after ``start`` directly in ``loop``'s body (in no inner loop or
    function): each run of it follows the backward at ``start`` of the same iteration."""
    if label[0] not in ("src", "leaf") or len(label) < 2 or not isinstance(label[1], cst.CSTNode):
        return False
    node = label[1]
    if node not in positions or not _start(positions, node) > start:
        return False
    path = _path_to(loop, node)
    if not path:
        return False
    return not any(isinstance(p, (cst.For, cst.While, cst.FunctionDef, cst.Lambda, cst.ClassDef)) for p in path[1:])


def _may_stop_early(loop: cst.CSTNode) -> bool:
    """The loop's body may leave it after its first iteration (``break`` or ``return`` of its own)."""
    stack = [(child, False) for child in children(loop)]
    while stack:
        node, nested = stack.pop()
        if isinstance(node, cst.Return) or (isinstance(node, cst.Break) and not nested):
            return True
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue  # a return there leaves another function
        # A break inside an inner loop leaves only that loop.
        inner = nested or isinstance(node, (cst.For, cst.While))
        stack.extend((child, inner) for child in children(node))
    return False


def _encloses(outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
    stack = [outer]
    while stack:
        current = stack.pop()
        if current is inner and current is not outer:
            return True
        stack.extend(children(current))
    return False


def _reset_per_call(module: cst.Module, node: cst.CSTNode) -> bool:
    """``node`` runs inside a ``forward`` (or ``training_step``) under no condition that reads the
    object's own state: on every call, or on the calls its arguments select."""
    path = _path_to(module, node)
    functions = [i for i, n in enumerate(path) if isinstance(n, cst.FunctionDef)]
    if not functions:
        return False
    function = path[functions[-1]]
    assert isinstance(function, cst.FunctionDef)
    if function.name.value not in STATEFUL_CALLS:
        return False
    for outer in path[functions[-1] + 1:]:
        tests = [outer.test] if isinstance(outer, (cst.If, cst.While)) else []
        if isinstance(outer, (cst.For, cst.While, cst.Try)):
            return False  # maybe never run
        for test in tests:
            if any(isinstance(n, (cst.Name, cst.Attribute)) and (dotted_name(n) or "").startswith("self.") for n in loops.walk(test)):
                return False  # ``if self.state is None:`` resets once, then the state is kept
    return True


def _holder_resets(model, module: cst.Module, node: cst.CSTNode, attr: str, state_cls: ClassSummary) -> bool:
    """``node`` (a call on ``self.<member>`` or an assignment through it) sits in the ``forward`` of a
    class whose ``self.<member>`` is an instance of ``state_cls``, and the model knows that forward
    re-creates ``attr`` of it on every call that may read it (:meth:`ModuleModel.reset_each_call`)."""
    method, owner = _enclosing_method(module, node)
    if method is None or owner is None or method.name.value != "forward" or not method.params.params:
        return False
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        receivers = [node.func.value]
    elif isinstance(node, cst.Assign):
        receivers = [t.target.value for t in node.targets if isinstance(t.target, cst.Attribute)]
    else:
        return False
    self_name = method.params.params[0].name.value
    holder = model.cls(owner.name.value)
    forward = model.method(holder, "forward") if holder is not None else None
    if holder is None or forward is None:
        return False
    for receiver in receivers:
        spelled = dotted_name(receiver) or ""
        head, _, member = spelled.partition(".")
        if head != self_name or not member or "." in member:
            continue
        held = model.instance_class(forward, spelled)
        if held is not None and any(c is state_cls for c in model.mro(held)) and attr in model.reset_each_call(holder, member):
            return True
    return False


def _around_training_loop(module: cst.Module, site: cst.CSTNode, training_loops: Sequence[cst.CSTNode]) -> bool:
    """``site`` sits in the function (or module) that holds a training loop, outside that loop: it
    runs once before or after the whole loop, never between two of its backward() calls."""
    path = _path_to(module, site)
    scopes = [n for n in path[:-1] if isinstance(n, (cst.Module, cst.FunctionDef))]
    if not scopes:
        return False
    scope = scopes[-1]
    for loop in training_loops:
        if not _encloses(scope, loop) or _encloses(loop, site):
            continue
        inner = _path_to(scope, loop)
        if not any(isinstance(n, (cst.FunctionDef, cst.Lambda)) for n in inner[1:-1]):
            return True
    return False


def _hands_on_reset(module: cst.Module, site: cst.CSTNode) -> Optional[str]:
    """The name of the method whose body holds the reset ``site`` when that method hands the
    reset on to its caller: a method of a class (not ``__init__``, which resets once, nor the
    per-call ``forward``/``training_step``), so the reset runs when its caller calls it."""
    method, owner = _enclosing_method(module, site)
    if method is None or owner is None:
        return None
    name = method.name.value
    if name == "__init__" or name in STATEFUL_CALLS:
        return None
    return name


def _fresh_value(value: cst.BaseExpression) -> bool:
    """``None``, a new tensor from a factory (``torch.zeros(...)``, ``x.new_zeros(...)``) or a detached
    one: no graph."""
    if isinstance(value, cst.Name):
        return value.value == "None"
    if not isinstance(value, cst.Call):
        return False
    last = (dotted_name(value.func) or "").rsplit(".", 1)[-1]
    if not last and isinstance(value.func, cst.Attribute):
        last = value.func.attr.value  # ``h.new_zeros(...)`` of an expression
    return last in FACTORIES or last == "detach" or (last in FRESH_METHODS and last != "clone")


def _enclosing_method(
    module: cst.Module, node: cst.CSTNode
) -> Tuple[Optional[cst.FunctionDef], Optional[cst.ClassDef]]:
    """The innermost function holding ``node``, and the class it sits directly in (None for a
    function outside a class body, or no function at all)."""
    path = _path_to(module, node)
    functions = [i for i, n in enumerate(path) if isinstance(n, cst.FunctionDef)]
    if not functions:
        return None, None
    index = functions[-1]
    method = path[index]
    assert isinstance(method, cst.FunctionDef)
    # ``class C: <IndentedBlock> def m``: the function sits directly in a class body.
    owner = path[index - 2] if index >= 2 else None
    return method, owner if isinstance(owner, cst.ClassDef) else None


def _path_to(root: cst.CSTNode, node: cst.CSTNode) -> List[cst.CSTNode]:
    """The nodes from ``root`` down to ``node`` (both included; empty when ``node`` is not inside)."""
    stack: List[Tuple[cst.CSTNode, Tuple[cst.CSTNode, ...]]] = [(root, ())]
    while stack:
        current, above = stack.pop()
        if current is node:
            return [*above, current]
        stack.extend((child, (*above, current)) for child in children(current))
    return []


def _rewritten_before_read_when_set(forward: cst.FunctionDef, name: str, first_read: cst.CSTNode) -> bool:
    """Every assignment of ``name`` in ``forward`` is a plain statement of one ``if`` whose test only
    reads attributes ``forward`` never assigns (``if self.bias is not None:``), and ``name`` is read only
    after that ``if``. The test gives the same answer on every call: calls that take the branch rewrite
    the state before reading it, calls that skip it never store a graph in it."""
    body = loops.block_statements(forward.body)
    assigned = {t for n in loops.walk(forward) for t in _assigned_names(n)}
    guards = [
        stmt for stmt in body
        if isinstance(stmt, cst.If) and any(name in _assigned_names(n) for n in loops.walk(stmt))
    ]
    if len(guards) != 1:
        return False
    guard = guards[0]
    if guard.orelse is not None or any(name in _assigned_names(n) for n in body if n is not guard):
        return False
    direct = [s for s in loops.block_statements(guard.body) if name in _assigned_names(s)]
    nested = [n for n in loops.walk(guard.body) if name in _assigned_names(n) and n not in direct]
    if not direct or any(not isinstance(n, (cst.SimpleStatementLine, cst.Assign)) for n in nested):
        return False
    if any(isinstance(n, cst.Call) for n in loops.walk(guard.test)):
        return False
    for read, _ in loops.iter_reads(guard.test):
        if read.startswith("self.") and read not in assigned and not any(read.startswith(a + ".") for a in assigned):
            continue
        if read not in ("self", "None", "True", "False"):
            return False  # a parameter, a local or state forward rewrites: the answer may change
    index = body.index(guard)
    return not any(b is first_read or _encloses(b, first_read) for b in body[: index + 1])


def _read_only_where_just_set(module: cst.Module, method: cst.FunctionDef, name: str) -> bool:
    """A per-step method sets ``self.x`` only in one ``if T:`` of its body (no ``else``), by plain
    assignments, and reads it only after that in the branch itself, or later under the same test ``T``
    (``if T:`` bodies, ``a if T else b``'s first part). ``T`` calls nothing and reads only names and
    attributes the method never assigns (``flag``, ``self.opt.flag``), so it answers the same both
    times: every read sees the value this call just set. No other function of the file reads ``x``."""
    params = method.params.params
    if not params or not name.startswith(params[0].name.value + ".") or name.count(".") != 1:
        return False
    attr = name.split(".", 1)[1]
    body = list(loops.block_statements(method.body))
    assigned: Set[str] = set()
    for node in loops.walk(method.body):
        assigned |= _assigned_names(node)
        if isinstance(node, (cst.For, cst.CompFor)):
            assigned |= {b for b, _ in loops.target_names(node.target)}
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            assigned |= {b for b, _ in loops.target_names(node.asname.name)}
        elif isinstance(node, cst.NamedExpr):
            assigned |= {b for b, _ in loops.target_names(node.target)}
        elif isinstance(node, (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal, cst.Del, cst.ExceptHandler)):
            return False
    guards = [stmt for stmt in body if any(name in _assigned_names(n) for n in loops.walk(stmt))]
    if len(guards) != 1 or not isinstance(guards[0], cst.If) or guards[0].orelse is not None:
        return False
    guard = guards[0]
    test = guard.test
    if any(isinstance(n, (cst.Call, cst.NamedExpr, cst.Lambda, cst.CompFor, cst.Await, cst.Yield, cst.Subscript)) for n in loops.walk(test)):
        return False
    for read, _ in loops.iter_reads(test):
        if read in assigned or any(read.startswith(a + ".") or a.startswith(read + ".") for a in assigned):
            return False
    spelled = module.code_for_node(test)
    inner = list(loops.block_statements(guard.body))
    setting = [i for i, stmt in enumerate(inner) if name in _assigned_names(stmt)]
    for node in loops.walk(guard.body):
        if name in _assigned_names(node) and not any(node is inner[i] or _encloses(inner[i], node) for i in setting):
            return False  # set in a nested block or by ``+=``-style statements only
    if not setting or any(not isinstance(inner[i], cst.SimpleStatementLine) for i in setting):
        return False
    for i in setting:
        for small in inner[i].body:  # type: ignore[attr-defined]
            if not isinstance(small, cst.Assign) and name in _assigned_names(small):
                return False  # ``self.x += ...`` reads the last call's value
    first = setting[0]
    for node in loops.walk(method.body):
        if not isinstance(node, cst.Attribute) or dotted_name(node) != name:
            continue
        path = _path_to(method, node)
        if any(isinstance(n, (cst.Lambda, cst.FunctionDef, cst.ClassDef)) for n in path[1:]):
            return False
        parent = path[-2]
        if isinstance(parent, cst.AssignTarget) and parent.target is node and any(
            inner[i] is p for i in setting for p in path
        ):
            continue
        if _encloses(guard, node):
            if not any(_encloses(stmt, node) for stmt in inner[first + 1:]):
                return False
            continue
        index = body.index(guard)
        if not any(_encloses(stmt, node) for stmt in body[index + 1:]):
            return False
        if not any(
            isinstance(above, (cst.If, cst.IfExp)) and module.code_for_node(above.test) == spelled
            and (above.body is node or _encloses(above.body, node))
            for above in path
        ):
            return False
    for node in loops.walk(module):
        if isinstance(node, cst.FunctionDef) and node is not method and any(
            isinstance(n, cst.Attribute) and n.attr.value == attr for n in loops.walk(node)
        ):
            return False
    return True


def _assigned_names(node: cst.CSTNode) -> Set[str]:
    """Dotted names a statement assigns (``self.x = …``, ``a, self.y = …``, ``self.z += …``)."""
    if isinstance(node, cst.SimpleStatementLine):
        return {n for small in node.body for n in _assigned_names(small)}
    targets: List[cst.BaseExpression] = []
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        targets = [node.target]
    found: Set[str] = set()
    for target in targets:
        for bound, _ in loops.target_names(target):
            found.add(bound)
    return found


def _rebinds(statement: cst.CSTNode, name: str) -> bool:
    """Some way through ``statement`` (an ``if``, a ``with``, a ``try``) assigns ``name``."""
    for node in loops.walk(statement):
        if name in _assigned_names(node):
            return True
        if isinstance(node, cst.For) and any(bound == name for bound, _ in loops.target_names(node.target)):
            return True
        if isinstance(node, cst.WithItem) and node.asname is not None and any(
            bound == name for bound, _ in loops.target_names(node.asname.name)
        ):
            return True
    return False


def _bound_before(
    module: cst.Module, loop: cst.CSTNode, anchor: cst.CSTNode, name: str, read: Optional[cst.CSTNode] = None
) -> bool:
    """``name`` is bound on every way to ``anchor`` (a top statement of ``loop``'s body): assigned by
    a plain statement before it in the body, or before the loop in a block the loop sits in, or a
    parameter of the function holding the loop. An attribute (``self.h``) is bound the same ways, or
    when a plain statement of its class's ``__init__`` (or the class body) sets it; one set only in a
    branch or by another method may be missing, and ``self.h = self.h.detach()`` would raise
    AttributeError there. Or ``anchor`` itself reads it (``read``) on every way: the inserted read
    raises nothing the original would not."""
    if read is not None and isinstance(anchor, cst.BaseStatement) and _read_on_every_way(anchor, read):
        return True
    if "." in name and _set_in_init(module, loop, name):
        return True
    body = loops.block_statements(getattr(loop, "body", loop))
    for stmt in body:
        if stmt is anchor:
            break
        if name in _assigned_names(stmt):
            return True
    path = _path_to(module, loop)
    for above, below in zip(path, path[1:]):
        if isinstance(above, cst.FunctionDef):
            params = above.params
            if any(p.name.value == name for p in (*params.posonly_params, *params.params, *params.kwonly_params)):
                return True
        block = loops.block_statements(above) if isinstance(above, (cst.Module, cst.IndentedBlock)) else ()
        for stmt in block:
            if stmt is below:
                break
            if name in _assigned_names(stmt):
                return True
    return False


def _set_in_init(module: cst.Module, loop: cst.CSTNode, name: str) -> bool:
    """``self.h`` (``self`` the first parameter of the method holding ``loop``) is set by a plain
    statement of the body of its class's ``__init__``, or in the class body (``h = None``)."""
    method, owner = _enclosing_method(module, loop)
    if method is None or owner is None:
        return False
    params = method.params.params
    if not params or not name.startswith(params[0].name.value + "."):
        return False
    attr = name[len(params[0].name.value) + 1:]
    for stmt in loops.block_statements(owner.body):
        if attr in _assigned_names(stmt):
            return True
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__" and stmt.params.params:
            me = stmt.params.params[0].name.value
            if any(f"{me}.{attr}" in _assigned_names(s) for s in loops.block_statements(stmt.body)):
                return True
    return False


def _top_statement(body: Sequence[cst.CSTNode], node: cst.CSTNode) -> Optional[cst.BaseStatement]:
    for stmt in body:
        if isinstance(stmt, cst.BaseStatement) and (stmt is node or _encloses(stmt, node)):
            return stmt
    return None


def _assigned_kind(context, facts: ModuleFacts, stmt: cst.CSTNode, name: str) -> str:
    for small in getattr(stmt, "body", ()):
        if not isinstance(small, cst.Assign):
            continue
        for target in small.targets:
            path = _path_of(target.target, name)
            if path is None:
                continue
            return _kind_at(context, facts, small.value, path)
    return "unknown"


def _path_of(target: cst.BaseExpression, name: str, prefix: Tuple[int, ...] = ()) -> Optional[Tuple[int, ...]]:
    if isinstance(target, (cst.Tuple, cst.List)):
        for index, element in enumerate(target.elements):
            found = _path_of(element.value, name, prefix + (index,))
            if found is not None:
                return found
        return None
    return prefix if dotted_name(target) == name else None


def _kind_at(context, facts: ModuleFacts, value: cst.BaseExpression, path: Tuple[int, ...]) -> str:
    if path and isinstance(value, (cst.Tuple, cst.List)) and path[0] < len(value.elements):
        return _kind_at(context, facts, value.elements[path[0]].value, path[1:])
    if len(path) >= 2:
        return "tensor"
    if isinstance(value, cst.Call):
        callee = dotted_name(value.func) or ""
        if isinstance(value.func, cst.Attribute) and value.func.attr.value == "forward":
            callee = dotted_name(value.func.value) or ""
        kind = nn_kind_of(facts, callee)
        if kind in _TENSOR_KINDS:
            return "tensor"
        if kind == "LSTM":
            return "tuple" if path == (1,) else "tensor" if path == (0,) else "unknown"
        if kind == "LSTMCell":
            return "tensor" if path else "tuple"
        if kind is None and not path:
            qnames = qualified_names(context, value.func)
            if any(q.startswith("torch.") for q in qnames):
                return "tensor"
        return "unknown"
    if isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)) and not path:
        return "tensor"
    return "unknown"


def _detach_expression(name: str, kind: str, var: str) -> str:
    if kind == "tensor":
        return f"{name}.detach()"
    if kind == "dict":
        return f"{{key: value.detach() for key, value in {name}.items()}}"
    return f"tuple({var}.detach() for {var} in {name})"


def _unconditional_in(loop: cst.CSTNode, call: cst.CSTNode) -> bool:
    """``call`` runs on every iteration of ``loop`` that reaches it: no ``if``, ``try``, inner loop or
    nested scope between the loop's body and the call."""
    found = False

    def visit(node: cst.CSTNode, plain: bool) -> None:
        nonlocal found
        if found:
            return
        if node is call:
            found = plain
            return
        if node is not loop and isinstance(node, (cst.If, cst.Try, cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Match)):
            plain = False
        for child in children(node):
            visit(child, plain)

    body = getattr(loop, "body", None)
    if body is not None:
        visit(body, True)
    return found


def _detach_statements(names: List[str], kinds: List[str], maybe_none: Set[str], var: str) -> List[cst.BaseStatement]:
    """``h = h.detach()``, ``h, c = h.detach(), c.detach()``, ``state = tuple(t.detach() for t in state)``;
    ``if h is not None:`` around state that may still be None."""
    guarded = [n in maybe_none for n in names]
    if len(names) > 1 and all(k == "tensor" for k in kinds) and not any(guarded):
        targets = ", ".join(names)
        values = ", ".join(_detach_expression(n, k, var) for n, k in zip(names, kinds))
        if len(targets) + len(values) + 3 <= 88:
            return [cst.parse_statement(f"{targets} = {values}\n")]
    statements: List[cst.BaseStatement] = []
    for name, kind, guard in zip(names, kinds, guarded):
        line = f"{name} = {_detach_expression(name, kind, var)}\n"
        if guard:
            statements.append(cst.parse_statement(f"if {name} is not None:\n    {line}"))
        else:
            statements.append(cst.parse_statement(line))
    return statements


def _maybe_none_names(module: cst.Module) -> Set[str]:
    """Dotted names the file assigns ``None``, compares with ``None`` or defaults to ``None``."""
    found: Set[str] = set()
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        stack.extend(children(node))
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and isinstance(node.value, cst.Name) and node.value.value == "None":
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                found.update(n for n, _ in loops.target_names(target))
        elif isinstance(node, cst.Comparison):
            for comparison in node.comparisons:
                if isinstance(comparison.comparator, cst.Name) and comparison.comparator.value == "None":
                    name = dotted_name(node.left)
                    if name:
                        found.add(name)
        elif isinstance(node, cst.Param) and isinstance(node.default, cst.Name) and node.default.value == "None":
            found.add(node.name.value)
    return found


def _all_names(module: cst.Module) -> Set[str]:
    found: Set[str] = set()
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            found.add(node.value)
        stack.extend(children(node))
    return found
