from __future__ import annotations

from autofix.rules.inplace_autograd import InplaceRule
from autofix.types import Applicability


class InplaceArgument(InplaceRule):
    """
    ## What it does
    Finds a `forward` (or a helper it calls) that writes in place to a tensor
    its caller passed in, where autograd itself has no objection: `x.relu_()`,
    `x += noise`, `x.mul_(scale)`, `F.relu(x, inplace=True)`, `x[mask] = 0`
    or a module built with `inplace=True` applied to an argument, or to a view
    of one.

    This rule is **off by default**. It runs only when selected by its exact
    code or name: `--select AF107` or `select = ["AF107"]` in
    `[tool.autofix]`. `ALL` and prefixes such as `AF` or `AF1` do not select
    it, as ruff does with its opt-in rules: in mature libraries a forward
    that updates its input in place is usually deliberate (a cache, a
    memory-saving residual), and reporting every one would drown the bugs.

    Where autograd does object (the caller passes a leaf that requires grad,
    or a tensor an op saved for backward, and the rule can see that call),
    the write is reported by AF103 (`inplace-autograd`) instead.

    ## Why is this bad?
    The caller's tensor changes behind its back: a value it reads after the
    call, logs, or passes to a second module is no longer what it computed.
    The write is also one refactor away from autograd's errors: when a
    caller later hands in a leaf that requires grad (an input for a saliency
    map) backward raises `a leaf Variable that requires grad is being used in
    an in-place operation`, and when it hands in the output of `sigmoid`,
    `softmax` or an `nn.ReLU(inplace=True)` it raises `one of the variables
    needed for gradient computation has been modified by an inplace
    operation`.

    ## Example
    ```python
    class AddNoise(nn.Module):
        def forward(self, x):
            x += self.sigma * torch.randn_like(x)   # the caller's tensor
            return self.net(x)
    ```

    Use instead:
    ```python
    class AddNoise(nn.Module):
        def forward(self, x):
            x = x + self.sigma * torch.randn_like(x)
            return self.net(x)
    ```

    ## Fix safety
    The fix is the out-of-place form of the write, rebinding the local name
    (`x.relu_()` becomes `x = torch.relu(x)`, `x += y` becomes `x = x + y`,
    `F.relu(x, inplace=True)` loses `inplace=True`). What the function
    computes is unchanged, so gradients are identical; but the caller's
    tensor no longer changes, which some code relies on. The fix is therefore
    always unsafe (`--unsafe-fixes`). Writes through a view of an argument,
    and writes by a module built with `inplace=True`, are reported without a
    fix, and the message says why.

    ## References
    - [Autograd mechanics: in-place operations](https://pytorch.org/docs/stable/notes/autograd.html#in-place-operations-with-autograd)
    - [ruff: preview and opt-in rules](https://docs.astral.sh/ruff/preview/)
    """

    CODE = "AF107"
    NAME = "inplace-argument"
    SUMMARY = "a forward writes in place to a tensor its caller passed in (opt-in)"
    MESSAGE = "in-place {op} on `{target}`: {detail}"
    CALLER_ONLY = True
    OPT_IN = True
    FIXES = (Applicability.UNSAFE,)
