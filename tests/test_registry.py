"""The registry: what it reads of the rules without importing them is what the rules say."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autofix import registry


def test_rule_infos_read_from_source_match_the_imported_rules():
    imported = {code: registry._info_of(rule) for code, rule in registry._load().items()}
    assert registry.infos() == imported
    assert imported, "no rules found"


def test_selection_without_importing_the_rules_matches_the_classes():
    for select, ignore in [(("ALL",), ()), (("AF1",), ("AF103",)), (("AF107",), ()), (("inplace-argument", "AF101"), ())]:
        infos = registry.select_infos(select, ignore)
        assert [i.code for i in infos] == [r.CODE for r in registry.select_rules(select, ignore)]
    assert "AF107" not in [i.code for i in registry.select_infos(("ALL",))]
    with pytest.raises(registry.UnknownRuleError):
        registry.select_infos(("XY9",))


def test_a_run_over_files_without_trigger_words_never_imports_libcst(tmp_path: Path):
    plain = tmp_path / "plain.py"
    plain.write_text("import os\n\n\ndef f(x):\n    return x + 1\n")
    probe = textwrap.dedent(
        f"""\
        import sys
        from autofix import cli
        code = cli.main(["--diff", "--no-cache", "--select", "ALL,AF107", {str(plain)!r}])
        assert code == 0, code
        print(sorted(m for m in sys.modules if m == "libcst" or m.startswith("autofix.rules.")))
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout
