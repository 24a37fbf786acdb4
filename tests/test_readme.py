"""The README cannot drift: rule table = registry, set-up commands = CI."""

from __future__ import annotations

import re
from pathlib import Path

from autofix import registry

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.MULTILINE | re.DOTALL)
    assert match, f"README has no '## {title}' section"
    return match.group(1)


def test_rule_table_lists_every_registered_rule():
    rows = re.findall(r"^\| (AF\d{3}) \| `([a-z-]+)` \|", section("Rules"), re.MULTILINE)
    registered = [(rule.CODE, rule.NAME) for rule in registry.all_rules()]
    assert rows == registered


def test_setup_has_exactly_the_two_commands():
    commands = re.findall(r"```sh\n(.*?)\n```", section("Set-up"), re.DOTALL)
    assert commands == [
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && autofix --diff corpus/",
        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && pytest',
    ]


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'pip install -q -e ".[test]"' in script
    assert re.search(r"^pytest$", script, re.MULTILINE)
