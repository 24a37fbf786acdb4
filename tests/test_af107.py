"""AF107 inplace-argument: opt-in selection, the split from AF103, fixes and silences."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from autofix import registry
from autofix.cli import cli
from autofix.api import fix_source
from autofix.types import Applicability, Options

HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


"""

MODULE = """\
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x, noise):
{body}
"""


def _forward(body: str) -> str:
    return HEADER + MODULE.format(body=textwrap.indent(textwrap.dedent(body), " " * 8))


def _run(src: str, select=("AF103", "AF107"), unsafe: bool = True):
    return fix_source(src, "t.py", Options(select=select, unsafe_fixes=unsafe))


# --------------------------------------------------------------------------- opt-in selection


def _codes(select, ignore=()):
    return [r.CODE for r in registry.select_rules(select, ignore)]


@pytest.mark.parametrize("select", [("ALL",), ("AF",), ("AF1",), ("AF10",)])
def test_all_and_prefixes_leave_the_opt_in_rule_out(select):
    assert "AF107" not in _codes(select)
    assert "AF103" in _codes(select)


@pytest.mark.parametrize("select", [("AF107",), ("af107",), ("inplace-argument",), ("ALL", "AF107")])
def test_exact_code_or_name_selects_it(select):
    assert "AF107" in _codes(select)


def test_ignore_by_prefix_still_removes_it():
    assert "AF107" not in _codes(("AF107",), ("AF1",))


def test_default_configuration_leaves_it_out(tmp_path):
    from autofix import config

    options = config.Config().options()
    assert "AF107" not in [r.CODE for r in registry.select_rules(options.select, options.ignore)]


def test_pyproject_select_turns_it_on(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.autofix]\nselect = ["AF103", "AF107"]\n')
    script = tmp_path / "m.py"
    script.write_text(_forward("x += noise\nreturn self.fc(x)"))
    result = CliRunner().invoke(cli, ["--jobs", "1", str(script)])
    assert "AF107" in result.output, result.output
    (tmp_path / "pyproject.toml").write_text('[tool.autofix]\nselect = ["ALL"]\n')
    result = CliRunner().invoke(cli, ["--jobs", "1", str(script)])
    assert "AF107" not in result.output and result.exit_code == 0, result.output


def test_list_rules_marks_it_opt_in():
    table = CliRunner().invoke(cli, ["--list-rules"]).output
    (row,) = [line for line in table.splitlines() if line.startswith("AF107")]
    assert "inplace-argument" in row and "opt-in" in row


def test_explain_page_has_ruff_sections_and_says_how_to_select_it():
    doc = registry.get_rule("AF107").documentation()
    for section in ("## What it does", "## Why is this bad?", "## Example", "Use instead:", "## Fix safety", "## References"):
        assert section in doc
    assert "--select AF107" in doc and "off by default" in doc


# --------------------------------------------------------------------------- the split


_fixes = [
    pytest.param("x.relu_()\nreturn self.fc(x)", "x = torch.relu(x)\nreturn self.fc(x)", id="relu_ on the input"),
    pytest.param("x += 0.1 * noise\nreturn self.fc(x)", "x = x + 0.1 * noise\nreturn self.fc(x)", id="noise added with +="),
    pytest.param("x.mul_(2).add_(1)\nreturn self.fc(x)", "x = x.mul(2).add(1)\nreturn self.fc(x)", id="chain of in-place methods"),
    pytest.param(
        "h = F.relu(x, inplace=True)\nreturn self.fc(h)",
        "h = F.relu(x)\nreturn self.fc(h)",
        id="functional inplace=True on the input",
    ),
]


@pytest.mark.parametrize("body, fixed", _fixes)
def test_argument_write_is_af107_with_an_unsafe_fix(body, fixed):
    result = _run(_forward(body))
    assert [f.code for f in result.findings] == ["AF107"]
    assert "the caller's tensor changes too" in result.findings[0].message
    assert result.findings[0].fix is not None
    assert result.findings[0].fix.applicability is Applicability.UNSAFE
    assert result.fixed.decode() == _forward(fixed)


def test_af103_alone_says_nothing_about_an_argument_write():
    result = _run(_forward("x += noise\nreturn self.fc(x)"), select=("AF103",))
    assert result.findings == ()


@pytest.mark.parametrize(
    "body, word",
    [
        pytest.param("out = self.act(x)\nreturn self.fc(out)", "inplace=True", id="inplace module on the input"),
        pytest.param("first = x[0]\nfirst.zero_()\nreturn self.fc(x)", "view of the argument", id="write through a view of the input"),
    ],
)
def test_reported_without_fix_and_says_why(body, word):
    result = _run(_forward(body))
    assert [f.code for f in result.findings] == ["AF107"]
    assert result.findings[0].fix is None
    assert word in result.findings[0].message
    assert "(no fix: " in result.findings[0].message


def test_saved_argument_is_af103_not_af107():
    # x went into a Linear, which saved it: the write breaks backward.
    result = _run(_forward("y = self.fc(x)\nx += noise\nreturn y + x"))
    assert [f.code for f in result.findings] == ["AF103"]
    assert "saved" in result.findings[0].message


def test_both_kinds_on_one_tensor_are_reported_once_each():
    body = "x.relu_()\ny = self.fc(x)\nx.add_(1)\nreturn y + x"
    result = _run(_forward(body))
    assert sorted((f.code, f.line) for f in result.findings) == [("AF103", 15), ("AF107", 13)]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("with torch.no_grad():\n    x.clamp_(0, 1)\nreturn self.fc(x)", id="under no_grad"),
        pytest.param("x = x.clone()\nx += noise\nreturn self.fc(x)", id="rebound to a clone first"),
        pytest.param("h = self.fc(x)\nh += noise\nreturn h", id="a new value, not the argument"),
    ],
)
def test_silent(body):
    result = _run(_forward(body))
    assert result.findings == ()


def test_argument_read_again_under_another_name_is_af107_without_fix():
    body = "q = x\nq += noise\nreturn self.fc(q) + x"
    assert _run(_forward(body), select=("AF103",)).findings == ()
    result = _run(_forward(body))
    assert [f.code for f in result.findings] == ["AF107"]
    assert "`x`, read afterwards" in result.findings[0].message
    assert result.findings[0].fix is None and "(no fix: " in result.findings[0].message
