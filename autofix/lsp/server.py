"""pygls handlers: lint on open/change/save, publish diagnostics, answer code actions.

An adapter over :mod:`autofix.api`, like ruff's server: each lint computes the
findings *and* their fixes' edits, stores the edits in ``Diagnostic.data``,
and ``textDocument/codeAction`` answers from them, so that a quick fix is
exactly the edit the engine rendered for that version of the buffer.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import pickle
import sys
import time
import tokenize
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

import attrs
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.lsp.server import LanguageServer

import autofix
from autofix import api, engine
from autofix.lsp import options as lsp_options
from autofix.lsp.convert import Document
from autofix.lsp.incremental import IncrementalLinter
from autofix.model.project import Project, project_for
from autofix.report import severity
from autofix.types import Applicability, FileResult, Options

logger = logging.getLogger("autofix.lsp")

SOURCE = "autofix"
FIX_ALL_KIND = "source.fixAll.autofix"
#: Delay between a change and the lint it triggers; a newer change restarts it.
#: Tiny, because the debounce that matters is adaptive: while a lint runs, the
#: changes that arrive collapse into one lint of the newest text.
DEBOUNCE_S = 0.01
#: Idle time after a change before the exact whole-file lint starts (see _exact).
EXACT_IDLE_S = 1.0

_converter = get_converter()


@dataclass
class Linted:
    """One linted version of one document: what codeAction and hover answer from."""

    uri: str
    version: Optional[int]
    text: str
    path: str
    options: Options
    diagnostics: List[types.Diagnostic]
    #: The position encoding the diagnostics' ranges and edits are in.
    encoding: str
    #: True when a whole-file lint made the diagnostics (not per-unit views).
    exact: bool
    #: LSP edits of ``source.fixAll``, computed on first request.
    fix_all: Optional[List[types.TextEdit]] = None


class AutofixLanguageServer(LanguageServer):
    def __init__(self) -> None:
        # Full sync: pygls applies incremental changes with ``str.splitlines``,
        # which also breaks lines at \f, \v, U+2028 …, unlike LSP and Python.
        super().__init__("autofix", autofix.__version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.linted: Dict[str, Linted] = {}
        self.pending: Dict[str, "asyncio.Task[None]"] = {}
        # One worker: lints of one buffer never race, and a burst of changes
        # queues at most one lint behind the running one.
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="autofix-lint")
        self.reported: set = set()
        self.incremental: Dict[str, IncrementalLinter] = {}
        self.exact_pending: Dict[str, "asyncio.Task[None]"] = {}
        self.event_loop: Optional[asyncio.AbstractEventLoop] = None

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls's default pops up window/showMessage for every error; a
        # half-typed buffer must never do that, so errors go to the log only.
        logger.error("autofix language server: %s: %s", type(error).__name__, error)

    @property
    def position_encoding(self) -> str:
        return self.workspace.position_encoding or types.PositionEncodingKind.Utf16

    # ------------------------------------------------------------------ linting

    def schedule(self, uri: str, delay: float, exact: bool = False) -> None:
        """Lint ``uri`` after ``delay`` seconds, replacing a lint not yet started.

        With ``exact``, a whole-file lint follows a per-unit one (see :mod:`incremental`).
        """
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self.pending[uri] = asyncio.ensure_future(self._lint_and_publish(uri, delay, exact))

        checking = self.exact_pending.pop(uri, None)
        if checking is not None:
            checking.cancel()  # kills its process: the text it was checking is gone

    async def _lint_and_publish(self, uri: str, delay: float, exact: bool) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            linted = await self.lint(uri)
            if linted is None:
                return
            self.publish(linted)
            if not linted.exact:
                # At once on open and save; after a pause in typing otherwise,
                # since a long module's whole-file lint costs seconds of CPU.
                delay = 0 if exact else EXACT_IDLE_S
                self.exact_pending[uri] = asyncio.ensure_future(self._exact(linted, delay))
        finally:
            if self.pending.get(uri) is asyncio.current_task():
                del self.pending[uri]

    def publish(self, linted: Linted) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=linted.uri, diagnostics=linted.diagnostics, version=linted.version)
        )

    async def _exact(self, fast: Linted, delay: float) -> None:
        """Replace per-unit diagnostics by a whole-file lint's (in a child process)."""
        try:
            if delay:
                await asyncio.sleep(delay)
            result = await run_isolated(fast.text, fast.path, replace(fast.options, fix=False))
            if result is None or self.linted.get(fast.uri) is not fast:
                return
            document = Document(fast.text, fast.encoding)
            diagnostics = [to_diagnostic(f, document, fast.version) for f in result.findings]
            exact = Linted(fast.uri, fast.version, fast.text, fast.path, fast.options, diagnostics, fast.encoding, True)
            self.linted[fast.uri] = exact
            if diagnostics != fast.diagnostics:
                logger.info("%s: whole-file lint differs from the per-unit lint", fast.path)
                self.publish(exact)
        finally:
            if self.exact_pending.get(fast.uri) is asyncio.current_task():
                del self.exact_pending[fast.uri]

    async def lint(self, uri: str) -> Optional[Linted]:
        """Lint the open document's current text; ``None`` if it changed meanwhile."""
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return None
        text, version = document.source, document.version
        cached = self.linted.get(uri)
        if cached is not None and cached.version == version and cached.text == text:
            return cached
        loop = self.event_loop = asyncio.get_running_loop()
        linted = await loop.run_in_executor(
            self.executor, self._lint_sync, uri, text, version, document.path
        )
        current = self.workspace.text_documents.get(uri)
        if current is None or current.version != version:
            return None  # closed or edited meanwhile: a newer lint is on its way
        self.linted[uri] = linted
        return linted

    def _lint_sync(self, uri: str, text: str, version: Optional[int], path: str) -> Linted:
        started = time.perf_counter()
        options = self.options_for(path)
        lint_options = replace(options, fix=False)
        encoding = self.position_encoding
        # The project around the file, which sees the unsaved text of every open buffer.
        project = project_for(path)
        if project is not None:
            project.set_overlay(path, text)
        linter = self.incremental.setdefault(uri, IncrementalLinter())
        spans = linter.segment(text)
        if spans is None:
            # Mid-typing syntax errors are normal: publish nothing, say nothing.
            return Linted(uri, version, text, path, options, [], encoding, True)
        diagnostics = linter.lint(
            text,
            spans,
            (path, lint_options),
            encoding,
            lambda view: run_engine(view, path, lint_options, project),
            lambda finding, document: to_diagnostic(finding, document, version),
            lambda partial: self._publish_partial(uri, version, partial),
        )
        exact = diagnostics is None
        if diagnostics is None:
            result = run_engine(text, path, lint_options, project)
            if result.error:
                logger.info("%s: %s", path, result.error)
            document = Document(text, encoding)
            diagnostics = [to_diagnostic(f, document, version) for f in result.findings]
        else:
            diagnostics = [_with_version(d, version) for d in diagnostics]
        logger.debug("linted %s v%s in %.1f ms", path, version, (time.perf_counter() - started) * 1e3)
        return Linted(uri, version, text, path, options, diagnostics, encoding, exact)

    def _publish_partial(self, uri: str, version: Optional[int], diagnostics: List[types.Diagnostic]) -> None:
        """From the lint thread: publish what a long lint found so far, if the buffer is still at ``version``."""
        loop = self.event_loop
        if loop is None:
            return
        diagnostics = [_with_version(d, version) for d in diagnostics]

        def publish() -> None:
            document = self.workspace.text_documents.get(uri)
            if document is not None and document.version == version:
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
                )

        loop.call_soon_threadsafe(publish)

    def options_for(self, path: str) -> Options:
        try:
            return lsp_options.options_for(path, self.workspace.root_path)
        except Exception as exc:  # a broken pyproject.toml: say so once, lint with defaults
            message = f"autofix: ignoring configuration: {exc}"
            if message not in self.reported:
                self.reported.add(message)
                params = types.ShowMessageParams(type=types.MessageType.Warning, message=message)
                # Called from the lint thread: only the event loop may write to the client.
                if self.event_loop is not None:
                    self.event_loop.call_soon_threadsafe(self.window_show_message, params)
            return Options()

    def relint_all(self) -> None:
        """Configuration may have changed: lint every open buffer again."""
        for uri in list(self.linted):
            self.linted.pop(uri, None)
            self.schedule(uri, 0, exact=True)

    def forget(self, uri: str) -> None:
        for tasks in (self.pending, self.exact_pending):
            task = tasks.pop(uri, None)
            if task is not None:
                task.cancel()
        linted = self.linted.pop(uri, None)
        self.incremental.pop(uri, None)
        if linted is not None:
            project = project_for(linted.path)
            if project is not None:
                project.set_overlay(linted.path, None)  # back to the file on disk


# --------------------------------------------------------------------------- engine glue


def source_bytes(text: str) -> Tuple[bytes, str]:
    """The buffer as the bytes the file would hold, honouring a PEP 263 coding cookie."""
    data = text.encode("utf-8", "surrogatepass")
    try:
        declared, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        return data, "utf-8"
    if declared in ("utf-8", "utf-8-sig"):
        return data, "utf-8"
    try:
        return text.encode(declared), declared
    except (UnicodeEncodeError, LookupError):
        return data, "utf-8"  # the engine reports the mismatch as a decode error


def run_engine(text: str, path: str, options: Options, project: Optional[Project] = None) -> FileResult:
    data, _ = source_bytes(text)
    return api.fix_source(data, path, options, project)


def warm_up() -> None:
    try:
        api.warm_up(Options(fix=False))
    except Exception as exc:  # never let a warm-up failure reach the client
        logger.error("autofix: warm-up lint failed: %s", exc)


_CHILD = (
    "import os, pickle, sys\n"
    "if hasattr(os, 'nice'): os.nice(5)  # background work: typing comes first\n"
    "from autofix import api\n"
    "data, path, options = pickle.load(sys.stdin.buffer)\n"
    "pickle.dump(api.fix_source(data, path, options), sys.stdout.buffer)\n"
)


async def run_isolated(text: str, path: str, options: Options) -> Optional[FileResult]:
    """:func:`run_engine` in a child process: long whole-file work that never
    holds up the per-keystroke lints, and is killed when cancelled."""
    data, _ = source_bytes(text)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _CHILD,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        out, _ = await proc.communicate(pickle.dumps((data, path, options)))
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        raise
    if proc.returncode != 0:
        logger.error("autofix: whole-file lint of %s failed (exit %s)", path, proc.returncode)
        return None
    return pickle.loads(out)  # our own child's output


def _with_version(diagnostic: types.Diagnostic, version: Optional[int]) -> types.Diagnostic:
    return attrs.evolve(diagnostic, data={**(diagnostic.data or {}), "version": version})


def fixed_text(text: str, result: FileResult) -> Optional[str]:
    if result.error or not result.changed or result.fixed is None:
        return None
    _, encoding = source_bytes(text)
    return result.fixed.decode(encoding)


def to_diagnostic(finding, document: Document, version: Optional[int]) -> types.Diagnostic:
    data: Dict[str, Any] = {"version": version, "code": finding.code, "fix": None}
    if finding.fix is not None:
        data["fix"] = {
            "title": finding.fix.title,
            "applicability": finding.fix.applicability.value,
            "edits": [_converter.unstructure(document.text_edit(e)) for e in finding.fix.edits],
        }
    return types.Diagnostic(
        range=document.finding_range(finding),
        message=finding.message,
        severity=types.DiagnosticSeverity.Error if severity(finding.code) == "error" else types.DiagnosticSeverity.Warning,
        code=finding.code,
        source=SOURCE,
        data=data,
    )


def explain(code: str) -> Optional[str]:
    """What ``autofix --explain CODE`` prints (the rule's facts and docstring)."""
    from autofix import cli  # click and the output layer: only on first hover

    try:
        return cli.explain(code)
    except Exception:  # an unknown code (cli.Failure): no hover
        return None


# --------------------------------------------------------------------------- code actions


def _wants(only: Optional[Sequence[str]], kind: str) -> bool:
    return only is None or any(kind == o or kind.startswith(o + ".") for o in only)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> Tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _workspace_edit(uri: str, version: Optional[int], edits: List[types.TextEdit]) -> types.WorkspaceEdit:
    # Pinning the version makes the client refuse the edit if the buffer moved on.
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=edits,
            )
        ]
    )


def quick_fixes(linted: Linted, diagnostics: Sequence[types.Diagnostic]) -> List[types.CodeAction]:
    actions = []
    for diagnostic in diagnostics:
        fix = (diagnostic.data or {}).get("fix")
        if not fix:
            continue
        unsafe = fix["applicability"] == Applicability.UNSAFE.value
        edits = [_converter.structure(e, types.TextEdit) for e in fix["edits"]]
        actions.append(
            types.CodeAction(
                title=f"{diagnostic.code}: {fix['title']}" + (" (unsafe)" if unsafe else ""),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=_workspace_edit(linted.uri, linted.version, edits),
                is_preferred=not unsafe,
            )
        )
    return actions


def suppressions(linted: Linted, diagnostics: Sequence[types.Diagnostic]) -> List[types.CodeAction]:
    actions = []
    document = Document(linted.text, linted.encoding)
    for diagnostic in diagnostics:
        code = str(diagnostic.code)
        line = diagnostic.range.start.line
        new_line = suppressed_line(document.lines[line], code)
        if new_line is None or not _comment_survives(document, line, new_line):
            continue
        edit = types.TextEdit(
            range=types.Range(
                start=types.Position(line=line, character=0),
                end=document.end_of_line(line),
            ),
            new_text=new_line,
        )
        actions.append(
            types.CodeAction(
                title=f"{code}: suppress on this line (# autofix: ignore[{code}])",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=_workspace_edit(linted.uri, linted.version, [edit]),
            )
        )
    return actions


def suppressed_line(line: str, code: str) -> Optional[str]:
    """``line`` with ``code`` added to its ``# autofix: ignore[...]`` comment (or a new one)."""
    match = engine.SUPPRESSION.search(line)
    if match is None:
        body = line.rstrip()
        return f"{body}  # autofix: ignore[{code}]"
    codes = match.group("codes")
    if codes is None:
        return None  # already suppresses everything
    listed = [c.strip() for c in codes.split(",") if c.strip()]
    if code in listed:
        return None
    start, end = match.span("codes")
    return f"{line[:start]}{', '.join([*listed, code])}{line[end:]}"


def _comment_survives(document: Document, line: int, new_line: str) -> bool:
    """Whether the suppression is a real comment there (not inside a string, not after ``\\``)."""
    if document.lines[line].rstrip().endswith("\\"):
        return False  # nothing may follow a line continuation
    lines = list(document.lines)
    lines[line] = new_line
    text = "\n".join(lines)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT and token.start[0] == line + 1:
                return engine.SUPPRESSION.search(token.string) is not None
            if token.start[0] > line + 1:
                break
    except (tokenize.TokenError, SyntaxError):
        return False
    return False


async def fix_all(linted: Linted) -> List[types.TextEdit]:
    """Minimal edits applying every safe fix, as ``autofix --write`` would."""
    if linted.fix_all is None:
        options = replace(linted.options, fix=True, unsafe_fixes=False)
        result = await run_isolated(linted.text, linted.path, options)
        new = fixed_text(linted.text, result) if result is not None else None
        if new is None:
            linted.fix_all = []
        else:
            document = Document(linted.text, linted.encoding)
            linted.fix_all = [document.text_edit(e) for e in engine.text_edits(linted.text, new)]
    return linted.fix_all


# --------------------------------------------------------------------------- wiring


def _is_python(document: types.TextDocumentItem) -> bool:
    return document.language_id == "python" or document.uri.endswith((".py", ".pyi"))


def create_server() -> AutofixLanguageServer:
    server = AutofixLanguageServer()

    @server.feature(types.EXIT)
    def on_exit(ls: AutofixLanguageServer, params: Any) -> None:
        # A lint still running in the worker thread would hold up the exit
        # (the interpreter joins executor threads), for minutes on a huge
        # buffer: leave now, with the code LSP asks for (0 after shutdown, else 1).
        sys.stdout.flush()
        os._exit(0 if getattr(ls.protocol, "_shutdown", False) else 1)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: AutofixLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        if _is_python(params.text_document):
            ls.schedule(params.text_document.uri, 0, exact=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: AutofixLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri in ls.linted or params.text_document.uri in ls.pending:
            ls.schedule(params.text_document.uri, DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: AutofixLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri.endswith("pyproject.toml"):
            ls.relint_all()
        elif uri in ls.linted or uri in ls.pending:
            ls.linted.pop(uri, None)
            ls.schedule(uri, 0, exact=True)

    @server.feature(types.INITIALIZED)
    def initialized(ls: AutofixLanguageServer, params: types.InitializedParams) -> None:
        # LibCST, the rules and the analyses load on the lint worker while the
        # editor is still busy starting up, not when the first buffer opens.
        ls.executor.submit(warm_up)
        # Ask to hear about pyproject.toml edits made outside the editor too.
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            ls.client_register_capability(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="autofix-pyproject",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml")]
                            ),
                        )
                    ]
                )
            )

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(ls: AutofixLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(change.uri.endswith("pyproject.toml") for change in params.changes):
            ls.relint_all()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: AutofixLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if uri in ls.linted or uri in ls.pending:
            ls.forget(uri)
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]),
    )
    async def code_action(
        ls: AutofixLanguageServer, params: types.CodeActionParams
    ) -> Optional[List[types.CodeAction]]:
        uri = params.text_document.uri
        if uri not in ls.linted and uri not in ls.pending:
            return None
        linted = await ls.lint(uri)
        if linted is None:
            return None
        only = params.context.only
        actions: List[types.CodeAction] = []
        if _wants(only, types.CodeActionKind.QuickFix):
            # Answer from the lint-time data of this version's diagnostics.
            mine = [d for d in linted.diagnostics if _overlaps(d.range, params.range)]
            actions.extend(quick_fixes(linted, mine))
            actions.extend(suppressions(linted, mine))
        if _wants(only, FIX_ALL_KIND) and any(
            ((d.data or {}).get("fix") or {}).get("applicability") == "safe" for d in linted.diagnostics
        ):
            edits = await fix_all(linted)
            if edits:
                actions.append(
                    types.CodeAction(
                        title="autofix: fix all safe problems",
                        kind=FIX_ALL_KIND,
                        edit=_workspace_edit(uri, linted.version, edits),
                    )
                )
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: AutofixLanguageServer, params: types.HoverParams) -> Optional[types.Hover]:
        linted = ls.linted.get(params.text_document.uri)
        if linted is None:
            return None
        here = types.Range(start=params.position, end=params.position)
        for diagnostic in linted.diagnostics:
            if _overlaps(diagnostic.range, here):
                text = explain(str(diagnostic.code))
                if text:
                    return types.Hover(
                        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                        range=diagnostic.range,
                    )
        return None

    return server
