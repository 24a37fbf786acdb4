"""Suppression comments as a ruff user writes them (autofix/suppression.py)."""

from __future__ import annotations

import pytest

import demo_rules
from autofix import api, engine
from autofix.types import Options

TWO_HEADS_TAIL = """\
for step in range(3):
    features = backbone(torch.randn(4, 8)).relu()
    loss_a = head_a(features).pow(2).mean()
    loss_b = head_b(features).abs().mean()
    optimizer.zero_grad()
    loss_a.backward(){first}
    loss_b.backward(){second}
    optimizer.step()
"""
TWO_HEADS = (
    "import torch\nfrom torch import nn\n\nbackbone = nn.Linear(8, 16)\n"
    "head_a, head_b = nn.Linear(16, 1), nn.Linear(16, 1)\n"
    "optimizer = torch.optim.SGD([*backbone.parameters(), *head_a.parameters(), *head_b.parameters()], lr=0.1)\n\n"
)


@pytest.fixture
def demo(monkeypatch):
    demo_rules.install(monkeypatch)
    return list(demo_rules.DEMO_RULES.values())


def check(source: str, rules):
    return engine.check_source(source.encode(), "t.py", rules, Options(fix=True, unsafe_fixes=True))


@pytest.mark.parametrize(
    "line, suppressed",
    [
        pytest.param("y.relu_()  # noqa: AF901", True, id="noqa with the code"),
        pytest.param("y.relu_()  # NOQA:af901", True, id="case-insensitive"),
        pytest.param("y.relu_()  # noqa: E501, AF901", True, id="noqa list shared with another linter"),
        pytest.param("y.relu_()  # noqa: AF9", True, id="a prefix"),
        pytest.param("y.relu_()  # autofix: ignore[af901]", True, id="autofix ignore, lower case"),
        pytest.param("y.relu_()  # noqa", False, id="bare noqa is for the other linters"),
        pytest.param("y.relu_()  # noqa: E501", False, id="another linter's code"),
        pytest.param("y.relu_()  # noqa: AF902", False, id="another rule"),
        pytest.param("y.relu_('# noqa: AF901')", False, id="inside a string it is no comment"),
    ],
)
def test_noqa_and_case(demo, line, suppressed):
    result = check("import torch\n" + line + "\n", demo)
    assert bool([f for f in result.findings if f.code == "AF901"]) is not suppressed


def test_any_line_of_the_statement(demo):
    source = "import torch\nloss.backward(\n    retain_graph=True,  # noqa: AF902\n)\n"
    assert not check(source, demo).findings
    # ...but not a line of the next statement, nor of the body below a header.
    source = "import torch\nloss.backward(retain_graph=True)\nx = 1  # noqa: AF902\n"
    assert [f.code for f in check(source, demo).findings] == ["AF902"]
    source = "import torch\nfor x in y:\n    y.relu_()\n    z = 1  # noqa: AF901\n"
    assert [f.code for f in check(source, demo).findings] == ["AF901"]


def test_unknown_code_in_a_suppression_is_a_warning(demo):
    result = check("import torch\ny.relu_()  # noqa: AF9O1, E501\nz = 1  # autofix: ignore[AF1234]\n", demo)
    assert result.warnings == (
        "2: unknown rule code 'AF9O1' in a suppression comment (it silences nothing)",
        "3: unknown rule code 'AF1234' in a suppression comment (it silences nothing)",
    )
    assert [f.code for f in result.findings] == ["AF901"]


def test_unknown_code_warning_in_the_cli(demo, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from autofix.cli import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("import torch\ny.relu_()  # noqa: AF999\n")
    result = CliRunner().invoke(cli, ["a.py"])
    assert "a.py:2: warning: unknown rule code 'AF999' in a suppression comment" in result.stdout
    github = CliRunner().invoke(cli, ["--format", "github", "a.py"]).stdout
    assert "::warning file=a.py,line=2,title=autofix::unknown rule code 'AF999'" in github


@pytest.mark.parametrize("where", ["first", "second"])
def test_af101_pair_is_silenced_from_either_backward(where):
    comments = {"first": "", "second": ""}
    comments[where] = "  # noqa: AF101"
    source = TWO_HEADS + TWO_HEADS_TAIL.format(**comments)
    assert [f.code for f in api.fix_source(source, "t.py", Options(select=("AF101",))).findings] == []
    plain = TWO_HEADS + TWO_HEADS_TAIL.format(first="", second="")
    assert [f.code for f in api.fix_source(plain, "t.py", Options(select=("AF101",))).findings] == ["AF101"]
