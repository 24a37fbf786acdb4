import sys
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite corpus/**/*.fixed.py and *.diagnostics from the current output",
    )


@pytest.fixture
def update_goldens(request):
    return request.config.getoption("--update-goldens")

sys.path.insert(0, str(Path(__file__).resolve().parent))


def without_screens(patch, rules=None):
    """Switch the rules' syntactic screens off: every file with trigger words is parsed and analysed."""
    from autofix import registry

    for rule in rules if rules is not None else registry.all_rules():
        patch.setattr(rule, "may_fire_in", classmethod(lambda cls, tree: True))


@pytest.fixture
def unscreened(monkeypatch):
    """The screens off for one test (the sweep, and the screens' own soundness tests)."""
    without_screens(monkeypatch)


@pytest.fixture(autouse=True)
def private_result_cache(tmp_path_factory, monkeypatch):
    """Each test gets its own result cache: nothing is read from or written to the
    user's cache folder, and no test sees results another test cached (some
    patch rules or screens)."""
    monkeypatch.setenv("AUTOFIX_CACHE_DIR", str(tmp_path_factory.mktemp("autofix-cache")))
