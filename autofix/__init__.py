"""autofix: find, fix and verify PyTorch autograd-graph mistakes."""

from autofix.api import check_file, fix_source
from autofix.rule import Fix, Rule
from autofix.types import Applicability, FileResult, Finding, Options

__all__ = ["Applicability", "FileResult", "Finding", "Fix", "Options", "Rule", "check_file", "fix_source"]
__version__ = "0.1.0"
