"""Property-based fuzzing of every rule and the fix loop.

On any program: no rule crashes, every fixed output compiles, fixing the fixed
output changes nothing, and a program without findings comes back
byte-identical. Programs come from hypothesmith (grammar- and LibCST-driven),
and from a strategy that splices training-code fragments (backward, zero_grad,
step, in-place ops, running totals, carried state…) into loops, functions and
generated code, so that the rules actually fire.

CI runs a bounded number of examples; ``benchmarks/fuzz.py`` runs many more and
saves what fails into ``tests/regressions/``, which
``test_regressions`` replays on every run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autofix import api
from autofix.types import FileResult, Options

REGRESSIONS = Path(__file__).resolve().parent / "regressions"
# ALL + unsafe fixes: the widest set of rules and edits; safe-only is checked too.
OPTION_SETS = (
    Options(select=("ALL",), unsafe_fixes=True),
    Options(select=("ALL",), unsafe_fixes=False),
)
CI = settings(
    deadline=None,
    max_examples=int(os.environ.get("AUTOFIX_FUZZ_EXAMPLES", "60")),
    suppress_health_check=list(HealthCheck),
    database=None,
)


# --------------------------------------------------------------------------- the property


def check_program(source: str, path: str = "fuzz.py") -> None:
    """Assert every fuzz property of ``source``; raises AssertionError with the reason."""
    data = source.encode("utf-8")
    for options in OPTION_SETS:
        result = api.fix_source(data, path, options)
        _check_result(data, result, path, options)


def _check_result(data: bytes, result: FileResult, path: str, options: Options) -> None:
    error = result.error or ""
    assert not error.startswith("internal error"), error
    assert result.source == data
    if result.error is not None:
        assert result.fixed == data, "a file with an error must come back unchanged"
        return
    if not result.findings:
        assert result.fixed == data, "no finding, yet the file changed"
        return
    if result.fixed == data:
        return
    fixed = result.fixed.decode("utf-8")
    compile(fixed, path, "exec", dont_inherit=True)
    again = api.fix_source(result.fixed, path, options)
    assert not (again.error or "").startswith("internal error"), again.error
    assert again.fixed == result.fixed, "a second run changed the fixed output"


# --------------------------------------------------------------------------- strategies

_NAMES = st.sampled_from(["x", "h", "loss", "out", "total", "state", "self.hidden", "y"])

_STATEMENTS = [
    "loss = criterion(model(x), y)",
    "out = model(x)",
    "loss = out.sum()",
    "loss.backward()",
    "loss.backward(retain_graph=True)",
    "(loss + aux).backward()",
    "loss2 = criterion(out, y)\nloss2.backward()",
    "optimizer.zero_grad()",
    "optimizer.zero_grad(set_to_none=True)",
    "model.zero_grad()",
    "optimizer.step()",
    "scaler.scale(loss).backward()",
    "scaler.step(optimizer)",
    "scheduler.step()",
    "x.relu_()",
    "x = x.sigmoid_()",
    "x.add_(1)",
    "x += y",
    "x *= 2",
    "y = F.relu(x, inplace=True)",
    "act = nn.ReLU(inplace=True)",
    "total_loss += loss",
    "total_loss = total_loss + loss",
    "running += loss.item()",
    "h = rnn(x, h)",
    "h, c = lstm(x, (h, c))",
    "h = h.detach()",
    "self.hidden = self.cell(x, self.hidden)",
    "x = x.detach()",
    "w.data.mul_(0.9)",
    "with torch.no_grad():\n    w.add_(g)",
    "with torch.no_grad():\n    x.relu_()",
    "if i % 4 == 0:\n    optimizer.step()\n    optimizer.zero_grad()",
    "if step % accum == 0:\n    optimizer.step()",
    "del loss",
    "print(total_loss)",
    "return loss",
    "pass",
]
_statement = st.sampled_from(_STATEMENTS)


def _indent(block: str, by: str) -> str:
    return "".join(by + line if line.strip() else line for line in block.splitlines(keepends=True))


@st.composite
def training_fragment(draw) -> str:
    body: List[str] = draw(st.lists(_statement, min_size=1, max_size=10))
    text = "\n".join(s for s in body if s != "return loss") + "\n"
    header = draw(
        st.sampled_from(
            [
                "for x, y in loader:\n",
                "for i, (x, y) in enumerate(loader):\n",
                "for epoch in range(3):\n    for x, y in loader:\n",
                "while True:\n",
                "",
            ]
        )
    )
    depth = header.count(":\n")
    loop = header + (_indent(text, "    " * depth) if depth else text)
    wrapper = draw(st.sampled_from(["module", "function", "method"]))
    prologue = draw(st.sampled_from(["", "total_loss = 0\n", "h = torch.zeros(3)\n", "optimizer.zero_grad()\n"]))
    epilogue = draw(st.sampled_from(["", "return loss\n", "print(total_loss)\n", "optimizer.step()\n"]))
    if wrapper == "module":
        return "import torch\nimport torch.nn.functional as F\n" + prologue + loop + epilogue.replace("return loss\n", "")
    inner = prologue + loop + epilogue
    if wrapper == "function":
        return "import torch\n\ndef train(model, optimizer, loader, criterion):\n" + _indent(inner, "    ")
    return (
        "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n" + _indent(inner, "        ")
    )


def _compiles(source: str) -> bool:
    try:
        compile(source, "fuzz.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


@st.composite
def spliced_program(draw, generated) -> str:
    """Generated code around a training fragment: before it, after it, or both."""
    fragment = draw(training_fragment())
    before = draw(generated)
    after = draw(generated)
    where = draw(st.sampled_from(["before", "after", "both"]))
    parts = [before if where != "after" else "", fragment, after if where != "before" else ""]
    source = "".join(p if p.endswith("\n") or not p else p + "\n" for p in parts)
    return source if _compiles(source) else fragment


# --------------------------------------------------------------------------- tests


@CI
@given(training_fragment())
def test_training_fragments(source):
    check_program(source)


@CI
@given(spliced_program(hypothesmith.from_grammar()))
def test_fragments_spliced_into_grammar_programs(source):
    check_program(source)


@settings(CI, max_examples=max(10, CI.max_examples // 3))
@given(hypothesmith.from_node())
def test_libcst_generated_programs(source):
    check_program(source)


@settings(CI, max_examples=max(10, CI.max_examples // 3))
@given(hypothesmith.from_grammar())
def test_grammar_generated_programs(source):
    check_program(source)


def regression_cases() -> List[Path]:
    return sorted(REGRESSIONS.glob("*.py"))


@pytest.mark.parametrize("case", regression_cases(), ids=lambda p: p.stem)
def test_regressions(case):
    check_program(case.read_bytes().decode("utf-8"), case.name)
