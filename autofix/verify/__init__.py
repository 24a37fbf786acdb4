"""The gradient verifier: run the original and the patched program, compare gradients, give a verdict.

Only this package imports torch, and only inside the functions below (and in
the run processes), so that ``import autofix.verify`` stays cheap. Verdicts
and their meaning are DESIGN.md's.
"""

from __future__ import annotations

from typing import Dict, Tuple

from autofix.types import PASSING_VERDICTS, Verification
from autofix.verify.settings import VerifySettings

__all__ = ["ACCEPTED_VERDICTS", "VerifySettings", "verify_command", "verify_file"]

#: Verdicts under which ``--write --verify`` writes the file (without ``--force``).
ACCEPTED_VERDICTS = PASSING_VERDICTS


def verify_file(original: bytes, patched: bytes, path: str, applied_codes: Tuple[str, ...], settings: VerifySettings) -> Verification:
    """Run the script ``path`` as ``original`` and as ``patched`` (each in a private temp dir) and judge."""
    from autofix.verify import launcher

    launcher.warm()  # the helper imports torch while this process does the same
    from autofix.verify.session import verify_file as run

    return run(original, patched, path, tuple(applied_codes), settings)


def verify_command(root: str, changes: Dict[str, Tuple[bytes, bytes]], command: str, applied_codes: Tuple[str, ...], settings: VerifySettings) -> Verification:
    """Copy the project at ``root`` twice (original, patched), run ``command`` in each and judge."""
    from autofix.verify.session import verify_command as run

    return run(root, changes, command, tuple(applied_codes), settings)
