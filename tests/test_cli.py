"""The command line, in-process through click's CliRunner (stdout and stderr apart).

Most tests install the demo rules (tests/demo_rules.py) so that they pin the
CLI's behaviour, not the wording of the real rules; the tests at the end run
the real rules on real scripts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
import unidiff
from click.testing import CliRunner

import demo_rules
from autofix import cli as cli_module
from autofix import registry
from autofix.cli import cli, main
from autofix.types import Verification

ROOT = Path(__file__).resolve().parent.parent
RELU = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\ny.relu_()  # in place\ny.sum().backward()\n"
RELU_FIXED = RELU.replace("y.relu_()", "y = y.relu()")
CLEAN = "import torch\nprint(torch.ones(1))\n"


@pytest.fixture
def demo(monkeypatch, tmp_path):
    """Demo rules only, and a fresh working folder with no pyproject.toml above it."""
    demo_rules.install(monkeypatch)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def write(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


# --------------------------------------------------------------------------- report mode


def test_report_lists_findings_and_a_summary_and_exits_1(demo):
    write("a.py", RELU + "loss.backward(retain_graph=True)\nopt.zero_grad()\n")
    result = run("--jobs", "1", "a.py")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "a.py:4:1: AF901 [*] in-place relu_() on a tensor autograd may need",
        "a.py:6:1: AF902 backward(retain_graph=True) keeps the graph alive",
        "a.py:7:5: AF903 zero_grad mentioned",
    ]
    assert "Found 3 findings in 1 file (AF901: 1, AF902: 1, AF903: 1)." in lines
    assert "[*] 1 fixable with --write (review them first with --diff)." in lines
    assert "(1 hidden fix can be enabled with --unsafe-fixes)" in lines
    assert result.stderr == ""
    assert Path("a.py").read_text().startswith(RELU)  # report mode never writes


def test_clean_tree_exits_0(demo):
    write("pkg/a.py", CLEAN)
    result = run("pkg")
    assert result.exit_code == 0
    assert "No findings." in result.stdout
    assert "Checked 1 file: 0 analysed, 1 with nothing the selected rules look for." in result.stdout


def test_unsafe_fix_gets_the_marker_with_unsafe_fixes(demo):
    write("a.py", "loss.backward(retain_graph=True)\n")
    result = run("--unsafe-fixes", "a.py")
    assert "a.py:1:1: AF902 [*] backward" in result.stdout
    assert "hidden" not in result.stdout


def test_select_and_ignore(demo):
    write("a.py", RELU + "opt.zero_grad()\n")
    assert "AF901" not in run("--select", "AF903", "a.py").stdout
    only = run("--ignore", "AF901,AF902", "a.py")
    assert "AF903" in only.stdout and "AF901" not in only.stdout
    bad = run("--select", "AF9x", "a.py")
    assert bad.exit_code == 2
    assert "'AF9X' matches no rule code" in bad.stderr


# --------------------------------------------------------------------------- --diff


def test_diff_prints_a_valid_patch_on_stdout_and_the_summary_on_stderr(demo):
    write("src/a.py", RELU)
    write("src/b.py", CLEAN)
    result = run("--diff", "src")
    assert result.exit_code == 1
    patch = unidiff.PatchSet(result.stdout)
    assert [f.path for f in patch] == ["src/a.py"]
    assert result.stdout.startswith("--- a/src/a.py\n+++ b/src/a.py\n")
    assert "-y.relu_()  # in place\n+y = y.relu()  # in place\n" in result.stdout
    assert "Would fix 1 finding: 1 file changed, 1 insertion(+), 1 deletion(-)." in result.stderr
    assert Path("src/a.py").read_text() == RELU  # --diff writes nothing
    # The diff applies to the tree and gives what --write gives.
    if shutil.which("patch"):
        subprocess.run(["patch", "-p1", "-s"], input=result.stdout.encode(), check=True)
        assert Path("src/a.py").read_text() == RELU_FIXED


def test_diff_of_a_clean_tree_is_empty_and_exits_0(demo):
    write("a.py", RELU_FIXED)
    result = run("--diff", ".")
    assert result.exit_code == 0
    assert result.stdout == ""


def test_diff_lists_findings_it_cannot_fix(demo):
    write("a.py", RELU + "opt.zero_grad()\n")
    result = run("--diff", "a.py")
    assert "a.py:6:5: AF903 zero_grad mentioned" in result.stderr
    assert "AF903" not in result.stdout


@pytest.mark.parametrize(
    "flag, coloured", [("--color=always", True), ("--color=never", False), ("--color=auto", False)]
)
def test_colour(demo, flag, coloured):
    write("a.py", RELU)
    result = run("--diff", flag, "a.py")
    assert ("\x1b[" in result.stdout) is coloured


# --------------------------------------------------------------------------- --write


def test_write_fixes_in_place_and_a_second_run_finds_nothing(demo):
    write("a.py", RELU)
    os.chmod("a.py", 0o751)
    result = run("--write", "a.py")
    assert result.exit_code == 0  # as ruff: everything was fixed
    assert result.stdout == ""
    assert Path("a.py").read_text() == RELU_FIXED
    assert oct(os.stat("a.py").st_mode & 0o777) == oct(0o751)
    assert "Fixed 1 finding: 1 file changed" in result.stderr
    assert "Wrote 1 file." in result.stderr
    again = run("--diff", "a.py")
    assert again.exit_code == 0 and again.stdout == ""
    assert run("--write", "a.py").exit_code == 0


def test_write_round_trips_crlf_bom_and_coding_cookie(demo):
    crlf = RELU.replace("\n", "\r\n").encode()
    bom = b"\xef\xbb\xbf" + RELU.encode()
    cookie = b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + RELU.encode()
    tabs = b"if True:\n\ty.relu_()\t# tab\n"
    for name, data in [("crlf.py", crlf), ("bom.py", bom), ("cookie.py", cookie), ("tabs.py", tabs)]:
        write(name, data)
    assert run("--write", "--jobs", "2", ".").exit_code == 0
    assert Path("crlf.py").read_bytes() == RELU_FIXED.replace("\n", "\r\n").encode()
    assert Path("bom.py").read_bytes() == b"\xef\xbb\xbf" + RELU_FIXED.encode()
    assert Path("cookie.py").read_bytes() == b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + RELU_FIXED.encode()
    assert Path("tabs.py").read_bytes() == b"if True:\n\ty = y.relu()\t# tab\n"


def test_syntax_error_next_to_good_files(demo):
    write("good1.py", RELU)
    write("bad.py", "y.relu_(\n")  # the trigger word gets it past the pre-filter
    write("good2.py", RELU)
    result = run("--write", ".")
    assert result.exit_code == 1
    assert Path("good1.py").read_text() == RELU_FIXED
    assert Path("good2.py").read_text() == RELU_FIXED
    assert Path("bad.py").read_text() == "y.relu_(\n"
    assert "bad.py: error: syntax error at" in result.stderr
    assert "Checked 3 files: 2 analysed, 0 with nothing the selected rules look for, 1 with errors." in result.stderr


def test_syntax_error_alone_still_exits_1(demo):
    write("bad.py", "y.relu_(\n")
    result = run("bad.py")
    assert result.exit_code == 1
    assert "bad.py: error: syntax error" in result.stdout


def test_undecodable_file_is_reported_and_untouched(demo):
    data = b"y.relu_()\n\xff\xfe\x00garbage\n"
    write("bin.py", data)
    write("latin.py", b"y.relu_()\ns = '\xe9'\n")  # latin-1 bytes without a cookie
    write("good.py", RELU)
    result = run("--write", ".")
    assert result.exit_code == 1
    assert Path("bin.py").read_bytes() == data
    assert "bin.py: error: file contains a NUL byte" in result.stderr
    assert "latin.py: error: cannot decode" in result.stderr
    assert Path("good.py").read_text() == RELU_FIXED


def test_unreadable_file_is_reported_and_the_run_goes_on(demo, monkeypatch):
    # We run as root, where chmod 000 does not stop a read: make open() fail instead.
    from autofix import api

    write("locked.py", RELU)
    write("good.py", RELU)
    real_open = open

    def guarded_open(path, *args, **kwargs):
        if os.fspath(path).endswith("locked.py"):
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(api, "open", guarded_open, raising=False)
    result = run("--write", "--jobs", "1", ".")
    assert result.exit_code == 1
    assert "locked.py: error: cannot read file: Permission denied" in result.stderr
    assert Path("good.py").read_text() == RELU_FIXED
    assert Path("locked.py").read_text() == RELU


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read a chmod 000 file")
def test_unreadable_file_by_permissions(demo):
    write("locked.py", RELU)
    os.chmod("locked.py", 0)
    result = run("locked.py")
    assert result.exit_code == 1
    assert "locked.py: error: cannot read file" in result.stdout


def test_missing_path_is_reported(demo):
    write("good.py", CLEAN)
    result = run("nope.py", "good.py")
    assert result.exit_code == 1
    assert "nope.py: error:" in result.stdout


def test_write_failure_is_a_per_file_error(demo, monkeypatch):
    import autofix.writer

    write("a.py", RELU)

    def refuse(path, data, **kwargs):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(autofix.writer, "write_atomic", refuse)
    result = run("--write", "a.py")
    assert result.exit_code == 1
    assert "a.py: error: cannot write file: Permission denied" in result.stderr
    assert Path("a.py").read_text() == RELU


def test_internal_error_exits_2(demo, monkeypatch):
    class Crashes(demo_rules.InplaceReluStatement):
        def check(self):
            raise RuntimeError("rule bug")

    monkeypatch.setattr("autofix.registry._load", lambda: {"AF901": Crashes})
    monkeypatch.setattr("autofix.registry.infos", lambda: {"AF901": registry._info_of(Crashes)})
    write("a.py", RELU)
    result = run("a.py")
    assert result.exit_code == 2
    assert "internal error in autofix: AF901 crashed: RuntimeError: rule bug" in result.stdout


# --------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    "args, message",
    [
        pytest.param(["--diff", "--write", "."], "--diff and --write cannot be combined", id="diff and write"),
        pytest.param(["--force", "."], "--force only applies to --write", id="force without write"),
        pytest.param(["--verify", "--verify-cmd", "x", "."], "cannot be combined", id="both verify modes"),
        pytest.param(["--stdin-filename", "a.py", "b.py"], "give no PATHS", id="stdin and paths"),
        pytest.param(["--format", "xml", "."], "Invalid value for '--format'", id="unknown format"),
        pytest.param(["--jobs", "0", "."], "Invalid value for '--jobs'", id="zero jobs"),
        pytest.param(["--explain", "AF000"], "unknown rule code", id="unknown rule to explain"),
        pytest.param(["--write", "--stdin-filename", "a.py", "--format", "json"], "use --format text", id="stdin write json"),
    ],
)
def test_usage_errors_exit_2(demo, args, message):
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_main_returns_exit_codes_without_raising(demo, capsys):
    write("a.py", RELU)
    assert main(["--jobs", "1", "a.py"]) == 1
    assert main(["--diff", "--write", "a.py"]) == 2
    assert "autofix: error: --diff and --write" in capsys.readouterr().err
    write("a.py", CLEAN)
    assert main(["a.py"]) == 0
    assert main(["--help"]) == 0


# --------------------------------------------------------------------------- configuration


def test_config_is_found_from_the_path_and_flags_win(demo):
    write("proj/pyproject.toml", "[tool.autofix]\nignore = ['AF901']\nunsafe-fixes = true\n")
    write("proj/src/a.py", RELU + "loss.backward(retain_graph=True)\n")
    result = run("proj/src/a.py")
    assert "AF901" not in result.stdout
    assert "AF902 [*]" in result.stdout  # unsafe-fixes from the config
    flags = run("--ignore", "AF902", "--no-unsafe-fixes", "proj/src/a.py")
    assert "AF901 [*]" in flags.stdout and "AF902" not in flags.stdout


def test_config_per_file_ignores_and_exclude(demo):
    write(
        "pyproject.toml",
        "[tool.autofix]\nextend-exclude = ['generated/']\n"
        "[tool.autofix.per-file-ignores]\n'tests/**' = ['AF901']\n",
    )
    write("tests/test_a.py", RELU)
    write("src/a.py", RELU)
    write("generated/a.py", RELU)
    result = run("--jobs", "1", ".")
    assert "src/a.py:4:1: AF901" in result.stdout
    assert "tests/" not in result.stdout
    assert "generated/" not in result.stdout
    # Run from a sub-folder: the globs stay relative to the config file.
    os.chdir("tests")
    assert run("test_a.py").exit_code == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ("[tool.autofix]\nselct = ['AF901']\n", "unknown key 'selct'"),
        ("[tool.autofix]\nignore = ['AF1234']\n", "'AF1234' matches no rule code"),
        ("[tool.autofix\n", "invalid TOML"),
    ],
)
def test_config_errors_exit_2(demo, text, message):
    write("pyproject.toml", text)
    write("a.py", RELU)
    result = run("a.py")
    assert result.exit_code == 2
    assert message in result.stderr and "pyproject.toml" in result.stderr


# --------------------------------------------------------------------------- formats


def test_json_format_is_the_documented_schema(demo):
    write("a.py", RELU + "opt.zero_grad()\n")
    write("bad.py", "y.relu_(\n")
    result = run("--format", "json", "--diff", ".")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert set(doc) == {"version", "files", "findings"} and doc["version"] == 1
    files = {f["path"]: f for f in doc["files"]}
    assert set(files["a.py"]) == {"path", "changed", "error", "verification"}
    assert files["a.py"]["changed"] is True and files["a.py"]["error"] is None
    assert files["bad.py"]["error"].startswith("syntax error")
    first, second = doc["findings"]
    assert set(first) == {"path", "code", "name", "message", "line", "column", "end_line", "end_column", "fix", "evidence"}
    assert first["evidence"] is None  # only findings of `--run` carry runtime evidence
    assert (first["code"], first["name"], first["line"], first["column"]) == ("AF901", "demo-inplace-relu", 4, 1)
    assert first["fix"]["applicability"] == "safe"
    assert first["fix"]["diff"].startswith("--- a/a.py\n+++ b/a.py\n")
    assert second["fix"] is None
    assert result.stderr == ""  # nothing but the document


def test_sarif_format(demo):
    write("a.py", RELU + "loss.backward(retain_graph=True)\n")
    write("bad.py", "y.relu_(\n")
    result = run("--format", "sarif", ".")
    assert result.exit_code == 1
    from test_output import assert_valid_sarif

    doc = json.loads(result.stdout)
    assert_valid_sarif(doc)
    run_ = doc["runs"][0]
    assert [r["ruleId"] for r in run_["results"]] == ["AF901", "AF902"]
    assert run_["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"].startswith("syntax error")


def test_github_format(demo):
    write("a.py", RELU)
    result = run("--format", "github", "a.py")
    assert result.stdout == (
        "::warning file=a.py,line=4,col=1,endLine=4,endColumn=10,"
        "title=AF901 demo-inplace-relu::in-place relu_() on a tensor autograd may need\n"
    )
    assert result.exit_code == 1


def test_quiet_drops_the_summary(demo):
    write("a.py", RELU)
    result = run("--quiet", "a.py")
    assert result.stdout == "a.py:4:1: AF901 [*] in-place relu_() on a tensor autograd may need\n"


def test_progress_bar_only_on_a_terminal_and_only_for_text(demo, monkeypatch):
    for i in range(cli_module.PROGRESS_MIN_FILES):
        write(f"m{i:02}.py", CLEAN)
    assert "Checking" not in run("--jobs", "1", ".").stderr  # not a TTY
    monkeypatch.setattr(cli_module, "_isatty", lambda stream: True)
    assert "Checking" in run("--jobs", "1", ".").stderr
    assert "Checking" not in run("--jobs", "1", "--quiet", ".").stderr
    json_run = run("--jobs", "1", "--format", "json", ".")
    assert "Checking" not in json_run.stderr
    json.loads(json_run.stdout)


# --------------------------------------------------------------------------- stdin


def test_stdin_report_uses_the_given_name(demo):
    result = run("--stdin-filename", "pkg/train.py", input=RELU)
    assert result.exit_code == 1
    assert result.stdout.startswith("pkg/train.py:4:1: AF901 [*]")


def test_stdin_diff_has_the_name_in_its_headers(demo):
    result = run("--diff", "--stdin-filename", "train.py", input=RELU)
    assert result.stdout.startswith("--- a/train.py\n+++ b/train.py\n")
    assert result.exit_code == 1


def test_stdin_write_prints_the_fixed_source(demo):
    result = run("--write", "--stdin-filename", "train.py", input=RELU.replace("\n", "\r\n"))
    assert result.stdout_bytes == RELU_FIXED.replace("\n", "\r\n").encode()
    assert "Fixed 1 finding" in result.stderr and "Wrote" not in result.stderr
    assert not Path("train.py").exists()


def test_stdin_clean_source_is_echoed_and_exits_0(demo):
    result = run("--write", "--stdin-filename", "train.py", input=CLEAN)
    assert result.stdout == CLEAN
    assert result.exit_code == 0


def test_stdin_name_drives_the_config(demo):
    write("pyproject.toml", "[tool.autofix.per-file-ignores]\n'legacy/*' = ['AF901']\n")
    assert run("--stdin-filename", "legacy/old.py", input=RELU).exit_code == 0
    assert run("--stdin-filename", "new/old.py", input=RELU).exit_code == 1


def test_stdin_syntax_error(demo):
    result = run("--stdin-filename", "x.py", input="y.relu_(\n")
    assert result.exit_code == 1
    assert "x.py: error: syntax error" in result.stdout


# --------------------------------------------------------------------------- verification seam


@pytest.fixture
def fake_verify(monkeypatch):
    """An autofix.verify stand-in that records its calls and returns a chosen verdict."""
    module = types.ModuleType("autofix.verify")
    module.calls = []
    module.verdict = "identical"
    module.detail = "fake"

    class VerifySettings:
        def __init__(self, device="auto", max_steps=None, timeout=300.0):
            self.device, self.max_steps, self.timeout = device, max_steps, timeout

    def verify_file(original, patched, path, applied_codes, settings):
        module.calls.append(("file", original, patched, path, applied_codes, settings))
        return Verification(module.verdict, steps_compared=2, max_abs_diff=0.0, detail=module.detail)

    def verify_command(root, changes, command, applied_codes, settings):
        module.calls.append(("command", root, changes, command, applied_codes, settings))
        return Verification(module.verdict, steps_compared=3, detail="fake tree")

    module.VerifySettings = VerifySettings
    module.verify_file = verify_file
    module.verify_command = verify_command
    monkeypatch.setitem(sys.modules, "autofix.verify", module)
    return module


@pytest.mark.parametrize("verdict", ["identical", "repaired", "intended-change"])
def test_verify_write_writes_passing_files(demo, fake_verify, verdict):
    fake_verify.verdict = verdict
    write("a.py", RELU)
    write("clean.py", CLEAN)
    result = run("--write", "--verify", "--device", "cpu", "--max-steps", "3", "--timeout", "12.5", ".")
    (call,) = fake_verify.calls  # only the changed file is verified
    kind, original, patched, path, codes, settings = call
    assert (kind, original, patched, path, codes) == ("file", RELU.encode(), RELU_FIXED.encode(), "a.py", ("AF901",))
    assert (settings.device, settings.max_steps, settings.timeout) == ("cpu", 3, 12.5)
    assert Path("a.py").read_text() == RELU_FIXED
    assert f"a.py: verification {verdict} (2 steps compared, max abs diff 0): fake" in result.stderr
    assert result.exit_code == 0  # everything was fixed and verified


@pytest.mark.parametrize("verdict", ["diverged", "patched-failed", "inconclusive"])
def test_verify_write_holds_back_failing_files_unless_forced(demo, fake_verify, verdict):
    fake_verify.verdict = verdict
    write("a.py", RELU)
    result = run("--write", "--verify", "a.py")
    assert result.exit_code == 1
    assert Path("a.py").read_text() == RELU
    assert f"a.py: not written: verification {verdict}" in result.stderr
    assert "Fixed" not in result.stderr  # nothing was written, so nothing is claimed fixed
    assert "1 finding left without an applied fix" in result.stderr
    forced = run("--write", "--verify", "--force", "a.py")
    assert forced.exit_code == 1  # written, but its verification did not pass
    assert Path("a.py").read_text() == RELU_FIXED


def test_failed_verification_alone_makes_exit_1_and_shows_in_every_format(demo, fake_verify):
    fake_verify.verdict = "diverged"
    write("a.py", RELU)
    doc = json.loads(run("--diff", "--verify", "--format", "json", "a.py").stdout)
    assert doc["files"][0]["verification"] == {
        "verdict": "diverged", "steps_compared": 2, "max_abs_diff": 0.0, "detail": "fake"
    }
    sarif = json.loads(run("--verify", "--format", "sarif", "a.py").stdout)
    assert sarif["runs"][0]["results"][0]["properties"]["verification"]["verdict"] == "diverged"
    github = run("--verify", "--format", "github", "a.py").stdout
    assert "::error file=a.py,title=autofix verify::verification diverged: fake" in github
    text = run("--verify", "a.py")
    assert "a.py: verification diverged" in text.stdout
    assert "Verification did not pass for 1 file." in text.stdout


def test_verify_cmd_runs_once_on_the_tree(demo, fake_verify):
    write("proj/a.py", RELU)
    write("proj/sub/b.py", RELU)
    write("proj/c.py", CLEAN)
    result = run("--write", "--verify-cmd", "python train.py", "proj")
    (call,) = fake_verify.calls
    kind, root, changes, command, codes, _ = call
    # The command is relative to the working directory, so that is the project copied.
    assert (kind, root, command, codes) == ("command", str(demo), "python train.py", ("AF901",))
    assert changes == {
        os.path.join("proj", "a.py"): (RELU.encode(), RELU_FIXED.encode()),
        os.path.join("proj", "sub", "b.py"): (RELU.encode(), RELU_FIXED.encode()),
    }
    assert Path("proj/sub/b.py").read_text() == RELU_FIXED
    assert result.stderr.count("verification identical") == 2


def test_verify_without_the_verifier_is_a_clear_error(demo, monkeypatch):
    monkeypatch.setitem(sys.modules, "autofix.verify", None)  # import fails as if absent
    write("a.py", RELU)
    result = run("--write", "--verify", "a.py")
    assert result.exit_code == 2
    assert "autofix: error: the verifier is not available" in result.stderr
    assert "a.py: not written: not verified" in result.stderr
    assert Path("a.py").read_text() == RELU


def test_verify_without_torch_still_prints_the_diff(demo, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    write("a.py", RELU)
    result = run("--diff", "--verify", "a.py")
    assert result.exit_code == 2
    assert "+y = y.relu()" in result.stdout, result.stderr  # the diff is still there
    assert "autofix: error: --verify needs torch: pip install 'torch-autofix[verify]'" in result.stderr
    assert "internal error" not in result.stderr


def test_traceback_hint_only_without_autofix_traceback(demo, monkeypatch):
    monkeypatch.setattr("autofix.api.discover", lambda *a, **k: 1 / 0)
    write("a.py", RELU)
    assert "AUTOFIX_TRACEBACK=1 shows the traceback" in run("a.py").stderr
    monkeypatch.setenv("AUTOFIX_TRACEBACK", "1")
    result = run("a.py")
    assert result.exit_code == 2 and "ZeroDivisionError" in result.stderr
    assert "AUTOFIX_TRACEBACK=1" not in result.stderr


def test_lsp_flag_serves(demo, monkeypatch):
    served = []
    module = types.ModuleType("autofix.lsp")
    module.serve = lambda: served.append(True)
    monkeypatch.setitem(sys.modules, "autofix.lsp", module)
    assert run("--lsp").exit_code == 0
    assert served == [True]


# --------------------------------------------------------------------------- rule docs (real rules)


def test_list_rules_is_a_table_of_the_registry():
    from autofix import registry

    result = run("--list-rules")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["CODE", "NAME", "FIX", "SUMMARY"]
    rules = registry.all_rules()
    assert len(lines) == len(rules) + 1
    for line, rule in zip(lines[1:], rules):
        assert line.split()[:2] == [rule.CODE, rule.NAME]
        assert line.rstrip().endswith(rule.SUMMARY)


def test_explain_prints_the_rule_docstring():
    from autofix import registry

    rules = registry.all_rules()
    if not rules:
        pytest.skip("no rules registered yet")
    for rule in rules:
        result = run("--explain", rule.CODE.lower())
        assert result.exit_code == 0
        assert result.stdout.startswith(f"{rule.CODE} ({rule.NAME})\n")
        assert f"Summary: {rule.SUMMARY}" in result.stdout
        assert "Fix: " in result.stdout
        assert rule.documentation() in result.stdout
    by_name = run("--explain", rules[0].NAME)
    assert by_name.stdout.startswith(rules[0].CODE)


# --------------------------------------------------------------------------- real rules, real scripts

TWO_HEADS = '''\
import torch
from torch import nn

backbone = nn.Linear(8, 16)
head_a, head_b = nn.Linear(16, 1), nn.Linear(16, 1)
params = [*backbone.parameters(), *head_a.parameters(), *head_b.parameters()]
optimizer = torch.optim.SGD(params, lr=0.1)

for step in range(3):
    x = torch.randn(4, 8)
    features = backbone(x).relu()
    loss_a = head_a(features).pow(2).mean()
    loss_b = head_b(features).abs().mean()
    optimizer.zero_grad()
    loss_a.backward()
    loss_b.backward()
    optimizer.step()
'''


def test_real_rules_fix_a_two_heads_double_backward(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write("train.py", TWO_HEADS)
    result = run("--diff", "--select", "AF101", "train.py")
    assert result.exit_code == 1
    patch = unidiff.PatchSet(result.stdout)
    assert [f.path for f in patch] == ["train.py"]
    assert patch[0].removed >= 2  # the two backward() calls become one
    written = run("--write", "--select", "AF101", "train.py")
    assert written.exit_code == 0  # everything fixed
    fixed = Path("train.py").read_text()
    compile(fixed, "train.py", "exec")
    assert fixed.count(".backward(") == 1
    assert run("--diff", "--select", "AF101", "train.py").stdout == ""


def test_python_dash_m_autofix(tmp_path):
    write(tmp_path / "t.py", TWO_HEADS)
    proc = subprocess.run(
        [sys.executable, "-m", "autofix", "--diff", "--select", "AF101", "t.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("--- a/t.py\n+++ b/t.py\n")
    version = subprocess.run([sys.executable, "-m", "autofix", "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and "autofix" in version.stdout


def test_write_on_a_copy_of_the_corpus_then_diff_prints_nothing(tmp_path, monkeypatch):
    copy = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus", copy)
    monkeypatch.chdir(tmp_path)
    first = run("--write", "corpus")
    assert first.exit_code in (0, 1), first.stderr
    assert "internal error" not in first.stderr
    second = run("--diff", "corpus")
    assert second.stdout == "", second.stdout
    assert "internal error" not in second.stderr


def test_gitignore_and_default_excludes_but_explicit_files_always(demo):
    write(".gitignore", "ignored.py\n")
    write("ignored.py", RELU)
    write("build/gen.py", RELU)
    write("kept.py", RELU)
    walked = run("--jobs", "1", ".")
    assert "kept.py:4:1" in walked.stdout
    assert "ignored.py" not in walked.stdout and "build/" not in walked.stdout
    explicit = run("ignored.py", "build/gen.py")
    assert "ignored.py:4:1" in explicit.stdout and "build/gen.py:4:1" in explicit.stdout
    unignored = run("--jobs", "1", "--no-respect-gitignore", ".")
    assert "ignored.py:4:1" in unignored.stdout


def test_dash_reads_stdin(demo):
    result = run("--diff", "-", input=RELU)
    assert result.stdout.startswith("--- a/<stdin>\n+++ b/<stdin>\n")
    assert result.exit_code == 1


def test_verification_shows_progress_on_a_terminal(demo, fake_verify, monkeypatch):
    write("a.py", RELU)
    assert "Verifying" not in run("--diff", "--verify", "a.py").stderr
    monkeypatch.setattr(cli_module, "_isatty", lambda stream: True)
    assert "Verifying" in run("--diff", "--verify", "a.py").stderr
    assert "Verifying" not in run("--diff", "--verify", "--quiet", "a.py").stderr


def test_the_cli_never_imports_torch_or_the_verifier(tmp_path):
    write(tmp_path / "t.py", TWO_HEADS)
    code = (
        "import sys\n"
        "from autofix.cli import main\n"
        "for args in (['--diff', 't.py'], ['--format', 'sarif', 't.py'], ['--list-rules']):\n"
        "    main(args)\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] == 'torch' or m.startswith('autofix.verify'))\n"
        "print('HEAVY', heavy, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "HEAVY []" in proc.stderr, proc.stderr


# --------------------------------------------------------------------------- per-file configuration


def test_each_file_uses_its_nearest_config_whatever_the_order(demo):
    write("a/pyproject.toml", "[tool.autofix]\nignore = ['AF901']\n")
    write("a/x.py", RELU)
    write("b/y.py", RELU)
    forward, backward = run("--jobs", "1", "a", "b"), run("--jobs", "1", "b", "a")
    for result in (forward, backward):
        assert "b/y.py:4:1: AF901" in result.stdout
        assert "a/x.py" not in result.stdout
    # Explicit files in any order, as pre-commit passes them.
    assert run("b/y.py", "a/x.py").stdout == run("a/x.py", "b/y.py").stdout
    assert "a/x.py" not in run("b/y.py", "a/x.py").stdout


def test_nested_config_wins_inside_a_walked_tree(demo):
    write("pyproject.toml", "[tool.autofix]\nunsafe-fixes = true\n")
    write("pkg/pyproject.toml", "[tool.autofix]\nignore = ['AF901']\nextend-exclude = ['gen/']\n")
    write("top.py", RELU + "loss.backward(retain_graph=True)\n")
    write("pkg/inner.py", RELU + "loss.backward(retain_graph=True)\n")
    write("pkg/gen/made.py", RELU)
    result = run("--jobs", "1", ".")
    assert "top.py:4:1: AF901" in result.stdout and "top.py:6:1: AF902 [*]" in result.stdout
    assert "pkg/inner.py:4:1: AF901" not in result.stdout
    assert "pkg/inner.py:6:1: AF902 " in result.stdout  # unsafe-fixes is not inherited: no [*]
    assert "made.py" not in result.stdout
    assert "pkg/gen/made.py:4:1: AF901" not in run("pkg/gen/made.py").stdout  # ignored there too


# --------------------------------------------------------------------------- ruff's conventions


def test_fix_is_write(demo):
    write("a.py", RELU)
    result = run("--fix", "a.py")
    assert result.exit_code == 0 and Path("a.py").read_text() == RELU_FIXED


def test_write_exit_codes_as_ruff(demo):
    write("a.py", RELU)
    assert run("--write", "--exit-non-zero-on-fix", "a.py").exit_code == 1
    write("a.py", RELU + "opt.zero_grad()\n")  # AF903 has no fix: something remains
    assert run("--write", "a.py").exit_code == 1
    assert run("--exit-zero", "a.py").exit_code == 0
    assert run("--exit-zero", "--diff", "a.py").exit_code == 0


def test_statistics(demo):
    write("a.py", RELU + "loss.backward(retain_graph=True)\n")
    write("b.py", RELU)
    result = run("--statistics", "--jobs", "1", ".")
    lines = [line for line in result.stdout.splitlines() if "\t" in line]
    assert lines == ["2\tAF901\t[*] demo-inplace-relu", "1\tAF902\t    demo-retain-graph"]
    assert "a.py:4:1" not in result.stdout
    assert result.exit_code == 1


def test_show_fixes(demo):
    write("a.py", RELU)
    result = run("--write", "--show-fixes", "a.py")
    assert "Fixed in:\na.py:\n    1 × AF901 (demo-inplace-relu)" in result.stderr


def test_output_format_full_shows_a_code_frame_and_the_fix(demo):
    write("a.py", RELU + "opt.zero_grad()\n")
    result = run("--output-format", "full", "a.py")
    assert result.exit_code == 1
    assert (
        "a.py:4:1: AF901 [*] in-place relu_() on a tensor autograd may need\n"
        "  |\n"
        "3 | y = x * 2\n"
        "4 | y.relu_()  # in place\n"
        "  | ^^^^^^^^^ AF901\n"
        "5 | y.sum().backward()\n"
        "  |\n"
        "  = help: use out-of-place relu\n"
    ) in result.stdout
    assert run("--output-format", "concise", "a.py").stdout == run("a.py").stdout
    assert json.loads(run("--output-format", "json", "a.py").stdout)["version"] == 1
    assert run("--output-format", "full", "--format", "json", "a.py").exit_code == 2


def test_extend_select_fixable_unfixable(demo):
    write("pyproject.toml", "[tool.autofix]\nselect = ['AF901']\nextend-select = ['AF903']\nunfixable = ['AF901']\n")
    write("a.py", RELU + "loss.backward(retain_graph=True)\nopt.zero_grad()\n")
    result = run("a.py")
    assert "AF901 in-place" in result.stdout  # reported, but its fix is not applied: no [*]
    assert "AF903" in result.stdout and "AF902" not in result.stdout
    assert run("--diff", "a.py").stdout == ""
    assert "AF901 [*]" not in run("--fixable", "AF901", "a.py").stdout  # unfixable wins, as in ruff
    write("pyproject.toml", "[tool.autofix]\nfixable = ['AF902']\nunsafe-fixes = true\n")
    diff = run("--diff", "a.py").stdout
    assert "-loss.backward(retain_graph=True)" in diff and "relu()" not in diff


def test_no_fix_reason_is_shown_apart(demo, monkeypatch):
    monkeypatch.setattr(demo_rules.MentionsZeroGrad, "MESSAGE", "zero_grad mentioned (no fix: move it yourself)")
    write("a.py", "import torch\nopt.zero_grad()\n")
    text = run("--color", "always", "a.py").stdout
    assert "zero_grad mentioned \x1b[2m(no fix: move it yourself)\x1b[0m" in text
    assert "= no fix: move it yourself" in run("--output-format", "full", "a.py").stdout
    finding = json.loads(run("--format", "json", "a.py").stdout)["findings"][0]
    # The JSON schema is DESIGN.md's contract: the reason stays in the message.
    assert finding["fix"] is None and finding["message"].endswith("(no fix: move it yourself)")
    result = json.loads(run("--format", "sarif", "a.py").stdout)["runs"][0]["results"][0]
    assert result["properties"]["noFix"] == "move it yourself"


# --------------------------------------------------------------------------- configuration errors


@pytest.mark.parametrize(
    "text, key",
    [
        ('[tool.autofix]\nexclude = ["!"]\n', "exclude"),
        ('tool = "autofix"\n', "tool"),
        ("tool = 5\n", "tool"),
        ("[tool]\nautofix = 5\n", "tool.autofix"),
        ('[tool.autofix.per-file-ignores]\n"**/[z-a]" = ["AF901"]\n', "per-file-ignores"),
        ('[tool.autofix]\nexclude = ["../x"]\n', "exclude"),
        ('[tool.autofix]\nextend-exclude = ["a/../../x"]\n', "extend-exclude"),
        ("[tool.autofix]\nselect = []\n", "select"),
    ],
)
def test_bad_config_values_exit_2_once_naming_file_and_key(demo, text, key):
    write("pyproject.toml", text)
    write("a.py", RELU)
    write("b.py", RELU)
    result = run("--jobs", "1", ".")
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("autofix: error:") == 1
    assert "pyproject.toml" in result.stderr and key in result.stderr
    assert "internal error" not in result.stderr


def test_syntax_errors_are_pythons_own_with_a_caret(demo):
    write("a.py", "import torch\ny.relu_(\n")
    result = run("a.py")
    assert result.exit_code == 1
    assert "a.py: error: syntax error at 2:8: '(' was never closed\n    y.relu_(\n           ^\n" in result.stdout
    assert "ParserSyntaxError" not in result.stdout and "Incomplete input" not in result.stdout


def test_a_named_file_is_parsed_even_without_trigger_words(demo):
    write("pkg/plain.py", "def f(:\n    pass\n")
    named = run("pkg/plain.py")
    assert named.exit_code == 1
    assert "pkg/plain.py: error: syntax error at 1:7: invalid syntax" in named.stdout
    walked = run("pkg")  # found by walking: no rule could fire, so it is not parsed
    assert walked.exit_code == 0 and "error" not in walked.stdout


def test_still_fails_names_the_unfixed_finding_and_is_held_back(demo, fake_verify):
    fake_verify.verdict = "inconclusive"
    fake_verify.detail = "still fails: the patched run fails as the original did, at the same place"
    write("a.py", RELU + "opt.zero_grad()\n")  # AF903 has no fix
    result = run("--write", "--verify", "a.py")
    assert "a.py: verification inconclusive (2 steps compared, max abs diff 0): still fails: unfixed AF903 at 6:5; " in result.stderr
    assert "patched-failed" not in result.stderr
    assert Path("a.py").read_text() == RELU + "opt.zero_grad()\n"  # not proven: held back
    assert "a.py: not written: verification inconclusive" in result.stderr
    assert result.exit_code == 1


def test_a_closed_pipe_is_not_an_internal_error(tmp_path):
    for rule in ("AF102", "AF105"):  # a diff of several pipe writes: head closes it after one line
        shutil.copytree(ROOT / "corpus" / rule, tmp_path / "corpus" / rule)
    proc = subprocess.run(
        f"{sys.executable} -m autofix --diff corpus | head -1",
        shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert proc.stdout.startswith("--- ")
    assert "internal error" not in proc.stderr and "Broken pipe" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_only_the_command_line(flag: str) -> None:
    # Start-up is what every pre-commit hook and editor integration pays:
    # neither flag may load LibCST, the rules, the report or the output layer.
    probe = (
        "import sys\n"
        "from autofix.cli import main\n"
        f"code = main([{flag!r}])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] == 'libcst' or m in "
        "('autofix.report', 'autofix.types', 'autofix.registry', 'autofix.engine', 'autofix.diff', 'pathspec'))\n"
        "print(code, heavy, file=sys.stderr)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert out.stderr.strip().splitlines()[-1] == "0 []", out.stderr


def test_console_script_answers_version_without_click(capsys: pytest.CaptureFixture[str]) -> None:
    # The console entry answers a bare --version itself; its text must stay
    # click's version_option text, and nothing but the interpreter may load.
    probe = (
        "import sys\n"
        "from autofix.console import main\n"
        "code = main(['--version'])\n"
        "print(code, 'click' in sys.modules, 'typing' in sys.modules, file=sys.stderr)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")])))
    fast = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert fast.stderr.strip().splitlines()[-1] == "0 False False", fast.stderr
    assert main(["--version"]) == 0
    assert fast.stdout == capsys.readouterr().out
