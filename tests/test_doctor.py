"""The doctor (``autofix --run``): evidence → diagnoses → findings and fixes.

Diagnoses, merging and guided fixes are tested on synthetic evidence (fast);
real runs of ``corpus/doctor/`` cases and of the rule corpus are slow (each
runs the command once or twice, then the verifier three times).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from corpus_cases import cases

from autofix import cli
from autofix.types import PASSING_VERDICTS
from autofix.doctor import diagnose as dx
from autofix.doctor import merge
from autofix.doctor.fixes import guided_rule
from autofix.engine import check_source
from autofix.registry import select_rules
from autofix.types import Evidence, Finding, Location, Options

torch = pytest.importorskip("torch")

HERE = Path(__file__).resolve().parent
DOCTOR = HERE.parent / "corpus" / "doctor"
PYTHON = sys.executable


def _site(path, line, function="<module>", first_line=1):
    return {"file": str(path), "line": line, "function": function, "first_line": first_line}


# --------------------------------------------------------------------------- diagnoses


def test_carried_local_becomes_af102_with_a_detach_before_its_first_read(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(
        "import torch\n"
        "h = torch.zeros(3)\n"
        "for step in range(4):\n"
        "    out, h = model(x, h)\n"
        "    loss = out.sum()\n"
        "    loss.backward()\n"
    )
    failure = {
        "step": 1,
        "carriers": [{"name": "h", "where": _site(script, 6), "owner": None}],
        "freed_by": [{"site": _site(script, 6)}],
        "old_steps": [0],
    }
    [found] = dx.graph_freed(failure, {"site": _site(script, 6)}, 2, "Trying to backward through the graph a second time (or ...)")
    assert (found.code, found.line, found.names) == ("AF102", 4, ("h",))
    assert found.guided and found.guided.kind == "detach-carried" and found.guided.text == "out, h = model(x, h)"
    assert "step 2 raised" in found.evidence.message and "train.py:6" in found.evidence.message
    assert found.evidence.related[0].line == 6


def test_shared_graph_in_one_iteration_is_af101_at_the_second_backward(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("a.backward()\nb.backward()\n")
    # Carriers in the same step (the heads' outputs reach the freed backbone) do not make it AF102.
    carriers = [{"name": "pred", "where": _site(script, 2), "owner": None}]
    failure = {"step": 3, "carriers": carriers, "freed_by": [{"site": _site(script, 1)}], "old_steps": [3], "repeated_sites": [[str(script), 1]]}
    [found] = dx.graph_freed(failure, {"site": _site(script, 2)}, 4, "Trying to backward through the graph a second time")
    assert (found.code, found.line, set(found.lines)) == ("AF101", 2, {1, 2})
    assert found.message.endswith(")") and "(no fix:" in found.message


def test_a_value_written_before_it_is_read_carries_nothing(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(
        "h = c = None\n"
        "for step in range(4):\n"
        "    out, (h, c) = encoder(window, (h, c))\n"
        "    loss = head(out[-1]).sum()\n"
        "    loss.backward()\n"
    )
    failure = {"step": 1, "old_steps": [0], "freed_by": [{"site": _site(script, 5)}], "carriers": [
        {"name": name, "where": _site(script, 5), "owner": None} for name in ("out", "h", "c")
    ]}
    found = dx.graph_freed(failure, {"site": _site(script, 5)}, 2, "Trying to backward through the graph a second time")
    [joined] = found
    assert (joined.line, set(joined.names)) == (3, {"h", "c"})
    assert joined.guided and joined.guided.param("guards") == (True, True)


def test_af101_names_the_losses_a_static_finding_lists(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("a.backward()\ntorch.autograd.backward(b)\n")
    assert dx.backward_receivers(_site(script, 1), _site(script, 2)) == ("a", "b")


def test_growing_dict_entry_is_af105_at_the_accumulation(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("totals = {'a': 0.0}\nfor batch in data:\n    loss = f(batch)\n    for k, v in parts.items():\n        totals[k] += v\n")
    where = _site(script, 3)
    holders = [[{"name": "totals['a']", "where": where, "owner": {"kind": "dict", "name": "totals"}, "nodes": n, "traversed": False}] for n in (4, 8, 12, 16)]
    [found] = dx.leaks(holders)
    assert (found.code, found.line) == ("AF105", 5)
    assert found.guided and found.guided.kind == "detach-accumulated"
    assert "grew to 16 nodes over 4 steps" in found.evidence.message


def test_a_graph_every_backward_walks_again_is_no_af105(tmp_path):
    script = tmp_path / "t.py"
    script.write_text("for x in data:\n    total += x\n")
    holders = [[{"name": "total", "where": _site(script, 1), "owner": None, "nodes": n, "traversed": True}] for n in (4, 8, 12)]
    assert dx.leaks(holders, backward_grows=True) == []
    assert [d.code for d in dx.leaks(holders)] == ["AF105"]


def test_a_total_reset_every_few_batches_still_grows(tmp_path):
    holders = [[{"name": "running", "where": _site(tmp_path / "t.py", 1), "owner": None, "nodes": n}] for n in (4, 8, 12, 0, 4)]
    assert [name for name, _, _ in dx.growing_holders(holders)] == ["running"]


def test_flat_live_graph_is_no_leak(tmp_path):
    holders = [[{"name": "loss", "where": _site(tmp_path / "t.py", 1), "owner": None, "nodes": 7, "traversed": True}] for _ in range(5)]
    assert dx.growing_holders(holders) == []


def test_zero_grad_between_backward_and_step_is_af104(tmp_path):
    script = tmp_path / "train.py"
    evidence = {
        "steps": [{"step": 0, "site": _site(script, 9)}],
        "zero_grads": [{"step": 0, "after_backwards": 1, "site": _site(script, 8)}],
    }
    [found] = dx.invariant(evidence, 1, "step 1, parameter w: max abs diff 1")
    assert (found.code, found.line) == ("AF104", 8)
    assert "zero_grad() at" in found.evidence.message


def test_retained_graph_shared_in_one_step_is_af101(tmp_path):
    script = tmp_path / "train.py"
    evidence = {"backwards": [
        {"index": 0, "step": 0, "site": _site(script, 5), "retain": True, "nodes": 9, "shares_with": []},
        {"index": 1, "step": 0, "site": _site(script, 6), "retain": False, "nodes": 9, "shares_with": [0]},
    ]}
    [found] = dx.retained_shares(evidence)
    assert (found.code, found.line) == ("AF101", 6)
    assert dx.unused_retains(evidence) == []


def test_unused_retain_is_the_af106_extension_point(tmp_path):
    evidence = {"backwards": [{"index": 0, "step": 0, "site": _site(tmp_path / "t.py", 5), "retain": True, "nodes": 9, "shares_with": []}]}
    [(record, step)] = dx.unused_retains(evidence)
    assert record["index"] == 0 and step == 1


def test_inplace_record_names_the_op_and_rewrites_the_augassign(tmp_path):
    module = tmp_path / "blocks.py"
    module.write_text("def forward(self, x):\n    out = self.body(x)\n    out += x\n    return out\n")
    records = [{"op": "__iadd__", "site": _site(module, 3, "forward", 1), "made_by": "ReluBackward0"}]
    [found] = dx.inplace({"forward": [_site(module, 2)]}, records, [], 1, "one of the variables needed ...")
    assert (found.code, found.line) == ("AF103", 3)
    assert found.guided and found.guided.kind == "out-of-place-augassign"
    assert "ReluBackward0" in found.evidence.message and "blocks.py:2" in found.evidence.message


# --------------------------------------------------------------------------- output and merging


def _evidence():
    return Evidence("runtime", 2, 'step 2 raised "Trying to backward"; the graph was freed by the backward at t.py:7', (Location("t.py", 7),))


def test_full_message_puts_evidence_before_the_no_fix_clause():
    plain = Finding("t.py", "AF101", "double-backward", "msg", 1, 1, 1, 2, evidence=_evidence())
    assert plain.full_message == f"msg (at run time: {_evidence().message})"
    closing = Finding("t.py", "AF101", "double-backward", "msg (no fix: sum them)", 1, 1, 1, 2, evidence=_evidence())
    assert closing.full_message.endswith("(no fix: sum them)") and "(at run time:" in closing.full_message


def test_static_finding_on_the_same_spot_gets_the_evidence(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\nmodel = torch.nn.Linear(2, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\ntotal = 0\n"
                      "for x in torch.randn(4, 2):\n    loss = model(x).sum()\n    opt.zero_grad()\n    loss.backward()\n    opt.step()\n    total += loss\nprint(total)\n")
    options = Options()
    static = check_source(script.read_bytes(), str(script), select_rules(("AF",), ()), options)
    [finding] = [f for f in static.findings if f.code == "AF105"]
    diagnosis = dx.Diagnosis("AF105", str(script), finding.line, "runtime message", _evidence(), names=("total",))
    [result], runtime_only = merge([diagnosis], [static], [str(script)], options)
    assert runtime_only == 0
    [merged] = [f for f in result.findings if f.code == "AF105"]
    assert merged.evidence == _evidence() and merged.message == finding.message


def test_guided_fix_is_applied_once_where_the_static_rules_are_silent(tmp_path):
    module = tmp_path / "streaming.py"
    module.write_text(
        "import torch\n\n\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.state = None\n\n"
        "    def forward(self, x):\n        if self.state is None:\n            self.state = torch.zeros_like(x)\n        self.state = self.state + x\n        return self.state\n"
    )
    guided = dx.Guided("detach-carried", "if self.state is None:", (("names", ("self.state",)), ("kinds", ("tensor",)), ("guards", (True,))))
    diagnosis = dx.Diagnosis("AF102", str(module), 10, "`self.state` keeps the previous call's graph", _evidence(), guided=guided)
    result = check_source(module.read_bytes(), str(module), [*select_rules(("AF",), ()), guided_rule([diagnosis])], Options())
    fixed = result.fixed.decode()
    assert fixed.count("self.state = self.state.detach()") == 1
    assert "        if self.state is not None:\n            self.state = self.state.detach()\n        if self.state is None:" in fixed
    compile(fixed, "streaming.py", "exec")
    [finding] = [f for f in result.findings if f.code == "AF102"]
    assert finding.line == 10 and finding.fix is not None


def test_json_carries_the_evidence_object(tmp_path, capsys):
    from autofix.output import json as json_output
    from autofix.report import Mode, Outcome
    from autofix.types import FileResult

    finding = Finding("t.py", "AF102", "carried-state", "m", 3, 1, 3, 5, evidence=_evidence())
    document = json_output.document(Outcome(Mode.CHECK, [FileResult("t.py", b"", b"", (finding,))]))
    assert document["findings"][0]["evidence"] == {
        "kind": "runtime", "step": 2, "message": _evidence().message, "related": [{"path": "t.py", "line": 7}],
    }


def test_run_refuses_stdin_and_verify_cmd(capsys):
    assert cli.main(["--run", "python t.py", "--verify-cmd", "python t.py"]) == 2
    assert "--run" in capsys.readouterr().err


# --------------------------------------------------------------------------- real runs


def _doctor(folder: Path, tmp_path: Path, *flags: str, script: str = "train.py", fmt: str = "json"):
    work = tmp_path / folder.name
    shutil.copytree(folder, work, ignore=shutil.ignore_patterns("*.fixed.py", "*.diagnostics", "__pycache__"))
    cwd = os.getcwd()
    os.chdir(work)
    try:
        import io
        from contextlib import redirect_stderr, redirect_stdout

        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(["--run", f'"{PYTHON}" {script}', "--format", fmt, "--timeout", "120", "--device", "cpu", *flags])
    finally:
        os.chdir(cwd)
    return code, out.getvalue(), err.getvalue(), work


def test_unrelated_failure_gives_no_finding_and_its_traceback(tmp_path):
    code, out, err, _ = _doctor(DOCTOR / "unrelated_shape_mismatch", tmp_path)
    document = json.loads(out)
    assert code == 1 and document["findings"] == []
    [problem] = [f for f in document["files"] if f["error"]]
    assert "no rule explains" in problem["error"] and "mat1 and mat2 shapes cannot be multiplied" in problem["error"]
    assert 'train.py", line 12' in problem["error"]  # the user's line, not torch's frames
    assert "site-packages" not in problem["error"]


@pytest.mark.slow
def test_import_error_gives_no_finding(tmp_path):
    code, out, _, _ = _doctor(DOCTOR / "unrelated_import_error", tmp_path)
    document = json.loads(out)
    assert code == 1 and document["findings"] == []
    assert any("augmentations" in (f["error"] or "") for f in document["files"])


def _write_exit_code(document, *, unsafe):
    """``--write``'s exit code, as ruff's: 0 once every finding was fixed, 1 while any is left, and 1
    where a verification did not pass (the fix is not written: a failed verification, DESIGN.md)."""
    left = any(
        f["fix"] is None or (f["fix"]["applicability"] == "unsafe" and not unsafe) for f in document["findings"]
    )
    failed = any(
        f.get("verification") and f["verification"]["verdict"] not in PASSING_VERDICTS for f in document["files"]
    )
    return 1 if left or failed or any(f["error"] for f in document["files"]) else 0


_EXPECTED = {
    # case: (code, file, line, static rules report it too)
    "self_state_forward": ("AF102", "streaming.py", 14, True),  # the model-file check (issue 12) finds it statically too
    "sequential_inplace_residual": ("AF103", "blocks.py", 20, False),
    "helper_returns_float": ("AF105", "train.py", 20, True),
    "dict_accumulation": ("AF105", "train.py", 20, True),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(_EXPECTED))
def test_doctor_case_is_diagnosed_fixed_and_verified(case, tmp_path):
    code_, filename, line, static = _EXPECTED[case]
    folder = DOCTOR / case
    # The static rules alone: silent on this spot unless the table says otherwise.
    plain = check_source((folder / filename).read_bytes(), filename, select_rules(("AF",), ()), Options())
    assert any(f.code == code_ and f.line == line for f in plain.findings) is static
    code, out, err, work = _doctor(folder, tmp_path, "--write", "--unsafe-fixes", "--verify")
    document = json.loads(out)
    [finding] = [f for f in document["findings"] if f["code"] == code_]
    assert (os.path.basename(finding["path"]), finding["line"]) == (filename, line), document
    assert finding["evidence"]["kind"] == "runtime" and finding["evidence"]["step"] >= 1
    [entry] = [f for f in document["files"] if os.path.basename(f["path"]) == filename]
    assert entry["verification"]["verdict"] in ("identical", "repaired", "intended-change"), entry
    assert (work / filename).read_text() != (folder / filename).read_text()  # written
    assert code == _write_exit_code(document, unsafe=True)


@pytest.mark.slow
def test_clean_run_exits_zero(tmp_path):
    folder = tmp_path / "clean"
    folder.mkdir()
    (folder / "train.py").write_text(
        "import torch\ntorch.manual_seed(0)\nmodel = torch.nn.Linear(3, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for x in torch.randn(6, 3):\n    opt.zero_grad()\n    loss = model(x).pow(2).sum()\n    loss.backward()\n    opt.step()\n"
    )
    code, out, err, _ = _doctor(folder, tmp_path / "run")
    assert code == 0 and json.loads(out)["findings"] == []
    assert "no runtime problem observed" in err


@pytest.mark.slow
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
def test_doctor_on_cuda(tmp_path):
    work = tmp_path / "case"
    shutil.copytree(DOCTOR / "self_state_forward", work)
    cwd = os.getcwd()
    os.chdir(work)
    try:
        code = cli.main(["--run", f'"{PYTHON}" train.py', "--device", "cuda", "--format", "json", "--diff"])
    finally:
        os.chdir(cwd)
    assert code == 1


# --------------------------------------------------------------------------- the rule corpus


def _corpus_scripts():
    found = []
    for case in cases():
        if case.negative or not case.fixed_path.exists() or not re.fullmatch(r"AF10[1-6]", case.source.parent.name):
            continue
        found.append(pytest.param(case, id=case.id))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("case", _corpus_scripts())
def test_corpus_script_under_the_doctor(case, tmp_path):
    """Every corpus script whose original raises or leaks: the right rule at the right line, and a verified fix."""
    work = tmp_path / "case"
    work.mkdir()
    script = work / case.source.name
    shutil.copy(case.source, script)
    for sibling in case.source.parent.iterdir():
        if sibling.is_dir() and sibling.name != "__pycache__":  # helper modules a script imports (cross-file cases)
            shutil.copytree(sibling, work / sibling.name, ignore=shutil.ignore_patterns("__pycache__"))
    golden = [line.split(":", 2) for line in case.diagnostics_path.read_text().splitlines() if line.strip()]
    flags = ["--write", "--verify"] + (["--unsafe-fixes"] if case.options().unsafe_fixes else [])
    cwd = os.getcwd()
    os.chdir(work)
    try:
        import io
        from contextlib import redirect_stderr, redirect_stdout

        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(["--run", f'"{PYTHON}" {script.name}', "--format", "json", "--timeout", "120", "--device", "cpu",
                             "--select", ",".join(case.options().select), *flags, script.name])
    finally:
        os.chdir(cwd)
    document = json.loads(out.getvalue())
    with_evidence = [f for f in document["findings"] if f["evidence"]]
    if not with_evidence:
        # The original ran clean in its first steps, or failed where the doctor could tie no finding to it.
        pytest.skip("no finding carries runtime evidence: " + err.getvalue().strip()[:200])
    expected = {(int(line), rest.split()[0]) for line, _, rest in golden}
    for finding in with_evidence:
        assert (finding["line"], finding["code"]) in expected, (finding, expected)
    [entry] = document["files"]
    declared = re.search(r"^#\s*autofix-test:.*\bverdict=([\w-]+)", case.source.read_text(), re.MULTILINE)
    verdicts = (declared.group(1),) if declared else ("identical", "repaired", "intended-change")
    assert entry["verification"] is not None and entry["verification"]["verdict"] in verdicts, entry
    assert code == _write_exit_code(document, unsafe="--unsafe-fixes" in flags)
