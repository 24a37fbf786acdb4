"""AF106: ``retain_graph=True`` that nothing re-uses, or that hides carried state."""

from __future__ import annotations

import ast
from typing import List, Optional, Sequence, Tuple

import libcst as cst

from autofix.analysis.names import children
from autofix.analysis.retain import CARRIED, NEEDLESS, Flag, Retained, may_retain_graph, retained_calls
from autofix.rule import Edit, Fix, Replace, Report, Rule
from autofix.rules.carried_state import CarriedState
from autofix.types import Applicability, Expectation


class RetainGraph(Rule):
    """
    ## What it does
    Finds `backward(retain_graph=True)` and `torch.autograd.grad(...,
    retain_graph=True)` calls whose kept graph nothing walks again, and
    `retain_graph=True` used to keep a loop that carries state from one
    iteration into the next from failing.

    A flag is reported as needless only when no other backward or gradient
    call in the function can reach the graph (another backward of the same
    forward pass, a later `autograd.grad`), the function is first-order (no
    `create_graph=True`), no part of the graph leaves the function (returned,
    stored on `self` or in an outside container, handed to a helper that may
    keep it), no part of it came in on an attribute that holds a graph made
    elsewhere (`self.fake = fake` in `forward()`, read by `backward_D()` and
    then by `backward_G()`: another method of the step may walk it again; an
    attribute the file never sets, inherited from a class in another file,
    counts as one), and, in a loop, each iteration builds its graph anew. The flag
    is recognised written out, through a variable assigned `True` once, and
    through a `**kwargs` dict holding `retain_graph=True`.

    ## Why is this bad?
    `retain_graph=True` tells autograd not to free the buffers it saved for
    the backward pass. With no second pass, that is memory held for nothing:
    every activation of the forward pass stays alive until the loss variable
    is overwritten, which raises the peak memory of each step (on a GPU, this
    is the difference between a batch that fits and `CUDA out of memory`).
    It is usually a band-aid: added once to silence `Trying to backward
    through the graph a second time`, and kept after the cause went away.

    Where the cause is still there, the band-aid is worse. A hidden state
    carried from one iteration into the next links every iteration's graph
    to all the earlier ones; with the graphs retained, each `backward()`
    walks back through the whole history, so time and memory grow with every
    step (and once `optimizer.step()` has changed the weights in place, the
    old graph fails anyway). Detaching the state each iteration cuts the
    history and makes the flag unnecessary.

    Two losses of one forward pass back-propagated one after the other
    (`loss1.backward(retain_graph=True); loss2.backward()`) do need the
    flag; that shape is AF101's (back-propagate their sum once), and AF106
    does not report it.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()
    ```

    Use instead:
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ```

    With carried state:
    ```python
    for x, y in chunks:
        out, hidden = rnn(x, hidden)
        loss = criterion(out, y)
        loss.backward(retain_graph=True)
        optimizer.step()
    ```

    Use instead:
    ```python
    for x, y in chunks:
        hidden = hidden.detach()
        out, hidden = rnn(x, hidden)
        loss = criterion(out, y)
        loss.backward()
        optimizer.step()
    ```

    Not reported: a GAN whose generator loss goes through the same
    discriminator output, gradient penalties and other double backward with
    `create_graph=True`, meta-learning, Hessian-vector products, one
    `autograd.grad` per output of one graph, losses through a shared trunk
    back-propagated one by one, truncated BPTT that re-uses its last steps,
    and any graph that leaves the function, where a later use cannot be
    ruled out.

    ## Fix safety
    Dropping a needless flag is safe: the gradients are the same, and the
    saved buffers are freed as soon as the backward pass is done. The flag
    is removed from the call, or from the `**kwargs` dict when only this
    call reads it.

    For carried state, the fix detaches the state where each iteration starts
    using it (AF102's fix) and drops the flag. This is unsafe: the gradients
    change on purpose, from back-propagation through all earlier iterations
    to truncated back-propagation through time.

    ## Runtime evidence
    With `autofix --run CMD` the doctor records, for each backward called with
    `retain_graph=True` in the first steps, whether a later backward of the
    same step went through the graph it kept. One that nobody used is this
    rule's needless flag, reported at the call and fixed by dropping the flag;
    the verifier then shows the saved-tensor memory the flag kept alive.

    ## References
    - [Autograd mechanics: saved tensors](https://pytorch.org/docs/stable/notes/autograd.html#saved-tensors)
    - [`torch.Tensor.backward`: `retain_graph`](https://pytorch.org/docs/stable/generated/torch.Tensor.backward.html)
    - [`torch.autograd.grad`](https://pytorch.org/docs/stable/generated/torch.autograd.grad.html)
    """

    CODE = "AF106"
    NAME = "retain-graph"
    SUMMARY = "`retain_graph=True` that nothing re-uses, or that hides state carried across iterations"
    MESSAGE = "retain_graph=True keeps a graph that no later backward() uses"
    TRIGGERS = ("retain_graph",)
    # Dropping a needless flag: identical gradients. With carried state, the
    # original's graph grows (or it fails once a step changed the weights).
    EXPECTATION = Expectation.REPAIRED
    FIXES = (Applicability.SAFE, Applicability.UNSAFE)

    @classmethod
    def may_fire_in(cls, tree: ast.Module) -> bool:
        return may_retain_graph(tree)

    def check(self) -> None:
        for retained in retained_calls(self.context):
            if retained.verdict == NEEDLESS:
                self._needless(retained)
            elif retained.verdict == CARRIED:
                self._carried(retained)

    def _needless(self, retained: Retained) -> None:
        tensor = self._tensor_text(retained)
        edit = _drop_flag(retained.flag, retained.call)
        message = (
            f"retain_graph=True keeps the graph of `{tensor}` alive after this backward, but nothing "
            "back-propagates through it again: its saved activations stay in memory for nothing; drop the flag"
        )
        if edit is None:
            name = self.context.code_for(retained.flag.arg.value).strip()
            message += f" (no fix: `**{name}` is passed to other calls too; remove its retain_graph entry where it is not needed)"
            self.report(retained.flag.arg, message)
            return
        self.report(retained.flag.arg, message, fix=Fix.safe("Drop retain_graph=True", edit))

    def _carried(self, retained: Retained) -> None:
        names = ", ".join(f"`{n}`" for n in retained.carried)
        message = (
            f"retain_graph=True keeps this loop running while {names} carries each iteration's graph into the next: "
            "every backward() walks back through all earlier iterations, so time and memory grow with each step; "
            "detach the state at the start of each iteration and drop the flag (truncated BPTT)"
        )
        found = self._detach_edits(retained)
        if found is None:
            return  # AF102 does not see a graph carried round this loop: leave it alone
        detach = found[1]
        drop = _drop_flag(retained.flag, retained.call)
        if detach is None or drop is None:
            message += " (no fix: the carried state's kind is unknown here; detach it where each iteration starts)"
            self.report(retained.flag.arg, message)
            return
        title = "Detach " + names + " at the start of each iteration and drop retain_graph=True"
        self.report(retained.flag.arg, message, fix=Fix.unsafe(title, *detach, drop))

    def _detach_edits(self, retained: Retained) -> Optional[Tuple[bool, Optional[Tuple[Edit, ...]]]]:
        """Whether AF102 reports carried state in the loop, and its fix there (None: it has none)."""
        reports: Sequence[Report] = self.context.fact("AF106.carried_state", self._carried_state_reports)
        loop = retained.loop
        if loop is None:
            return None
        inside = {id(n) for n in _nodes(loop)}
        mine = [report for report in reports if id(report.node) in inside]
        if not mine:
            return None
        edits: List[Edit] = []
        for report in mine:
            if report.fix is None:
                return True, None
            edits.extend(report.fix.edits)
        return True, tuple(edits)

    def _carried_state_reports(self) -> Sequence[Report]:
        # AF102's own findings and fixes, whether or not AF102 is selected.
        rule = CarriedState(self.context)
        rule.check()
        return rule.reports

    def _tensor_text(self, retained: Retained) -> str:
        node = retained.tensor if retained.tensor is not None else retained.call
        text = self.context.code_for(node).strip()
        return text if len(text) <= 40 else text[:37] + "..."


def _drop_flag(flag: Flag, call: cst.Call) -> Optional[Edit]:
    if flag.kind in ("keyword", "variable"):
        return Replace(call, call.with_changes(args=_without(call.args, flag.arg)))
    holder = flag.holder
    if isinstance(holder, cst.Dict):
        elements = [e for e in holder.elements if not _is_key(e, "retain_graph")]
        if elements and elements[-1] is not holder.elements[-1]:
            elements[-1] = elements[-1].with_changes(comma=holder.elements[-1].comma)
        return Replace(holder, holder.with_changes(elements=elements))
    if isinstance(holder, cst.Call):
        arg = next(a for a in holder.args if a.keyword is not None and a.keyword.value == "retain_graph")
        return Replace(holder, holder.with_changes(args=_without(holder.args, arg)))
    return None


def _without(args: Sequence[cst.Arg], arg: cst.Arg) -> List[cst.Arg]:
    kept = [a for a in args if a is not arg]
    if kept and args[-1] is arg:
        # The new last argument takes the removed one's trailing comma (or its absence).
        kept[-1] = kept[-1].with_changes(comma=arg.comma)
    return kept


def _is_key(element: cst.BaseDictElement, key: str) -> bool:
    return (
        isinstance(element, cst.DictElement)
        and isinstance(element.key, cst.SimpleString)
        and element.key.evaluated_value == key
    )


def _nodes(node: cst.CSTNode) -> List[cst.CSTNode]:
    found = [node]
    index = 0
    while index < len(found):
        found.extend(children(found[index]))
        index += 1
    return found
