"""Every corpus case: golden diagnostics, golden fix, idempotence, compiles."""

from __future__ import annotations

import pytest

from autofix.api import fix_source
from corpus_cases import cases, render_findings

ALL_CASES = cases()


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_corpus_case(case, update_goldens):
    source = case.source.read_bytes()
    options = case.options()
    result = fix_source(source, str(case.source.relative_to(case.source.parents[2])), options)
    assert result.error is None, result.error

    if case.negative:
        assert render_findings(result.findings) == "", "a negative case must produce no finding"
        assert result.fixed == source
        return

    diagnostics = render_findings(result.findings)
    if update_goldens:
        case.diagnostics_path.write_text(diagnostics, encoding="utf-8")
        if result.changed:
            case.fixed_path.write_bytes(result.fixed)
        elif case.fixed_path.exists():
            case.fixed_path.unlink()
    assert diagnostics, "a positive case must produce a finding (name negatives ok_*)"
    assert case.diagnostics_path.read_text(encoding="utf-8") == diagnostics

    if result.changed:
        assert case.fixed_path.exists(), f"missing golden {case.fixed_path.name}"
        assert result.fixed == case.fixed_path.read_bytes()
        compile(result.fixed, str(case.fixed_path), "exec")
        again = fix_source(result.fixed, str(case.fixed_path), options)
        assert again.error is None
        assert again.fixed == result.fixed, "applying the fix a second time changed the file"
        assert not [f for f in again.findings if f.fix is not None and (options.unsafe_fixes or f.fix.applicability.value == "safe")]
    else:
        assert not case.fixed_path.exists(), "stale .fixed.py golden: nothing is fixed any more"
