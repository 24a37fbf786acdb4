"""AF101: several backward() calls through one shared graph in one training step."""

from __future__ import annotations

import ast

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set

import libcst as cst


from autofix.analysis import screen
from autofix.analysis.dataflow import bind_arguments
from autofix.analysis.names import children as _children, dotted_name, iter_calls, keyword, method_call
from autofix.analysis.steps import (
    PASS_METHODS,
    GraphFlow,
    Line,
    Origins,
    StepTrace,
    TraceEvent,
    framework_step_functions,
    returned_loss_functions,
    loop_contract,
    step_traces,
    trace_step,
    assigned_names,
    backward_holders,
    backward_tensor,
    blocks,
    expr_call,
    graph_flow,
    has_keyword_true,
    is_function_backward,
    linear_block,
    names_in,
    scope_uses_create_graph,
    scope_summary,
    scopes,
)
from autofix.model.frameworks import Framework
from autofix.analysis.training import (
    OptimizerFacts,
    is_backward_call,
    is_step_call,
    is_zero_grad_call,
    optimizer_facts,
    qualified_names,
)
from autofix.context import RuleContext
from autofix.rule import Edit, Fix, Remove, Replace, Rule
from autofix.types import Applicability, Expectation

# Operands that need no parentheses on either side of ``+``.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.UnaryOperation)


@dataclass
class _Event:
    line: Line
    call: Optional[cst.Call] = None  # a plain ``t.backward(...)`` statement
    loop: Optional[cst.For] = None  # ``for l in losses: l.backward(...)``
    barrier: bool = False

    @property
    def backward_call(self) -> Optional[cst.Call]:
        if self.call is not None:
            return self.call
        if self.loop is not None:
            return expr_call(_loop_line(self.loop))
        return None


class DoubleBackward(Rule):
    """
    ## What it does
    Finds two or more `backward()` calls in one training step (no optimizer
    `step()` between them) whose losses come from one forward pass: the two
    heads of `out1, out2 = model(x)`, losses computed from a shared `features`
    tensor, a list of losses back-propagated in a loop. Also finds the same
    tensor back-propagated twice (a duplicated line).

    ## Why is this bad?
    The first `backward()` frees the graph the losses share, so the second one
    fails with `RuntimeError: Trying to backward through the graph a second
    time (or directly access saved tensors after they have already been
    freed)`. Adding `retain_graph=True` to the first call silences the error
    but keeps every saved activation alive and walks the shared part of the
    graph twice. Back-propagating the sum once gives the same gradients,
    because gradients add up.

    ## Example
    ```python
    features = backbone(images)
    loss_cls = criterion(cls_head(features), labels)
    loss_box = box_loss(box_head(features), boxes)
    loss_cls.backward()
    loss_box.backward()  # RuntimeError: the graph of `features` was freed
    optimizer.step()
    ```

    Use instead:
    ```python
    features = backbone(images)
    loss_cls = criterion(cls_head(features), labels)
    loss_box = box_loss(box_head(features), boxes)
    (loss_cls + loss_box).backward()
    optimizer.step()
    ```
    Weights stay as written (`(0.5 * a).backward(retain_graph=True); b.backward()`
    becomes `(0.5 * a + b).backward()`), the loss variables stay bound so that
    logging `loss_cls.item()` still works, and `for l in losses: l.backward(...)`
    becomes `sum(losses).backward()`. `retain_graph=True` is kept only when a
    later backward in the same function still needs the graph.

    The training step is followed across `self.` methods and optimizer steps:
    a GAN class whose `backward_D()` feeds `self.fake_B` to the discriminator
    without `.detach()` before `backward_G()` goes through it again; actor and
    critic losses of one forward pass back-propagated with a `step()` between
    them (with `retain_graph=True`, reported only when that step rewrites
    parameters the kept graph saved; for one loss back-propagated twice, any step
    between whose optimizer is not known to train other parameters, since it
    steps on the gradients that loss just gave); a `loss.backward()` inside a Lightning
    `training_step` that also returns the loss under automatic optimization,
    where Lightning's own backward is the second one. Also reported, with no
    fix: a loss whose graph ran through a module before an optimizer `step()`
    that updates that module's parameters in place, back-propagated after the
    step (SAC's policy loss through the critics, computed before the critics'
    steps): autograd finds the weights it saved changed (`one of the variables
    needed for gradient computation has been modified by an inplace operation`).
    Losses returned in a tuple (`policy_loss, q_loss = self.loss(batch)`) or a
    record built with keywords (`Losses(policy=…, q=…)`) keep each element's
    own graph, and so do the entries of a dict built with string keys (rollout
    rows `{'log_prob': lp, 'value': v}`, and a batch gathering each entry over
    the rows, `{k: torch.cat([r[k] for r in rows]) for k in rows[0].keys()}`;
    an entry written into each row by a loop over the rows, `for r in
    reversed(rows): r['ret'] = ...`, joins that entry of every row); an element
    of the tuple a project method returns that is a fresh tensor (`return
    torch.tensor(obs), reward, done` of an environment's `step`) holds no
    graph; a factory that returns a constructed object runs no forward pass,
    nor does constructing an object of a project class, whatever its spelling
    (`init = uniform_initializer(0.01)` handed to two modules' constructors).
    A method called on a name used as a module (`critic.forward(x)`, where
    `critic.parameters()` is spelled somewhere) runs a forward pass of its own,
    whatever call built the module (`critic = build_critic(6)`, a factory the
    model cannot see into): two such calls are two graphs.

    Not reported: separate forward passes (gradient accumulation), GAN steps
    whose discriminator loss uses `fake.detach()` or that call a `step()` in
    between, second-order code using `create_graph=True`, calls with `inputs=`,
    and calls passing an explicit `gradient` when the graph was retained. Nor
    two losses that meet only in the forward of a module whose code is not
    known (built by a factory or a configuration) with only steps of optimizers
    whose parameters are not known between them: the sharing is assumed, not
    proven. Elements of one call (`logits, value = policy(states)`, a helper's
    returned tuple, a list unpacked name by name) share a graph only where the
    code that made them shares a node: separate networks on inputs with no
    graph do not, nor two runs of one submodule inside a module's forward
    (`d_loss, g_loss = adversarial(x)` whose forward scores `fake.detach()` for
    the one and `fake` for the other), unless that submodule carries state from
    one run into the next or one element reads what it holds. A method called
    on an object of unknown class (`self.model.norm_obs(obs)` of a model built
    by a factory) whose every definition in the project computes its result
    under `torch.no_grad()` hands on its arguments' graphs only. A method of
    the walked class (`actor_loss, value_loss = self.losses(obs)`) is read the
    same way: runs of two submodules of one container (`self.m.policy(obs)`,
    `self.m.value(v)`) are two forward passes, and building a namedtuple record
    runs no module.

    Nor a loss from a project module whose `forward` cuts what it is given:
    `judge(real, fake)` where the forward first rebinds `fake = fake.detach()`,
    or reads a dict argument only through detached entries
    (`drawn["image"].detach()`, `frozen_copy(drawn["points"])` of a helper
    returning `{k: v.detach() for k, v in points.items()}`, also through a
    local bound once to an entry, `points = drawn["points"]`); nor an argument
    built from such a helper's detached copy at the call site. A module wrapped
    in `nn.DataParallel`, `DistributedDataParallel` or a project subclass of
    them that defines no `__init__`, `forward` or `__call__` of its own
    (`net = DataParallelWithCallback(net, device_ids=ids)`) runs the wrapped
    module's `forward`, read as such. A dict or list a function fills entry by
    entry (`losses["gan"] = value`, `losses.update(...)`) holds the graphs of
    what was put in it.

    Nor two backward calls in arms whose tests contradict each other, so that
    no call runs both: `if per_group:` (each loss inside a loop) and `if not
    per_group:` (their sum after it), `x is None` / `x is not None`, `==` / `!=`
    of the same operands, each part of an `and` in its arm and of an `or` in
    the arms after it. Only while the tested names provably hold the same
    values at both tests: plain names (an attribute may change in any call
    between), not rebound between the tests, not bound in a loop around either
    test (nor locals of a method called in a loop), not declared `global` or
    `nonlocal` anywhere in the file; truth, `==` and `in` only of names bound
    here to a bool, number, string or None (`per = masks is not None and w is
    not None`), since a list or a tensor can change through another name.

    ## Fix safety
    Merging into one backward of the sum is safe: the gradients are the sum of
    the separate contributions, as before (up to floating-point rounding order).
    No fix is offered when a loss variable is reassigned between the calls, when
    an earlier loss is an inline forward call (moving it would change the order
    of computation), or when a call passes an explicit `gradient`. The same
    merge applies to `torch.autograd.backward(loss)` and to training wrappers
    that take the loss as argument (`accelerator.backward(loss)`).

    Across methods, `.detach()` is added (safe) only where the discriminator
    consumes the shared value, when that value is provably a tensor (made by
    `torch.cat` and the like), every optimizer stepped between the two calls
    leaves the modules that made it alone, and their gradients are zeroed
    between the two calls: the gradients every step sees are then unchanged.
    Otherwise the finding says what to change, with no fix. Dropping the manual
    backward in a Lightning `training_step` is unsafe: whether Lightning zeroes
    the gradients between the two (no accumulation, no overridden
    `optimizer_zero_grad`) is configured outside the file.

    Removing a repeated `backward()` of the same tensor (and a repeated
    `step()` right after it) is unsafe: it changes how many updates run. The
    original crashed there, so this is almost always the intent.

    ## Runtime evidence
    With `autofix --run CMD` the doctor sees what this rule infers: a backward
    that reaches nodes an earlier backward of the same step already freed (the
    run raises "Trying to backward through the graph a second time"), or, under
    `retain_graph=True`, two backward calls of one step that share nodes. The
    finding sits at the second backward and names the first one.

    ## References
    - [Autograd mechanics: saved tensors](https://pytorch.org/docs/stable/notes/autograd.html#saved-tensors)
    - [`torch.Tensor.backward`](https://pytorch.org/docs/stable/generated/torch.Tensor.backward.html)
    """

    CODE = "AF101"
    NAME = "double-backward"
    SUMMARY = "several backward() calls through one shared graph before the optimizer step"
    MESSAGE = "backward() through a graph that an earlier backward() in this step already used"
    TRIGGERS = ("backward",)
    FIXES = (Applicability.SAFE, Applicability.UNSAFE)
    EXPECTATION = Expectation.IDENTICAL_OR_REPAIRED

    @classmethod
    def may_fire_in(cls, tree: ast.Module) -> bool:
        return screen.calls_backward(tree)

    def check(self) -> None:
        #: backward calls a finding of the block check already covers
        self._covered: Set[cst.Call] = set()
        #: backward calls whose merged fix keeps retain_graph=True for a later backward
        self._kept_for_later: Set[cst.Call] = set()
        holders = backward_holders(self.context)
        if not holders:
            return
        flow = graph_flow(self.context)
        for scope in scopes(self.context.module):
            if isinstance(scope, cst.FunctionDef) and scope not in holders:
                continue
            # Verify that this is first-order code: gradient penalties, MAML and
            # Hessian-vector products back-propagate through a graph on purpose.
            if scope_uses_create_graph(scope):
                continue
            for _, body in blocks(scope):
                lines = linear_block(self.context, body)
                # Two backward calls in a block, or one in a loop over losses.
                if sum(line.stmt in holders or line.node in holders for line in lines) >= 1:
                    self._check_block(lines, flow)
        self._check_traces()
        self._check_lightning()

    # ------------------------------------------------------------------ events

    def _events(self, lines: Sequence[Line]) -> List[_Event]:
        events = []
        for line in lines:
            call = expr_call(line)
            if call is not None and is_backward_call(self.context, call):
                events.append(_Event(line, call=call))
            elif isinstance(line.stmt, cst.For) and line.small is None and self._loop_backward(line.stmt):
                events.append(_Event(line, loop=line.stmt))
            else:
                events.append(_Event(line, barrier=self._is_barrier(line.node)))
        return events

    def _loop_backward(self, loop: cst.For) -> bool:
        body: Sequence[cst.CSTNode] = getattr(loop.body, "body", ())
        if loop.orelse is not None or len(body) != 1:
            return False
        only = body[0]
        if not isinstance(only, cst.SimpleStatementLine) or len(only.body) != 1:
            return False
        call = expr_call(_loop_line(loop))
        if call is None or not is_backward_call(self.context, call):
            return False
        mc = method_call(call)
        return mc is not None and isinstance(mc[0], cst.Name) and mc[0].value in _target_names(loop.target)

    def _is_barrier(self, node: cst.CSTNode) -> bool:
        # Anything that reads, clears or applies gradients between two backward
        # calls observes them separately: merging would change what it sees.
        facts = optimizer_facts(self.context)
        for call in iter_calls(node):
            if is_backward_call(self.context, call) or is_step_call(self.context, call) or is_zero_grad_call(call):
                return True
            mc = method_call(call)
            if mc is not None and facts.holds_parameters(dotted_name(mc[0])):
                # Any method of an optimizer (SAM's ``first_step()``) or of another object built
                # from the parameters may read or change their gradients.
                return True
            names = qualified_names(self.context, call.func) | {dotted_name(call.func) or ""}
            if any("grad" in n.rsplit(".", 1)[-1] for n in names):
                return True
        return _touches_grad(node)

    # ------------------------------------------------------------------ checking

    def _check_block(self, lines: List[Line], flow: GraphFlow) -> None:
        events = self._events(lines)
        repeats = self._check_repeats(events, flow)
        run: List[_Event] = []
        for index, event in enumerate(events):
            if event.backward_call is not None and id(event) not in repeats:
                run.append(event)
            elif event.barrier or id(event) in repeats:
                self._check_run(run, events, index, flow)
                run = []
        self._check_run(run, events, len(events), flow)

    def _check_repeats(self, events: List[_Event], flow: GraphFlow) -> Dict[int, _Event]:
        """The same tensor back-propagated again with no reassignment in between."""
        repeats: Dict[int, _Event] = {}
        for i, first in enumerate(events):
            call = first.call
            if call is None or id(first) in repeats or has_keyword_true(call, "retain_graph"):
                continue
            tensor = backward_tensor(self.context, call)
            if tensor is None or not flow.origins(call) or _has_forward_call(tensor):
                continue
            text = self.context.code_for(tensor).strip()
            read = names_in(tensor)
            steps_between: List[_Event] = []
            for later in events[i + 1:]:
                later_tensor = backward_tensor(self.context, later.call) if later.call is not None else None
                if later_tensor is not None:
                    if self.context.code_for(later_tensor).strip() == text:
                        repeats[id(later)] = later
                        self._covered.update(c for c in (call, later.call) if c is not None)
                        self._report_repeat(first, later, steps_between, events)
                        break
                if assigned_names(later.line.node) & read:
                    break
                later_call = expr_call(later.line)
                if later_call is not None and is_step_call(self.context, later_call):
                    steps_between.append(later)
        return repeats

    def _report_repeat(self, first: _Event, repeat: _Event, steps_between: List[_Event], events: List[_Event]) -> None:
        assert repeat.call is not None
        tensor = self._tensor_text(repeat.call)
        edits = [_remove(repeat.line)]
        position = events.index(repeat)
        # A duplicated `loss.backward(); optimizer.step()` pair: drop the repeated step too.
        if position + 1 < len(events):
            following = expr_call(events[position + 1].line)
            step_texts = {self.context.code_for(e.line.node).strip() for e in steps_between}
            if following is not None and is_step_call(self.context, following):
                if self.context.code_for(events[position + 1].line.node).strip() in step_texts:
                    edits.append(_remove(events[position + 1].line))
        title = "Remove the repeated backward()" + (" and step()" if len(edits) > 1 else "")
        self.report(
            repeat.call,
            f"`{tensor}` is back-propagated a second time; the first `backward()` already freed its graph",
            fix=Fix.unsafe(title, *edits),
        )

    def _check_run(self, run: List[_Event], events: List[_Event], end: int, flow: GraphFlow) -> None:
        if not run:
            return
        if len(run) == 1:
            if run[0].loop is not None:
                self._check_loop(run[0], events, end, flow)
            return
        for component in _components(run, flow):
            if len(component) > 1:
                self._check_group(component, run, events, end, flow)

    def _check_group(self, group: List[_Event], run: List[_Event], events: List[_Event], end: int, flow: GraphFlow) -> None:
        calls = [c for c in (e.backward_call for e in group) if c is not None]
        if len(calls) != len(group):
            return
        # Verify that the calls back-propagate whole scalar losses on all inputs:
        # `inputs=` splits parameters between losses on purpose.
        if any(keyword(c, "inputs") is not None for c in calls):
            return
        retained = all(has_keyword_true(c, "retain_graph") for c in calls[:-1])
        explicit_gradient = any(_has_gradient(c, is_function_backward(self.context, c)) for c in calls)
        # With an explicit `gradient` and the graph retained, this is working
        # vector-Jacobian code: leave it alone.
        if explicit_gradient and retained:
            return
        self._covered.update(calls)
        names = ", ".join(f"`{self._tensor_text(c)}`" for c in calls)
        if retained:
            message = f"backward() runs separately for losses {names} of one forward pass (kept alive with retain_graph=True); back-propagate their sum once"
        else:
            message = f"backward() of losses {names} goes through one shared graph twice: the first call frees it (`Trying to backward through the graph a second time`); back-propagate their sum once"
        fix = None if explicit_gradient else self._merge_fix(group, run, events, end, flow)
        self.report(calls[-1], message, fix=fix, end_node=None, anchors=tuple(calls[:-1]))

    def _check_loop(self, event: _Event, events: List[_Event], end: int, flow: GraphFlow) -> None:
        loop = event.loop
        assert loop is not None
        call = event.backward_call
        origins, shared = flow.containers.get(loop, (frozenset(), False))
        if call is None or keyword(call, "inputs") is not None or _has_gradient(call, False) or not origins:
            return
        # Verify that the elements share a graph: built from one forward pass,
        # or retained on purpose because they do.
        if not (shared or has_keyword_true(call, "retain_graph")):
            return
        container = self._container_text(loop)
        self._covered.add(call)
        message = f"backward() runs once per loss of `{container}`, through the graph they share; back-propagate their sum once"
        fix = None
        if container is not None and not self._read_later(_target_names(loop.target), events, events.index(event)):
            # Every element was retained in the original; only a later backward
            # through the same graph still needs that.
            args = "retain_graph=True" if self._graph_used_later(origins, events, end, flow) else ""
            new = cst.parse_statement(f"sum({container}).backward({args})")
            new = new.with_changes(leading_lines=loop.leading_lines)
            fix = Fix.safe("Back-propagate the sum of the losses once", Replace(loop, new))
        if fix is None:
            reason = "the loop variable is read after the loop" if container is not None else "the loop unpacks more than the losses"
            message += f" (no fix: {reason})"
        self.report(call, message, fix=fix)

    # ------------------------------------------------------------------ across steps and methods

    def _check_traces(self) -> None:
        """Backward calls through one graph that the block check cannot see together.

        Followed along one training step (``self.`` methods walked in place): a
        later backward reaching a graph an earlier one freed, across methods
        (GAN ``backward_D()`` / ``backward_G()`` sharing ``self.fake_B``) or
        across an optimizer ``step()`` (actor-critic heads of one forward). A
        retained graph is only an error when a step between updates, in place,
        parameters that graph saved.
        """
        facts = optimizer_facts(self.context)
        done: Set[cst.Call] = set()
        for trace in step_traces(self.context):
            if any(scope_uses_create_graph(f) for f in trace.functions):
                continue
            events = trace.events
            backward = [i for i, e in enumerate(events) if e.kind == "backward"]
            for position, j in enumerate(backward):
                second = events[j]
                if second.call is None or second.call in done or keyword(second.call, "inputs") is not None:
                    continue
                for i in reversed(backward[:position]):
                    first = events[i]
                    if first.call is None or first.call is second.call or keyword(first.call, "inputs") is not None:
                        continue
                    shared = _forward_origins(self.context, trace, first.origins & second.origins)
                    if not shared or first.exclusive(second):
                        continue
                    if first.call in self._covered and (second.call in self._covered or first.call in self._kept_for_later):
                        break
                    if self._only_assumed(trace, i, j):
                        continue
                    between = [e for e in events[i + 1:j] if not first.exclusive(e) and not e.exclusive(second)]
                    if self._report_shared(trace, first, second, shared, between, facts):
                        done.add(second.call)
                        break
                if second.call not in done and second.call not in self._covered and self._report_stale(trace, second, events[:j], facts):
                    done.add(second.call)

    def _only_assumed(self, trace: StepTrace, first: int, second: int) -> bool:
        """The two losses share a graph only through arguments of a library object's methods
        (``model.discriminator_loss(z)`` and ``model.recon_loss(z)``): whether either hands back
        ``z``'s graph is not visible, so the sharing is assumed, not proven, and not reported."""
        if not trace.assumed:
            return False
        retrace = trace_step(self.context, trace.entry, cut=set(trace.assumed))
        if len(retrace.events) != len(trace.events):
            return False
        a, b = retrace.events[first], retrace.events[second]
        return not _forward_origins(self.context, retrace, a.origins & b.origins)

    def _modules_run(self, trace: StepTrace, origins: Origins) -> Set[Optional[str]]:
        """The modules whose forward passes made these graphs, as spelled where the step is: each
        forward's callee (``self.D(fake)``), and the modules handed to a helper of the project that
        every loss it returns surely comes through (``d_loss, g_loss = gan_losses(D, G, real)``,
        both through ``D(...)``)."""
        found: Set[Optional[str]] = set()
        for origin in origins:
            site = trace.sites.get(origin)
            if site is None:
                continue
            name = dotted_name(site.call.func)
            found.add(name)
            helper = self.context.model.resolve_function(name) if name and "." not in name else None
            if helper is None or helper.class_name is not None or not helper.every_element_runs:
                continue
            found.update(dotted_name(arg) for param, arg in bind_arguments(helper, site.call) if param in helper.every_element_runs)
        return found

    def _report_stale(self, trace: StepTrace, backward: TraceEvent, before: List[TraceEvent], facts: OptimizerFacts) -> bool:
        """A loss back-propagated after an optimizer ``step()`` rewrote, in place, parameters of a
        module its graph ran through before that step (SAC's policy loss through the critics,
        computed before the critics' steps): autograd finds the saved weights changed."""
        assert backward.call is not None
        origins = _forward_origins(self.context, trace, backward.origins)
        for step in before:
            if step.kind != "step" or step.call is None or step.exclusive(backward) or backward.exclusive(step):
                continue
            stepped = facts.param_sources.get(step.target, set())
            stale = sorted(
                o for o in origins
                if o <= step.mark and self._modules_run(trace, frozenset((o,))) & stepped
            )
            if not stale:
                continue
            source = self._origin_text(trace, frozenset(stale[:1]))
            step_text = self.context.code_for(step.call).strip()
            self.report(
                backward.call,
                f"backward() of `{self._tensor_text(backward.call)}` goes through `{source}`, whose parameters "
                f"`{step_text}` updated in place after that forward pass (`one of the variables needed for gradient "
                f"computation has been modified by an inplace operation`) (no fix: back-propagate this loss before "
                f"the step, or compute it after the step)",
            )
            return True
        return False

    def _report_shared(self, trace: StepTrace, first: TraceEvent, second: TraceEvent, shared: Origins, between: List[TraceEvent], facts: OptimizerFacts) -> bool:
        assert first.call is not None and second.call is not None
        steps = [e for e in between if e.kind == "step"]
        modules = self._modules_run(trace, shared)
        source = self._origin_text(trace, shared)
        earlier = f"`{self.context.code_for(first.call).strip()}`{self._where(first, second)}"
        later = self._tensor_text(second.call)
        if has_keyword_true(first.call, "retain_graph"):
            # The graph is still there; it breaks only if a step rewrote parameters it saved.
            modified = next((e for e in steps if facts.param_sources.get(e.target, set()) & modules), None)
            if modified is None and self._same_loss(first, second):
                # One loss back-propagated again after a step: the optimizer stepped on the gradients
                # that loss just gave it, so its parameters are in the graph. Only a step whose
                # parameters are known to lie elsewhere leaves that graph intact.
                modified = next((e for e in steps if not facts.param_sources.get(e.target)), None)
            if modified is None or modified.call is None:
                return False
            step_text = self.context.code_for(modified.call).strip()
            rewritten = facts.param_sources.get(modified.target, set())
            if not rewritten:
                self.report(
                    second.call,
                    f"backward() of `{later}` runs again through the graph that {earlier} kept with retain_graph=True, "
                    f"but `{step_text}` between them updated in place the parameters that loss just gave gradients to, "
                    f"which that graph saved (`one of the variables needed for gradient computation has been modified "
                    f"by an inplace operation`) (no fix: back-propagate once before the step, or recompute the loss after it)",
                )
                return True
            # Name the forward pass whose saved parameters the step rewrote (``self.D(fake)``).
            source = self._origin_text(
                trace, frozenset(o for o in shared if self._modules_run(trace, frozenset((o,))) & rewritten)
            ) or source
            self.report(
                second.call,
                f"backward() of `{later}` goes through the graph of `{source}` that {earlier} kept with retain_graph=True, "
                f"but `{step_text}` between them updated in place parameters that graph saved "
                f"(`one of the variables needed for gradient computation has been modified by an inplace operation`) "
                f"(no fix: back-propagate both losses before the step, or recompute `{source}` after it)",
            )
            return True
        fix = self._detach_fix(trace, first, second, shared, between, modules, facts)
        if (
            steps and fix is None and not any(facts.param_sources.get(e.target) for e in steps)
            and not any(self._forward_read(trace, origin) for origin in shared)
        ):
            # The losses meet only in the forward of a module whose code is not known (built by a
            # factory or a configuration), and what the steps between them train is not known
            # either: that the second loss needs a node the first freed is assumed twice over.
            # Code that did back-propagate through one graph again after such a step would fail on
            # its first iteration; nothing here proves this code does.
            return False
        message = (
            f"backward() of `{later}` goes through the graph of `{source}`, which {earlier} already freed "
            f"(`Trying to backward through the graph a second time`)"
        )
        if fix is not None:
            message += "; the earlier loss' gradient into that graph is zeroed before this backward, so cut it where that loss consumes it"
        elif steps and all(facts.param_sources.get(e.target) and not facts.param_sources[e.target] & modules for e in steps):
            # The step between trains other modules (a GAN's discriminator): the earlier loss should not reach this graph.
            message += " (no fix: detach the shared value where the earlier loss consumes it; that a .detach() there is a tensor and changes no step could not be proven)"
        elif steps:
            message += " (no fix: a step() runs between the two; back-propagate both losses before it, or recompute the forward pass after it)"
        else:
            message += " (no fix: back-propagate the sum of both losses once, or detach the shared value where the earlier loss must not reach it)"
        self.report(second.call, message, fix=fix)
        return True

    def _forward_read(self, trace: StepTrace, origin: int) -> bool:
        """The forward pass that made ``origin`` runs code the program model knows
        (:meth:`~autofix.model.project.ModuleModel.forward_readable`)."""
        site = trace.sites.get(origin)
        spelled = dotted_name(site.call.func) if site is not None else None
        if site is None or spelled is None:
            return False
        caller = scope_summary(self.context, site.scope)
        return caller is not None and self.context.model.forward_readable(caller, spelled)

    def _same_loss(self, first: TraceEvent, second: TraceEvent) -> bool:
        """Both calls back-propagate one tensor of one forward pass (``loss.backward(retain_graph=True)``
        and ``loss.backward()``, the name not rebound in between)."""
        assert first.call is not None and second.call is not None
        tensors = [backward_tensor(self.context, c) for c in (first.call, second.call)]
        if tensors[0] is None or tensors[1] is None or not first.origins or first.origins != second.origins:
            return False
        return self.context.code_for(tensors[0]).strip() == self.context.code_for(tensors[1]).strip()

    def _detach_fix(self, trace: StepTrace, first: TraceEvent, second: TraceEvent, shared: Origins, between: List[TraceEvent], modules: Set[Optional[str]], facts: OptimizerFacts) -> Optional[Fix]:
        """``.detach()`` where the first loss consumes the shared value, when that provably changes no step.

        Verified: every optimizer stepped between the two calls leaves the modules
        that made the shared graph alone, and their gradients are zeroed between
        the two calls, so whatever the first loss sent into them was discarded.
        The ``.detach()`` goes on the input of a module that the optimizer stepped
        between them trains (the discriminator), and that input must be a tensor
        (made by ``torch.cat`` and the like).
        """
        if None in modules or not modules:
            return None
        zeroed: Set[str] = set()
        #: the modules the earlier loss trains: where it consumes the shared value
        trained: Set[str] = set()
        for event in between:
            if event.kind == "step":
                sources = facts.param_sources.get(event.target, set())
                if not sources or sources & modules:
                    return None
                trained |= sources
            if event.kind == "zero_grad":
                zeroed |= facts.param_sources.get(event.target, set()) | {event.target}
        if not modules <= zeroed:
            return None
        first_index, second_index = trace.events.index(first), trace.events.index(second)
        for origin in sorted(first.origins - shared, reverse=True):
            site = trace.sites.get(origin)
            if site is None or site.scope is not first.scope or dotted_name(site.call.func) not in trained:
                continue
            for expr, value in site.args:
                if not (value.origins & shared) or not value.tensor:
                    continue
                retrace = trace_step(self.context, trace.entry, cut={expr})
                new_first, new_second = retrace.events[first_index], retrace.events[second_index]
                if new_first.origins and not (new_first.origins & new_second.origins):
                    callee = self.context.code_for(site.call.func).strip()
                    text = self.context.code_for(expr).strip()
                    detached = cst.parse_expression(f"{text}.detach()" if isinstance(expr, _ATOMS) else f"({text}).detach()")
                    return Fix.safe(f"Detach `{text}` where `{callee}` consumes it", Replace(expr, detached))
        return None

    def _origin_text(self, trace: StepTrace, shared: Origins) -> str:
        site = trace.sites.get(min(shared))
        if site is None:
            return "one forward pass"
        text = " ".join(self.context.code_for(site.call).split())
        return text if len(text) <= 40 else text[:37] + "..."

    def _where(self, first: TraceEvent, second: TraceEvent) -> str:
        if first.scope is second.scope or not isinstance(first.scope, cst.FunctionDef):
            return ""
        return f" in `{first.scope.name.value}()`"

    # ------------------------------------------------------------------ Lightning's own backward

    def _check_lightning(self) -> None:
        """``loss.backward()`` in a step function whose returned loss the framework back-propagates
        again: Lightning's ``training_step``, a Hugging Face ``Trainer``'s ``compute_loss``."""
        for step in framework_step_functions(self.context) | returned_loss_functions(self.context):
            contract = loop_contract(self.context, step)
            # Manual optimization (`automatic_optimization = False`, here or in a base) back-propagates nothing.
            if contract is None or not contract.backward_returned:
                continue
            if contract.framework is Framework.LIGHTNING:
                who, owner, remove = "Lightning", "`training_step` returns (automatic optimization)", "Lightning back-propagates the returned loss"
            elif contract.framework is Framework.HF_TRAINER:
                who, owner, remove = "the Trainer", f"`{contract.function}` returns (its `training_step` calls backward)", "the Trainer back-propagates the returned loss"
            else:
                continue
            trace = trace_step(self.context, step)
            returns = [e for e in trace.events if e.kind == "return"]
            for event in trace.backward_events():
                call = event.call
                if call is None or call in self._covered or is_function_backward(self.context, call):
                    continue
                if not any(r.origins & event.origins and not event.exclusive(r) for r in returns):
                    continue
                fix = None
                if isinstance(event.statement, cst.Expr) and event.statement.value is call and not has_keyword_true(call, "create_graph"):
                    fix = Fix.unsafe(f"Remove the manual backward(); {remove}", Remove(event.statement))
                self.report(
                    call,
                    f"`{self._tensor_text(call)}` is back-propagated here and again by {who}, which calls backward() "
                    f"on the loss {owner}: the second backward finds the graph freed; drop this one",
                    fix=fix,
                )

    # ------------------------------------------------------------------ fixes

    def _merge_fix(self, group: List[_Event], run: List[_Event], events: List[_Event], end: int, flow: GraphFlow) -> Optional[Fix]:
        if any(e.call is None for e in group):
            return None
        # The members must be adjacent in the run: moving a backward across
        # another one that is not merged would reorder hooks and accumulation.
        positions = [run.index(e) for e in group]
        if positions != list(range(positions[0], positions[0] + len(group))):
            return None
        calls = [e.call for e in group if e.call is not None]
        for call in calls:
            # Only `retain_graph=` may go: anything else changes what is computed.
            extra = call.args[1:] if is_function_backward(self.context, call) else call.args
            if any(a.keyword is None or a.keyword.value != "retain_graph" for a in extra):
                return None
        tensors = [t for t in (backward_tensor(self.context, c) for c in calls) if t is not None]
        if len(tensors) != len(calls):
            return None
        last_index = events.index(group[-1])
        for event, tensor in zip(group[:-1], tensors[:-1]):
            # An inline forward call cannot move without reordering computation.
            if _has_forward_call(tensor):
                return None
            between = events[events.index(event) + 1:last_index]
            if any(assigned_names(e.line.node) & names_in(tensor) for e in between):
                return None
        union = frozenset().union(*(flow.origins(c) for c in calls))
        args = self._kept_args(calls[-1], union, events, end, flow, any_retain=any(has_keyword_true(c, "retain_graph") for c in calls))
        if args:
            # The merged call keeps the graph for the later backward: that one is fine after the fix.
            self._kept_for_later.update(calls)
        total: cst.BaseExpression = _operand(tensors[0], first=True)
        for tensor in tensors[1:]:
            total = cst.BinaryOperation(total, cst.Add(), _operand(tensor, first=False))
        total_text = self.context.module.code_for_node(total)
        if not is_function_backward(self.context, calls[-1]):
            new_call = cst.parse_expression(f"({total_text}).backward({args})")
        else:  # torch.autograd.backward(loss) keeps its spelling
            func = self.context.code_for(calls[-1].func)
            new_call = cst.parse_expression(f"{func}({total_text}{', ' + args if args else ''})")
        edits: List[Edit] = [_remove(e.line) for e in group[:-1]]
        edits.append(Replace(calls[-1], new_call))
        return Fix.safe("Back-propagate the sum of the losses once", *edits)

    def _kept_args(self, last: cst.Call, origins, events: List[_Event], end: int, flow: GraphFlow, any_retain: bool = True) -> str:
        # Keep retain_graph only for a later backward through the same graph.
        if has_keyword_true(last, "retain_graph") or (any_retain and self._graph_used_later(origins, events, end, flow)):
            return "retain_graph=True"
        return ""

    def _graph_used_later(self, origins, events: List[_Event], end: int, flow: GraphFlow) -> bool:
        for event in events[end:]:
            for call in iter_calls(event.line.node):
                if is_backward_call(self.context, call) and flow.origins(call) & origins:
                    return True
                if "grad" in (dotted_name(call.func) or "").rsplit(".", 1)[-1] and flow.origins(call) & origins:
                    return True
        return False

    def _read_later(self, names, events: List[_Event], index: int) -> bool:
        return any(names_in(e.line.node) & set(names) for e in events[index + 1:])

    def _container_text(self, loop: cst.For) -> Optional[str]:
        iterable = loop.iter
        call = method_call(iterable)
        if isinstance(loop.target, cst.Tuple):
            # for name, loss in losses.items(): -> sum(losses.values())
            if call is not None and call[1] == "items" and len(loop.target.elements) == 2:
                receiver = expr_call(_loop_line(loop))
                mc = method_call(receiver) if receiver is not None else None
                if mc is not None and self.context.code_for(mc[0]).strip() == self.context.code_for(loop.target.elements[1].value).strip():
                    return f"{self.context.code_for(call[0]).strip()}.values()"
            return None
        if dotted_name(iterable) is not None or isinstance(iterable, cst.Call):
            # The loop evaluates its iterable once; so does sum(...).
            return self.context.code_for(iterable).strip()
        return None

    def _tensor_text(self, call: cst.Call) -> str:
        node = backward_tensor(self.context, call) or call
        text = self.context.code_for(node).strip()
        return text if len(text) <= 40 else text[:37] + "..."


def _loop_line(loop: cst.For) -> Line:
    """The single ``x.backward()`` line of a loop :meth:`DoubleBackward._loop_backward` accepted."""
    stmt = loop.body.body[0]
    assert isinstance(stmt, cst.SimpleStatementLine)
    return Line(stmt, stmt.body[0])


def _remove(line: Line) -> Remove:
    return Remove(line.small if line.small is not None else line.stmt)


def _target_names(target: cst.BaseExpression) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    return []


def _components(run: List[_Event], flow: GraphFlow) -> List[List[_Event]]:
    """Group backward calls whose losses share a graph origin (transitively)."""
    parent = list(range(len(run)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    origins = [_event_origins(e, flow) for e in run]
    for i in range(len(run)):
        for j in range(i + 1, len(run)):
            if origins[i] & origins[j]:
                parent[find(i)] = find(j)
    groups: Dict[int, List[_Event]] = {}
    for i, event in enumerate(run):
        groups.setdefault(find(i), []).append(event)
    return list(groups.values())


def _event_origins(event: _Event, flow: GraphFlow) -> Origins:
    if event.loop is not None:
        return flow.containers.get(event.loop, (frozenset(), False))[0]
    return flow.origins(event.call) if event.call is not None else frozenset()


def _has_gradient(call: cst.Call, function_form: bool) -> bool:
    positional = [a for a in call.args if a.keyword is None]
    if not function_form:
        return bool(positional) or keyword(call, "gradient") is not None
    return len(positional) > 1 or keyword(call, "grad_tensors") is not None


def _has_forward_call(node: cst.CSTNode) -> bool:
    """A call other than a tensor method (``model(x)``, ``criterion(out, y)``)."""
    for call in iter_calls(node):
        mc = method_call(call)
        if mc is None or mc[1] not in PASS_METHODS:
            return True
    return False


def _touches_grad(node: cst.CSTNode) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Attribute) and current.attr.value == "grad":
            return True
        stack.extend(_children(current))
    return False


def _operand(node: cst.BaseExpression, first: bool) -> cst.BaseExpression:
    bare = node.with_changes(lpar=(), rpar=()) if getattr(node, "lpar", None) else node
    if isinstance(bare, _ATOMS):
        return bare
    if isinstance(bare, cst.BinaryOperation):
        additive = isinstance(bare.operator, (cst.Add, cst.Subtract))
        # `a + (b - c)` is not `a + b - c` in floating point: keep grouping on the right.
        if first or not additive:
            return bare
    return bare.with_changes(lpar=(cst.LeftParen(),), rpar=(cst.RightParen(),))




def _forward_origins(context: RuleContext, trace: StepTrace, origins: Origins) -> Origins:
    """Origins made by a forward pass: not by constructing an object (``AcceleratorState()``,
    ``DataLoader(...)``, :attr:`OriginSite.constructs`); a module held in a capitalised attribute
    (``self.G(z)``) does run one."""
    kept = set()
    for origin in origins:
        site = trace.sites.get(origin)
        if site is not None and site.constructs:
            continue
        kept.add(origin)
    return frozenset(kept)
