"""The engine on one source: lossless fixes, suppression, per-file errors, fixpoint."""

from __future__ import annotations

import pytest

from autofix import engine
from autofix.types import Applicability, Options
from demo_rules import DEMO_RULES, InplaceReluStatement, RepeatedBackward

RULES = list(DEMO_RULES.values())
FIX = Options(fix=True)


def check(source: bytes, options: Options = FIX, rules=RULES):
    return engine.check_source(source, "t.py", rules, options)


@pytest.mark.parametrize(
    "source, expected",
    [
        pytest.param(b"y.relu_()\n", b"y = y.relu()\n", id="plain"),
        pytest.param(
            b"import torch\r\n\r\ny.relu_()  # why\r\nz = 1\r\n",
            b"import torch\r\n\r\ny = y.relu()  # why\r\nz = 1\r\n",
            id="CRLF line endings kept",
        ),
        pytest.param(
            b"\xef\xbb\xbfy.relu_()\nz = 1\n", b"\xef\xbb\xbfy = y.relu()\nz = 1\n", id="BOM kept"
        ),
        pytest.param(
            b"# -*- coding: latin-1 -*-\ns = '\xe9t\xe9'\ny.relu_()\n",
            b"# -*- coding: latin-1 -*-\ns = '\xe9t\xe9'\ny = y.relu()\n",
            id="PEP 263 latin-1 cookie and its bytes kept",
        ),
        pytest.param(
            b"if x:\n\ty.relu_()\n\tz  =  2   # spaced\n",
            b"if x:\n\ty = y.relu()\n\tz  =  2   # spaced\n",
            id="tabs and odd spacing kept",
        ),
        pytest.param(b"y.relu_()\nz = 1", b"y = y.relu()\nz = 1", id="no final newline kept"),
    ],
)
def test_fix_changes_only_the_fixed_text(source, expected):
    result = check(source)
    assert result.error is None
    assert result.fixed == expected
    assert result.applied_codes == ("AF901",)
    # A second run finds nothing left to fix and changes nothing.
    again = check(result.fixed)
    assert again.fixed == again.source and not again.findings


def test_report_only_run_does_not_fix():
    result = check(b"y.relu_()\n", Options(fix=False))
    assert [f.code for f in result.findings] == ["AF901"]
    assert result.fixed == result.source and not result.changed


def test_finding_positions_are_one_based_and_fix_is_rendered():
    result = check(b"import torch\n  \nif a:\n    y.relu_()\n")
    (finding,) = result.findings
    assert (finding.line, finding.column, finding.end_line, finding.end_column) == (4, 5, 4, 14)
    assert finding.fix.applicability is Applicability.SAFE
    assert "-    y.relu_()\n+    y = y.relu()\n" in finding.fix.diff
    assert finding.fix.diff.startswith("--- a/t.py\n+++ b/t.py\n")


@pytest.mark.parametrize(
    "line, suppressed",
    [
        pytest.param("y.relu_()  # autofix: ignore", True, id="bare ignore"),
        pytest.param("y.relu_()  # autofix: ignore[AF901]", True, id="ignore the code"),
        pytest.param("y.relu_()  # autofix: ignore[AF101, AF901]", True, id="ignore a list with the code"),
        pytest.param("y.relu_()  # autofix: ignore[AF902]", False, id="ignore another code"),
        pytest.param("y.relu_()  # noqa", False, id="noqa is not ours"),
    ],
)
def test_suppression_comment_on_the_finding_line(line, suppressed):
    result = check((line + "\n").encode())
    assert (not result.findings) is suppressed
    assert result.changed is not suppressed


def test_unsafe_fix_applies_only_when_asked():
    source = b"loss.backward(retain_graph=True)\nloss.backward()\n"
    safe_only = check(source)
    assert [f.fix.applicability for f in safe_only.findings] == [Applicability.UNSAFE]
    assert not safe_only.changed
    unsafe = check(source, Options(fix=True, unsafe_fixes=True))
    assert unsafe.fixed == b"loss.backward()\n"


@pytest.mark.parametrize(
    "source, message",
    [
        pytest.param(b"y.relu_(\n", "syntax error", id="syntax error"),
        pytest.param(b"y.relu_()\n\xff\xfe\n", "cannot decode", id="undecodable utf-8"),
        pytest.param(b"# coding: klingon\ny.relu_()\n", "cannot decode", id="unknown encoding"),
        pytest.param(b"y.relu_()\x00\n", "NUL byte", id="binary file"),
    ],
)
def test_bad_file_is_reported_and_left_unchanged(source, message):
    result = check(source)
    assert result.error is not None and message in result.error
    assert result.fixed == source
    assert not result.internal_error


def test_prefilter_skips_files_no_rule_can_fire_on():
    result = check(b"def f(:\n")  # a syntax error, but no trigger word: never parsed
    assert result.skipped_by_prefilter and result.error is None


def test_a_crashing_rule_is_an_internal_error_for_that_file():
    class Crashes(InplaceReluStatement):
        CODE = "AF999"

        def check(self):
            raise ZeroDivisionError("boom")

    result = check(b"y.relu_()\n", rules=[Crashes])
    assert result.internal_error and "AF999 crashed: ZeroDivisionError: boom" in result.error
    assert result.fixed == result.source


def test_several_fixes_in_one_file_reach_a_fixpoint():
    source = b"a.relu_()\nb.relu_(); c = 1\nif x:\n    d.relu_()\n"
    result = check(source)
    assert result.fixed == b"a = a.relu()\nb = b.relu(); c = 1\nif x:\n    d = d.relu()\n"
    assert len(result.findings) == 3


def test_removing_the_only_statement_of_a_block_leaves_pass():
    result = check(b"if x:\n    loss.backward(retain_graph=True)\n", Options(unsafe_fixes=True))
    assert result.fixed == b"if x:\n    pass\n"


def test_text_edits_describe_the_fix():
    result = check(b"a = 1\ny.relu_()\nb = 2\n")
    (edit,) = result.findings[0].fix.edits
    assert (edit.start_line, edit.end_line, edit.new_text) == (2, 3, "y = y.relu()\n")


def test_text_edits_far_into_a_file_keep_its_line_numbers():
    from autofix.engine import text_edits

    old = "".join(f"x{i} = {i}\n" for i in range(300))
    new = old.replace("x200 = 200\n", "x200 = 0\nextra = 1\n").replace("x5 = 5\n", "")
    edits = text_edits(old, new)
    assert [(e.start_line, e.end_line, e.new_text) for e in edits] == [
        (6, 7, ""),
        (201, 202, "x200 = 0\nextra = 1\n"),
    ]


def test_rule_fix_kinds_are_declared_or_read_from_the_module():
    assert RepeatedBackward.fix_applicabilities() == (Applicability.UNSAFE,)
    assert DEMO_RULES["AF903"].fix_applicabilities() == ()


def test_context_walk_matches_libcst_without_layout():
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    from autofix.rule import RuleContext
    from test_names import LAYOUT

    source = "import torch\nclass M:\n    def f(self, x):\n        return [y.relu_() for y in x if y]  # c\n"
    module = cst.parse_module(source)
    context = RuleContext(MetadataWrapper(module, unsafe_skip_copy=True), "t.py")

    def slow(node):
        yield node
        for child in node.children:
            if not isinstance(child, LAYOUT):
                yield from slow(child)

    nodes = list(slow(module))
    assert list(context.walk(module)) == nodes
    assert all(list(context.children(n)) == [c for c in n.children if not isinstance(c, LAYOUT)] for n in nodes)
    # Pruned types are yielded but not entered.
    pruned = list(context.walk(module, prune=(cst.FunctionDef,)))
    assert any(isinstance(n, cst.FunctionDef) for n in pruned)
    assert not any(isinstance(n, cst.Return) for n in pruned)


def test_deeply_nested_calls_are_analysed_in_linear_time():
    # Each call's arguments used to be evaluated twice, so f(g(h(...))) cost
    # 2^depth: 18 levels took 15 s and 180 never finished. At 120 levels
    # the old code would not finish within any test timeout.
    from autofix import api

    depth = 120
    source = (
        "import torch\n\ndef step(model, x, opt):\n"
        f"    out = {'g(' * depth}model(x){')' * depth}\n"
        "    loss = out.sum()\n    loss.backward()\n    loss.backward()\n    opt.step()\n"
    ).encode()
    result = api.fix_source(source, "deep.py", Options(fix=False), None)
    assert result.error is None
    assert [f.code for f in result.findings] == ["AF101"]


def test_the_re_lint_after_fixes_skips_rules_whose_trigger_the_fixes_removed():
    runs = []

    class Counted(InplaceReluStatement):
        def check(self):
            runs.append(self.context.code)
            super().check()

    result = check(b"y.relu_()\nz = 1\n", rules=[Counted])
    assert result.fixed == b"y = y.relu()\nz = 1\n"
    assert runs == ["y.relu_()\nz = 1\n"]  # the fixed text has no ``relu_``: nothing to run again
