"""``--write``: put fixed files on disk, but only those whose verification passed.

The atomic write itself (temp file, fsync, ``os.replace``, signals deferred,
the checks that the file is still the one that was read and may be replaced)
lives in :mod:`autofix.writer`.
"""

from __future__ import annotations

import dataclasses
from typing import List, Sequence, Tuple

from autofix.report import PASSING_VERDICTS
from autofix.types import FileResult


def write_back(
    results: Sequence[FileResult], *, force: bool = False, allow_readonly: bool = False
) -> Tuple[List[FileResult], Tuple[str, ...], Tuple[Tuple[str, str], ...]]:
    """Write every changed file that may be written.

    Returns the results (a failed or refused write becomes the file's
    ``error``), the paths written, and (path, reason) for the files held back
    by verification. ``allow_readonly`` also rewrites read-only files.
    """
    from autofix import writer

    out: List[FileResult] = []
    written: List[str] = []
    held: List[Tuple[str, str]] = []
    for result in results:
        if result.changed:
            verdict = result.verification.verdict if result.verification is not None else None
            if verdict is not None and verdict not in PASSING_VERDICTS and not force:
                held.append((result.path, f"verification {verdict} (--force writes it anyway)"))
            else:
                assert result.fixed is not None
                try:
                    writer.write_atomic(
                        result.path, result.fixed, expected=result.source, allow_readonly=allow_readonly
                    )
                except writer.WriteRefused as exc:
                    result = dataclasses.replace(result, error=f"not written: {exc}")
                except OSError as exc:
                    result = dataclasses.replace(
                        result, error=f"cannot write file: {exc.strerror or exc}"
                    )
                else:
                    written.append(result.path)
        out.append(result)
    return out, tuple(written), tuple(held)
