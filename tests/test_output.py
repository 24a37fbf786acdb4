"""Output formats and exit codes on :class:`~autofix.report.Outcome` values."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace

import pytest

import demo_rules
from autofix import engine
from autofix.output import emit
from autofix.output import github, sarif
from autofix.report import Mode, Outcome
from autofix.types import FileResult, Options, Verification

SOURCE = b"import torch\ny.relu_()\nloss.backward(retain_graph=True)\nopt.zero_grad()\n"


@pytest.fixture(autouse=True)
def _demo(monkeypatch):
    demo_rules.install(monkeypatch)


def outcome(mode=Mode.CHECK, results=None, options=None) -> Outcome:
    options = options or Options(fix=True)
    if results is None:
        rules = list(demo_rules.DEMO_RULES.values())
        results = [engine.check_source(SOURCE, "pkg/a b.py", rules, options)]
    return Outcome(mode, results, options)


def render(fmt, out_come, color=False):
    out, err = io.StringIO(), io.StringIO()
    emit(fmt, out_come, out, err, color=color)
    return out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- SARIF

_REGION_KEYS = {"startLine", "startColumn", "endLine", "endColumn"}


def assert_valid_sarif(doc):
    """Structural check of SARIF 2.1.0 as GitHub code scanning reads it.

    The official JSON schema is not available offline here, so this checks the
    properties the schema requires plus the ones GitHub's upload documents
    ("SARIF support for code scanning"): tool.driver.name and rules with ids,
    results with ruleId, message.text and physical locations with a region.
    """
    assert doc["version"] == "2.1.0"
    assert doc["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(doc["runs"], list) and doc["runs"]
    for run in doc["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        ids = [rule["id"] for rule in driver.get("rules", [])]
        assert len(ids) == len(set(ids))
        for rule in driver.get("rules", []):
            assert rule["shortDescription"]["text"]
            assert rule["help"]["text"] and "markdown" in rule["help"]
            assert rule["defaultConfiguration"]["level"] in {"none", "note", "warning", "error"}
        for invocation in run.get("invocations", []):
            assert isinstance(invocation["executionSuccessful"], bool)
            for note in invocation.get("toolExecutionNotifications", []):
                assert note["message"]["text"]
        for result in run["results"]:
            assert result["message"]["text"]
            assert result["level"] in {"none", "note", "warning", "error"}
            assert result["ruleId"] in ids
            assert ids[result["ruleIndex"]] == result["ruleId"]
            for location in result["locations"]:
                physical = location["physicalLocation"]
                uri = physical["artifactLocation"]["uri"]
                assert " " not in uri and "\\" not in uri
                region = physical["region"]
                assert set(region) <= _REGION_KEYS and region["startLine"] >= 1
                assert all(isinstance(v, int) and v >= 1 for v in region.values())
            for fix in result.get("fixes", []):
                assert fix["description"]["text"]
                for change in fix["artifactChanges"]:
                    assert change["artifactLocation"]["uri"]
                    assert change["replacements"]
                    for replacement in change["replacements"]:
                        assert set(replacement["deletedRegion"]) <= _REGION_KEYS
                        if "insertedContent" in replacement:
                            assert isinstance(replacement["insertedContent"]["text"], str)


def test_sarif_document():
    out, err = render("sarif", outcome())
    doc = json.loads(out)
    assert_valid_sarif(doc)
    assert err == ""
    results = doc["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["AF901", "AF902", "AF903"]
    relu = results[0]
    location = relu["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "pkg/a%20b.py"}
    assert location["region"] == {"startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 10}
    (replacement,) = relu["fixes"][0]["artifactChanges"][0]["replacements"]
    assert replacement == {
        "deletedRegion": {"startLine": 2, "startColumn": 1, "endLine": 3, "endColumn": 1},
        "insertedContent": {"text": "y = y.relu()\n"},
    }
    # An unsafe fix is described as one; a finding without a fix has no "fixes".
    assert "unsafe" in results[1]["fixes"][0]["description"]["text"]
    assert "fixes" not in results[2]
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["help"]["text"] == demo_rules.InplaceReluStatement.documentation()


def test_sarif_replacement_at_the_end_of_a_file_stays_inside_it():
    lines = ["a\n", "b\n"]
    assert sarif._region(3, 0, 3, 0, lines) == {"startLine": 2, "startColumn": 2, "endLine": 2, "endColumn": 2}


def test_sarif_reports_file_errors_as_notifications():
    broken = FileResult("x.py", b"(", b"(", error="syntax error at 1:2: bad")
    crashed = FileResult("y.py", b"", b"", error="internal error: boom")
    doc = json.loads(render("sarif", outcome(results=[broken, crashed]))[0])
    assert_valid_sarif(doc)
    invocation = doc["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert [n["message"]["text"] for n in invocation["toolExecutionNotifications"]] == [
        "syntax error at 1:2: bad",
        "internal error: boom",
    ]


# --------------------------------------------------------------------------- GitHub


def test_github_annotations_escape_what_the_runner_splits_on():
    (result,) = outcome().results
    finding = replace(result.findings[0], path="dir,1/a:b.py", message="50% of\nthe graph")
    assert github.annotation(finding) == (
        "::warning file=dir%2C1/a%3Ab.py,line=2,col=1,endLine=2,endColumn=10,"
        "title=AF901 demo-inplace-relu::50%25 of%0Athe graph"
    )


def test_github_lines_match_the_workflow_command_syntax():
    out, err = render("github", outcome())
    pattern = re.compile(r"^::(error|warning) file=[^,:]+,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=AF\d{3} [a-z-]+::.+$")
    lines = out.splitlines()
    assert len(lines) == 3 and all(pattern.match(line) for line in lines)
    assert err == ""


# --------------------------------------------------------------------------- JSON


def test_json_document_keys_and_types():
    verified = replace(outcome().results[0], verification=Verification("repaired", 3, 2.9e-08, "ok"))
    doc = json.loads(render("json", outcome(results=[verified]))[0])
    assert doc["version"] == 1
    (file,) = doc["files"]
    assert file == {
        "path": "pkg/a b.py",
        "changed": True,
        "error": None,
        "verification": {"verdict": "repaired", "steps_compared": 3, "max_abs_diff": 2.9e-08, "detail": "ok"},
    }
    kinds = [(f["code"], f["fix"] and f["fix"]["applicability"]) for f in doc["findings"]]
    assert kinds == [("AF901", "safe"), ("AF902", "unsafe"), ("AF903", None)]
    for finding in doc["findings"]:
        assert all(isinstance(finding[k], int) and finding[k] >= 1 for k in ("line", "column", "end_line", "end_column"))


# --------------------------------------------------------------------------- text


def test_text_report_mode_goes_to_stdout():
    out, err = render("text", outcome())
    assert err == ""
    assert out.splitlines()[0] == "pkg/a b.py:2:1: AF901 [*] in-place relu_() on a tensor autograd may need"
    assert "Found 3 findings in 1 file (AF901: 1, AF902: 1, AF903: 1)." in out


def test_text_diff_mode_keeps_stdout_for_the_diff():
    out, err = render("text", outcome(Mode.DIFF))
    assert out.startswith("--- a/pkg/a b.py\n+++ b/pkg/a b.py\n")
    assert "AF901" not in out
    assert "AF902" in err and "AF903" in err  # not fixed: listed on stderr
    assert "Would fix 1 finding: 1 file changed, 1 insertion(+), 1 deletion(-)." in err


def test_text_colour_only_when_asked():
    out, _ = render("text", outcome(), color=True)
    assert "\x1b[1;31mAF901\x1b[0m" in out
    assert "\x1b[" not in render("text", outcome())[0]


# --------------------------------------------------------------------------- exit codes


@pytest.mark.parametrize(
    "results, code",
    [
        pytest.param([FileResult("a.py", b"x", b"x")], 0, id="clean"),
        pytest.param([FileResult("a.py", b"x", b"y")], 1, id="changed"),
        pytest.param([FileResult("a.py", None, None, error="cannot read file")], 1, id="per-file error"),
        pytest.param([FileResult("a.py", b"x", b"x", error="internal error: bug")], 2, id="internal error"),
        pytest.param(
            [FileResult("a.py", b"x", b"y", verification=Verification("diverged"))], 1, id="failed verification"
        ),
    ],
)
def test_return_codes(results, code):
    for mode in Mode:
        assert Outcome(mode, results).return_code == code


def test_write_exits_0_when_everything_was_fixed_unless_asked():
    rules = list(demo_rules.DEMO_RULES.values())
    only_safe = engine.check_source(b"import torch\ny.relu_()\n", "pkg/a b.py", rules, Options(fix=True))
    fixed = outcome(Mode.WRITE, [only_safe])
    fixed.written = ("pkg/a b.py",)
    assert not fixed.remaining() and fixed.return_code == 0
    fixed.exit_non_zero_on_fix = True
    assert fixed.return_code == 1
    left = outcome(Mode.WRITE)  # the unsafe fix was not applied: a finding remains
    left.written = ("pkg/a b.py",)
    assert left.remaining() and left.return_code == 1
    left.exit_zero = True
    assert left.return_code == 0


def test_findings_make_exit_1_in_every_mode():
    for mode in Mode:
        assert outcome(mode).return_code == 1


def test_one_severity_per_rule_in_sarif_github_and_the_editor(monkeypatch):
    from lsprotocol import types as lsp

    from autofix.lsp.convert import Document
    from autofix.lsp.server import to_diagnostic
    from autofix.report import severity

    (result,) = outcome().results
    doc = sarif.document(outcome())
    levels = {rule["id"]: rule["defaultConfiguration"]["level"] for rule in doc["runs"][0]["tool"]["driver"]["rules"]}
    for code in ("AF101", "AF103", "AF104", "AF901"):
        finding = replace(result.findings[0], code=code)
        expected = "error" if code in ("AF101", "AF103") else "warning"
        assert severity(code) == expected
        assert github.annotation(finding).startswith(f"::{expected} ")
        diagnostic = to_diagnostic(finding, Document(SOURCE.decode(), "utf-16"), 1)
        assert diagnostic.severity == (lsp.DiagnosticSeverity.Error if expected == "error" else lsp.DiagnosticSeverity.Warning)
    assert levels == {code: severity(code) for code in levels}
    assert all(r["level"] == severity(r["ruleId"]) for r in doc["runs"][0]["results"])
