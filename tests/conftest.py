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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
