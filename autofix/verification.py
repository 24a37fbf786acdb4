"""The seam to the gradient verifier (``--verify`` / ``--verify-cmd``).

:mod:`autofix.verify` imports torch, so it is imported here, lazily, and only
when asked for; everything else in autofix runs without it.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import os
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from autofix.types import STILL_FAILS, FileResult, Verification


class VerifierUnavailable(RuntimeError):
    """``--verify`` was asked for but the verifier cannot be imported."""


def load_verifier(flag: str = "--verify") -> Any:
    """Import :mod:`autofix.verify` or say plainly why ``flag`` cannot be used."""
    try:
        # The verifier imports torch only when it runs: ask for it now, before any work.
        if importlib.util.find_spec("torch") is None:
            raise ModuleNotFoundError("No module named 'torch'", name="torch")
        # import_module reads sys.modules, so a stand-in put there (tests) is honoured.
        verify = importlib.import_module("autofix.verify")
    except ModuleNotFoundError as exc:
        if exc.name == "torch":
            from autofix import DISTRIBUTION

            raise VerifierUnavailable(f"{flag} needs torch: pip install '{DISTRIBUTION}[verify]'") from exc
        raise VerifierUnavailable(f"the verifier is not available in this installation ({exc})") from exc
    except ImportError as exc:
        raise VerifierUnavailable(f"the verifier cannot be imported: {exc}") from exc
    missing = [n for n in ("verify_file", "verify_command", "VerifySettings") if not hasattr(verify, n)]
    if missing:
        raise VerifierUnavailable(f"autofix.verify lacks {', '.join(missing)}")
    return verify


def settings(verify: Any, device: str, max_steps: Optional[int], timeout: float, env_clean: bool = False) -> Any:
    # env_clean only when asked: verifier stand-ins (tests) need not know the option.
    extra = {"env_clean": True} if env_clean else {}
    return verify.VerifySettings(device=device, max_steps=max_steps, timeout=timeout, **extra)


def iter_verified(verify: Any, results: Sequence[FileResult], settings: Any) -> Iterator[FileResult]:
    """``--verify``: run the verifier on every changed file, attaching its verdict, one result at a time."""
    for result in results:
        if result.changed:
            verdict = verify.verify_file(
                result.source, result.fixed, result.path, result.applied_codes, settings
            )
            result = dataclasses.replace(result, verification=name_unfixed(verdict, [result]))
        yield result


def name_unfixed(verification: Verification, results: Sequence[FileResult]) -> Verification:
    """"still fails: unfixed AF103 at 29:13": the findings left without a fix, the likely cause."""
    if not verification.detail.startswith(STILL_FAILS):
        return verification
    unfixed = [
        f"{f.code} at {f.line}:{f.column}" + (f" of {r.path}" if len(results) > 1 else "")
        for r in results
        for f in r.findings
        if f.fix is None or f.code not in r.applied_codes
    ]
    if not unfixed:
        return verification
    rest = verification.detail[len(STILL_FAILS):]
    return dataclasses.replace(verification, detail=f"{STILL_FAILS}unfixed {', '.join(unfixed)}; {rest}")


def verify_tree(
    verify: Any, results: Sequence[FileResult], command: str, root: str, settings: Any
) -> List[FileResult]:
    """``--verify-cmd``: one run of ``command`` on the original and the patched tree.

    The one verdict is attached to every changed file.
    """
    changes: Dict[str, Tuple[bytes, bytes]] = {}
    codes: Set[str] = set()
    for result in results:
        if result.changed:
            assert result.source is not None and result.fixed is not None
            relative = os.path.relpath(os.path.abspath(result.path), root)
            changes[relative] = (result.source, result.fixed)
            codes.update(result.applied_codes)
    if not changes:
        return list(results)
    verdict = verify.verify_command(root, changes, command, tuple(sorted(codes)), settings)
    verdict = name_unfixed(verdict, [r for r in results if r.findings])
    return [
        dataclasses.replace(r, verification=verdict) if r.changed else r for r in results
    ]
