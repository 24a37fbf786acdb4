"""The ``autofix`` command: flags → :mod:`autofix.api` → :mod:`autofix.output`.

Exit codes (see :mod:`autofix.report`): 0 clean, 1 findings / changes /
per-file problems / failed verification, 2 usage or internal error.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Set, TextIO, Tuple

import click

import autofix
from autofix.output import FORMATS, OUTPUT_FORMATS

if TYPE_CHECKING:
    from autofix import config as configuration
    from autofix.types import FileResult, Options

# The engine, the rules and the configuration import LibCST and pathspec, the
# report and output layers build dozens of dataclasses: each function imports
# what it uses, so that --version and --help start fast.

#: Runs over fewer files finish before a progress bar would be worth drawing.
PROGRESS_MIN_FILES = 20
#: The name of a source read from stdin without --stdin-filename.
STDIN = "<stdin>"


class Failure(click.ClickException):
    """A usage or setup problem: message on stderr, exit code 2."""

    exit_code = 2

    def show(self, file: Optional[Any] = None) -> None:
        click.echo(f"autofix: error: {self.format_message()}", err=True)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--diff", is_flag=True, help="Print the unified diff of all fixes; write nothing.")
@click.option("--write", "--fix", "write", is_flag=True, help="Apply fixes in place (atomically); --fix is the same flag.")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Include fixes marked unsafe.")
@click.option("--select", metavar="CODES", help="Comma-separated codes or prefixes to check (e.g. AF101,AF104).")
@click.option("--extend-select", metavar="CODES", help="Codes or prefixes to check in addition to the selection.")
@click.option("--ignore", metavar="CODES", help="Comma-separated codes or prefixes to skip.")
@click.option("--fixable", metavar="CODES", help="Only these codes' fixes are applied.")
@click.option("--unfixable", metavar="CODES", help="These codes' fixes are never applied (the findings are still reported).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None, help="Output format (default: text).")
@click.option(
    "--output-format",
    type=click.Choice(OUTPUT_FORMATS),
    default=None,
    help="ruff's spelling: concise (one line per finding, as --format text), full (adds a code frame and the fix), json, sarif, github.",
)
@click.option("--statistics", is_flag=True, help="Show the number of findings per rule, and which are fixable, instead of the findings.")
@click.option("--show-fixes", is_flag=True, help="List the fixes applied (--write) or proposed (--diff), per file.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings (2 still means an error in autofix).")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="With --write: exit 1 when files were changed, even if everything was fixed.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Parallel workers (default: all cores).")
@click.option("--stdin-filename", metavar="NAME", help="Read the source from stdin; NAME drives config, messages and diff headers.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary; findings, diffs and errors only.")
@click.option("--respect-gitignore/--no-respect-gitignore", default=True, show_default=True)
@click.option("--no-cache", is_flag=True, help="Check every file again instead of reusing cached results.")
@click.option("--cache-dir", metavar="DIR", help="Where results are cached (default: the cache-dir setting, else the user's cache folder).")
@click.option("--run", "run_command", metavar="CMD", help="Doctor: run CMD under the recorder; report findings with runtime evidence (fix with --diff/--write).")
@click.option("--verify", is_flag=True, help="Run the gradient verifier on each changed file.")
@click.option("--verify-cmd", metavar="CMD", help="Verify by running CMD against the original and the patched tree.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True, help="Where verification runs.")
@click.option("--max-steps", type=click.IntRange(min=1), help="Stop each verification run after N optimizer steps.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=300.0, show_default=True, help="Seconds per verification run.")
@click.option("--env-clean", is_flag=True, help="Verification runs get only an allowlist of environment variables.")
@click.option("--force", is_flag=True, help="With --write: also write files whose verification did not pass.")
@click.option("--force-readonly", is_flag=True, help="With --write: also rewrite read-only files (keeping their mode).")
@click.option("--list-rules", is_flag=True, help="List the rules and exit.")
@click.option("--explain", metavar="CODE", help="Show a rule's documentation and exit.")
@click.option("--lsp", is_flag=True, help="Run the language server on stdio.")
@click.version_option(autofix.__version__, prog_name="autofix")
@click.pass_context
def cli(ctx: click.Context, **flags: Any) -> None:
    """Find and fix the PyTorch training-code mistakes behind
    'Trying to backward through the graph a second time'.

    PATHS are files or directories (default: the current directory).
    """
    from autofix import registry
    from autofix import config as configuration
    try:
        code = _run(ctx, **flags)
    except (click.exceptions.Exit, click.ClickException, click.Abort):
        raise
    except BrokenPipeError:
        # The reader (head, less) went away: stop quietly, as a pipeline expects.
        _drop_stdout()
        ctx.exit(1)
    except (configuration.ConfigError, registry.UnknownRuleError) as exc:
        raise Failure(str(exc)) from None
    except Exception as exc:  # an autofix bug: say so, exit 2, keep the traceback available
        hint = ""
        if os.environ.get("AUTOFIX_TRACEBACK"):
            traceback.print_exc()
        else:
            hint = " (AUTOFIX_TRACEBACK=1 shows the traceback)"
        raise Failure(f"internal error: {type(exc).__name__}: {exc}{hint}") from None
    ctx.exit(code)


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # no real file descriptor (tests): nothing will be flushed to a closed pipe


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the console script and ``python -m autofix``; returns the exit code."""
    try:
        return cli.main(args=list(argv) if argv is not None else None, prog_name="autofix", standalone_mode=False) or 0
    except click.ClickException as exc:
        exc.show()
        return 2
    except (click.Abort, KeyboardInterrupt):
        click.echo("autofix: interrupted", err=True)
        return 2


# --------------------------------------------------------------------------- the run


def _run(ctx: click.Context, **f: Any) -> int:
    from autofix import api
    from autofix import config as configuration
    from autofix.output import emit
    from autofix.report import Mode, Outcome
    if f["lsp"]:
        return _serve_lsp()
    if f["list_rules"]:
        click.echo(rule_table(), nl=False)
        return 0
    if f["explain"]:
        click.echo(explain(f["explain"]))
        return 0
    paths, stdin_name = _inputs(f)
    f["fmt"], full = _format(f)
    _check_flags(f, stdin_name)
    mode = Mode.from_flags(f["diff"], f["write"])
    verifier, verify_problem = _load_verifier(f)
    overrides = _overrides(f, fix=mode is not Mode.CHECK or verifier is not None)

    if stdin_name is not None:
        source = sys.stdin.buffer.read()
        start = stdin_name if stdin_name != STDIN else os.curdir
        options = configuration.discover(start).options(**overrides)
        results = [api.fix_source(source, stdin_name, options)]
    elif f["run_command"]:
        config = configuration.discover(paths[0] if paths else os.curdir)
        options = config.options(**overrides)
        results = _doctor(paths, options, config, f)
    else:
        results, options = _check_tree(paths or [os.curdir], overrides, f, sys.stderr)
    if verifier is not None:
        results = _verify(verifier, results, paths, f)
    written: Tuple[str, ...] = ()
    held: Tuple[Tuple[str, str], ...] = ()
    if mode is Mode.WRITE and verify_problem is not None:
        # Verification was asked for and cannot run: nothing unverified is written.
        held = tuple((r.path, f"not verified: {verify_problem}") for r in results if r.changed)
    elif mode is Mode.WRITE and stdin_name is not None:
        written, held = _print_fixed(results[0], source, f["force"])
    elif mode is Mode.WRITE:
        from autofix.writeback import write_back

        results, written, held = write_back(results, force=f["force"], allow_readonly=f["force_readonly"])

    outcome = Outcome(
        mode,
        results,
        options,
        written=written,
        held_back=held,
        quiet=f["quiet"],
        stdin=stdin_name is not None,
        exit_zero=f["exit_zero"],
        exit_non_zero_on_fix=f["exit_non_zero_on_fix"],
        full=full,
        statistics=f["statistics"],
        show_fixes=f["show_fixes"],
    )
    emit(f["fmt"], outcome, sys.stdout, sys.stderr, color=_color(f["color"], sys.stdout))
    if verify_problem is not None:
        # The report and the diff are out; only the verification failed to run.
        click.echo(f"autofix: error: {verify_problem}", err=True)
        return 2
    return outcome.return_code


def _format(f: Any) -> Tuple[str, bool]:
    """(output format module, whether text shows code frames) from --format / --output-format."""
    chosen = f["output_format"]
    if chosen is None:
        return f["fmt"] or "text", False
    fmt = "text" if chosen in ("concise", "full") else chosen
    if f["fmt"] is not None and f["fmt"] != fmt:
        raise Failure(f"--format {f['fmt']} and --output-format {chosen} disagree; give one")
    return fmt, chosen == "full"


def _inputs(f: Any) -> Tuple[List[str], Optional[str]]:
    """The paths to walk, or the name of the source read from stdin."""
    paths = list(f["paths"])
    if paths == ["-"]:
        # "-" alone reads stdin, as in ruff and black; --stdin-filename names it.
        return [], f["stdin_filename"] or STDIN
    if f["stdin_filename"] is not None and paths:
        raise Failure("--stdin-filename reads stdin; give no PATHS (or '-')")
    return paths, f["stdin_filename"]


def _check_flags(f: Any, stdin_name: Optional[str]) -> None:
    if f["diff"] and f["write"]:
        raise Failure("--diff and --write cannot be combined")
    if f["verify"] and f["verify_cmd"]:
        raise Failure("--verify and --verify-cmd cannot be combined")
    if f["force"] and not f["write"]:
        raise Failure("--force only applies to --write")
    if f["force_readonly"] and not f["write"]:
        raise Failure("--force-readonly only applies to --write")
    if f["run_command"] is not None:
        if stdin_name is not None:
            raise Failure("--run runs a command on a tree; it cannot be combined with stdin")
        if f["verify_cmd"]:
            raise Failure("--run verifies with its own command; use --verify, not --verify-cmd")
        if not f["run_command"].strip():
            raise Failure("--run needs a command, e.g. --run \"python train.py\"")
    if stdin_name is not None:
        if f["verify_cmd"]:
            raise Failure("--verify-cmd verifies a tree; it cannot be combined with stdin")
        if f["write"] and f["fmt"] != "text":
            raise Failure("--write on stdin prints the fixed source; use --format text")


def _load_verifier(f: Any) -> Tuple[Any, Optional[str]]:
    """(the verifier, None), (None, why it cannot run), or (None, None) when not asked for."""
    flag = "--verify" if f["verify"] else "--verify-cmd" if f["verify_cmd"] else None
    if flag is None:
        return None, None
    from autofix.verification import VerifierUnavailable, load_verifier

    try:
        return load_verifier(flag), None
    except VerifierUnavailable as exc:
        return None, str(exc)


def _print_fixed(
    result: FileResult, source: bytes, force: bool
) -> Tuple[Tuple[str, ...], Tuple[Tuple[str, str], ...]]:
    """``--write`` on stdin: the fixed source replaces it on stdout, byte for byte."""
    data = source
    written: Tuple[str, ...] = ()
    held: Tuple[Tuple[str, str], ...] = ()
    if result.changed and _may_write(result, force):
        assert result.fixed is not None
        data, written = result.fixed, (result.path,)
    elif result.changed and result.verification is not None:
        held = ((result.path, f"verification {result.verification.verdict} (--force writes it anyway)"),)
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return written, held


def _overrides(f: Any, *, fix: bool) -> Dict[str, Any]:
    """The command line's settings, which win over every file's configuration."""
    from autofix import config as configuration

    def codes(flag: str) -> Optional[Tuple[str, ...]]:
        value = f[flag.replace("-", "_")]
        return configuration.parse_codes(value, f"--{flag}") if value is not None else None

    return {
        "select": codes("select"),
        "extend_select": codes("extend-select") or (),
        "ignore": codes("ignore"),
        "fixable": codes("fixable"),
        "unfixable": codes("unfixable") or (),
        "unsafe_fixes": f["unsafe_fixes"],
        "fix": fix,
    }


def _check_tree(
    paths: List[str], overrides: Dict[str, Any], f: Any, stderr: TextIO
) -> Tuple[List[FileResult], Options]:
    """Each path walked with its own configuration's excludes, each file checked with its own."""
    from autofix import api
    from autofix import config as configuration
    from autofix.report import sort_results
    resolver = configuration.Resolver()
    files: List[str] = []
    problems: List[FileResult] = []
    for config, group in resolver.group(paths):
        found, missing = api.discover(
            group,
            exclude=config.exclude,
            extend_exclude=config.extend_exclude,
            respect_gitignore=f["respect_gitignore"],
        )
        named = {os.path.normpath(p) for p in group}
        files.extend(p for p in found if p in named or not resolver.excluded(p))
        problems.extend(missing)
    files = sorted(set(files))
    options = resolver.options(files, **overrides)
    if not f["no_cache"]:
        from dataclasses import replace

        from autofix.cache import resolve_dir

        configured = resolver.config(configuration.common_root(paths)).cache_dir
        options = replace(options, cache_dir=f["cache_dir"] or resolve_dir(configured))
    stream = api.check_paths(files, options, jobs=f["jobs"])
    checked = _progress(stream, len(files), "Checking", f, stderr, minimum=PROGRESS_MIN_FILES)
    named = {os.path.normpath(p) for p in paths if not os.path.isdir(p)}
    return sort_results([*problems, *(_parsed_if_named(r, named) for r in checked)]), options


def _parsed_if_named(result: FileResult, named: Set[str]) -> FileResult:
    """A file named on the command line has its syntax checked even when no rule could fire (as ruff)."""
    if not result.skipped_by_prefilter or os.path.normpath(result.path) not in named:
        return result
    source = result.source
    if source is None and result.source_dropped:
        try:
            with open(result.path, "rb") as handle:  # a named file: one of a few
                source = handle.read()
        except OSError:
            return result
    if source is None:
        return result
    from dataclasses import replace

    from autofix import syntax

    error = syntax.python_error(source, result.path)
    return replace(result, error=error, skipped_by_prefilter=False) if error else result


def _doctor(paths: List[str], options: Options, config: configuration.Config, f: Any) -> List[FileResult]:
    """``--run CMD``: the static results of PATHS with the run's evidence merged in (see :mod:`autofix.doctor`)."""
    from autofix import api
    from autofix.doctor import DEFAULT_STEPS

    from autofix.verification import VerifierUnavailable, load_verifier

    try:
        verify = load_verifier("--run")
    except VerifierUnavailable as exc:
        raise Failure(str(exc)) from None
    settings = verify.VerifySettings(device=f["device"], max_steps=f["max_steps"] or DEFAULT_STEPS, timeout=f["timeout"])
    report = api.run_doctor(
        f["run_command"],
        paths or [os.curdir],
        options,
        settings,
        root=_command_root(paths),
        jobs=f["jobs"],
        exclude=config.exclude,
        extend_exclude=config.extend_exclude,
        respect_gitignore=f["respect_gitignore"],
    )
    if not f["quiet"]:
        click.echo(f"autofix --run: {report.summary}", err=True)
    return report.results


def _command_root(paths: List[str]) -> str:
    # The command is written relative to where the user stands, so the project
    # copied for it is the working directory whenever it holds the paths.
    from autofix import config as configuration
    root = configuration.common_root(paths or [os.curdir])
    cwd = os.getcwd()
    if os.path.commonpath([root, cwd]) == cwd:
        root = cwd
    return root


def _verify(verify: Any, results: List[FileResult], paths: List[str], f: Any) -> List[FileResult]:
    from autofix import config as configuration
    from autofix import verification

    if f["run_command"]:
        from autofix.doctor import DEFAULT_STEPS

        # --run --verify: the doctor's own command proves its fixes.
        settings = verification.settings(
            verify, f["device"], f["max_steps"] or DEFAULT_STEPS, f["timeout"], f["env_clean"]
        )
        return verification.verify_tree(verify, results, f["run_command"], _command_root(paths), settings)
    settings = verification.settings(verify, f["device"], f["max_steps"], f["timeout"], f["env_clean"])
    if f["verify_cmd"]:
        # The command is written relative to where the user stands
        # (`--verify-cmd "python train.py"` with `src/` as the path), so the
        # project copied for it is the working directory whenever it holds the paths.
        root = configuration.common_root(paths or [os.curdir])
        cwd = os.getcwd()
        if os.path.commonpath([root, cwd]) == cwd:
            root = cwd
        return verification.verify_tree(verify, results, f["verify_cmd"], root, settings)
    # Each verification runs two training scripts: worth a bar from the first file.
    stream = verification.iter_verified(verify, results, settings)
    return list(_progress(stream, len(results), "Verifying", f, sys.stderr, minimum=1))


def _progress(
    stream: Iterator[FileResult], total: int, label: str, f: Any, stderr: TextIO, *, minimum: int
) -> Iterator[FileResult]:
    """``stream`` with a progress bar on stderr: on a terminal, for text output, unless --quiet."""
    if f["fmt"] != "text" or f["quiet"] or total < minimum or not _isatty(stderr):
        yield from stream
        return
    started = time.monotonic()
    done = 0

    def rate(_: Any) -> str:
        return f"{done / max(time.monotonic() - started, 1e-6):.1f} files/s"

    with click.progressbar(
        length=total, label=label, file=stderr, show_pos=True, show_eta=True, item_show_func=rate
    ) as bar:
        for result in stream:
            done += 1
            bar.update(1, result.path)
            yield result


def _may_write(result: FileResult, force: bool) -> bool:
    from autofix.report import PASSING_VERDICTS

    v = result.verification
    return force or v is None or v.verdict in PASSING_VERDICTS


def _color(choice: str, stream: TextIO) -> bool:
    if choice != "auto":
        return choice == "always"
    return not os.environ.get("NO_COLOR") and _isatty(stream)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _serve_lsp() -> int:
    try:
        from autofix.lsp import serve
    except ImportError as exc:
        raise Failure(f"the language server is not available: {exc}") from None
    serve()
    return 0


# --------------------------------------------------------------------------- rule docs


def _fix_kinds(rule: Any) -> str:
    kinds = [a.value for a in rule.fix_applicabilities()]
    return "/".join(kinds) if kinds else "none"


def rule_table() -> str:
    """``--list-rules``: code, name, fix kinds and summary of every rule."""
    from autofix import registry
    rules = registry.all_rules()
    rows = [("CODE", "NAME", "FIX", "SUMMARY")]
    rows += [(r.CODE, r.NAME, _fix_kinds(r), r.SUMMARY) for r in rules]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "".join(
        f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}\n" for row in rows
    )


def explain(code: str) -> str:
    """``--explain CODE``: the rule's facts, then its docstring."""
    from autofix import registry
    try:
        rule = registry.get_rule(code)
    except registry.UnknownRuleError as exc:
        raise Failure(str(exc)) from None
    header = [
        f"{rule.CODE} ({rule.NAME})",
        "",
        f"Summary: {rule.SUMMARY}",
        f"Fix: {_fix_kinds(rule)}  (safe fixes apply with --write; unsafe ones also need --unsafe-fixes)",
        f"Verifier expects: {rule.EXPECTATION.value}",
        "",
    ]
    return "\n".join(header) + "\n" + rule.documentation()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
