"""The language server, end to end: a real ``autofix --lsp`` subprocess driven over LSP.

Each test starts the server with pytest-lsp's client, opens buffers (never
saved to disk unless the test says so), and checks what comes back against
the CLI: a quick fix or a fix-all applied by the client must produce exactly
what ``autofix --write`` writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import AsyncIterator, List, Optional, Sequence

import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from autofix import api
from autofix.lsp import convert
from autofix.types import Finding, TextEdit

SERVER = [sys.executable, "-m", "autofix", "--lsp"]

DOUBLE_BACKWARD = textwrap.dedent(
    """\
    import torch
    from torch import nn

    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)


    def train_step(x, y):
        opt.zero_grad()
        out = model(x)
        loss_a = out.pow(2).mean()
        loss_b = (out - y).abs().mean()
        loss_a.backward()
        loss_b.backward()
        opt.step()
    """
)


# --------------------------------------------------------------------------- client plumbing


class Client(LanguageClient):
    """pytest-lsp's client, keeping every publishDiagnostics with its version."""

    published: List[types.PublishDiagnosticsParams]


def _make_client() -> Client:
    client = Client(converter_factory=default_converter)
    client.published = []

    def publish(client: Client, params: types.PublishDiagnosticsParams) -> None:
        client.published.append(params)
        client.diagnostics[params.uri] = params.diagnostics

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish})
    return client


@contextlib.asynccontextmanager
async def server(
    root: Path, encodings: Optional[Sequence[str]] = None, env: Optional[dict] = None
) -> AsyncIterator[Client]:
    config = ClientServerConfig(server_command=SERVER, client_factory=_make_client, server_env=env)
    client = await config.start()
    assert isinstance(client, Client)
    general = types.GeneralClientCapabilities(position_encodings=list(encodings)) if encodings else None
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(general=general),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="root")],
        )
    )
    client.server_capabilities = result.capabilities
    try:
        yield client
    finally:
        await client.shutdown_session()
        await client.stop()


async def published(client: Client, uri: str, version: int, timeout: float = 20.0) -> List[types.Diagnostic]:
    """The diagnostics the server published for ``version`` of ``uri`` (waits for them)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for params in client.published:
            if params.uri == uri and params.version == version:
                return list(params.diagnostics)
        await asyncio.sleep(0.01)
    raise AssertionError(f"no diagnostics for {uri} version {version}; got {client.published}")


def open_doc(client: Client, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )
    return uri


def change_doc(client: Client, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def code_actions(
    client: Client, uri: str, rng: types.Range, diagnostics=(), only=None
) -> List[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


def apply_edit(text: str, edit: types.WorkspaceEdit, uri: str, version: int, encoding: str = "utf-16") -> str:
    """Apply a WorkspaceEdit as an editor does (written independently of autofix.lsp.convert)."""
    assert edit.changes is None and edit.document_changes is not None
    (change,) = edit.document_changes
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.uri == uri and change.text_document.version == version
    # Test texts end lines with \n or \r\n only, where str.splitlines agrees with LSP.
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(pos: types.Position) -> int:
        if pos.line >= len(lines):
            return len(text)
        line = lines[pos.line].rstrip("\r\n")
        unit = {"utf-16": ("utf-16-le", 2), "utf-8": ("utf-8", 1), "utf-32": ("utf-32-le", 4)}[encoding]
        raw = line.encode(unit[0])[: pos.character * unit[1]]
        return starts[pos.line] + len(raw.decode(unit[0]))

    out = text
    for e in sorted(change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        out = out[: offset(e.range.start)] + e.new_text + out[offset(e.range.end) :]
    return out


def cli_write(tmp_path: Path, text: str, *flags: str) -> str:
    """What ``autofix --write`` makes of ``text`` (on a copy, bytes as they are)."""
    target = tmp_path / "cli_copy" / "train.py"
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(text.encode("utf-8"))
    proc = subprocess.run(
        [sys.executable, "-m", "autofix", "--write", *flags, str(target)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return target.read_bytes().decode("utf-8")


# --------------------------------------------------------------------------- end to end


@pytest.mark.asyncio
async def test_double_backward_quick_fix_equals_cli_write(tmp_path: Path) -> None:
    async with server(tmp_path) as client:
        uri = open_doc(client, tmp_path / "train.py", DOUBLE_BACKWARD)
        diagnostics = await published(client, uri, 1)

        (diagnostic,) = [d for d in diagnostics if d.code == "AF101"]
        assert diagnostic.source == "autofix"
        assert diagnostic.severity == types.DiagnosticSeverity.Error  # AF101 raises at run time
        assert diagnostic.message
        # The range points into the buffer at the second backward (LSP lines are 0-based).
        assert 11 <= diagnostic.range.start.line <= 13

        actions = await code_actions(client, uri, diagnostic.range, [diagnostic])
        fixes = [a for a in actions if a.kind == types.CodeActionKind.QuickFix and "suppress" not in a.title]
        assert len(fixes) == 1, [a.title for a in actions]
        (fix,) = fixes
        assert list(fix.diagnostics) == [diagnostic]
        unsafe = fix.title.endswith("(unsafe)")
        assert fix.is_preferred is (not unsafe)
        # Minimal edits, not a whole-file replacement.
        (change,) = fix.edit.document_changes
        assert sum(e.new_text.count("\n") for e in change.edits) < DOUBLE_BACKWARD.count("\n") // 2

        fixed = apply_edit(DOUBLE_BACKWARD, fix.edit, uri, 1)
        flags = ("--unsafe-fixes",) if unsafe else ()
        assert fixed != DOUBLE_BACKWARD
        assert fixed == cli_write(tmp_path, DOUBLE_BACKWARD, *flags)
        options = api.Options(unsafe_fixes=unsafe)
        assert fixed.encode() == api.fix_source(DOUBLE_BACKWARD, str(tmp_path / "train.py"), options).fixed

        # The fixed buffer lints clean.
        change_doc(client, uri, fixed, 2)
        assert [d for d in await published(client, uri, 2) if d.code == "AF101"] == []
        assert client.messages == []


@pytest.mark.asyncio
async def test_fix_all_applies_every_safe_fix_like_cli_write(tmp_path: Path) -> None:
    text = DOUBLE_BACKWARD + textwrap.dedent(
        """

        def train_twice(batches):
            for x, y in batches:
                opt.zero_grad()
                out = model(x)
                first = out.sum()
                second = (out * y).sum()
                first.backward()
                second.backward()
                opt.step()
        """
    )
    async with server(tmp_path) as client:
        uri = open_doc(client, tmp_path / "train.py", text)
        diagnostics = await published(client, uri, 1)
        assert len([d for d in diagnostics if d.code == "AF101"]) >= 2

        whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=len(text.splitlines()), character=0))
        actions = await code_actions(client, uri, whole, diagnostics, only=["source.fixAll"])
        expected = cli_write(tmp_path, text)
        assert expected != text
        (fix_all,) = actions
        assert fix_all.kind == "source.fixAll.autofix"
        assert apply_edit(text, fix_all.edit, uri, 1) == expected

        # ``only`` is honoured: a quickfix-only request has no fix-all.
        quick = await code_actions(client, uri, whole, diagnostics, only=[types.CodeActionKind.QuickFix])
        assert all(a.kind == types.CodeActionKind.QuickFix for a in quick)


@pytest.mark.asyncio
async def test_non_ascii_before_the_finding_uses_utf16_columns(tmp_path: Path) -> None:
    # Astral characters before the finding on its line, and in the lines around it.
    text = DOUBLE_BACKWARD.replace("def train_step(x, y):", "def train_step(x, y, 𝓵=\"🔥🔥\"):")
    text = text.replace(
        "    loss_b.backward()\n", "    tag = \"😀 ünïcode 🚀\"; loss_b.backward()  # 🐍\n"
    )
    async with server(tmp_path) as client:
        uri = open_doc(client, tmp_path / "train.py", text)
        diagnostics = [d for d in await published(client, uri, 1) if d.code == "AF101"]
        assert diagnostics, "AF101 must fire through a `;` line"
        diagnostic = diagnostics[0]
        finding = next(f for f in api.fix_source(text, "train.py").findings if f.code == "AF101")
        line = text.splitlines()[finding.line - 1]
        prefix = line[: finding.column - 1]
        assert diagnostic.range.start.line == finding.line - 1
        # Each emoji is one code point but two UTF-16 units.
        assert diagnostic.range.start.character == len(prefix.encode("utf-16-le")) // 2
        assert "😀" in prefix and diagnostic.range.start.character == finding.column - 1 + 2

        actions = await code_actions(client, uri, diagnostic.range, [diagnostic])
        fix = next(a for a in actions if "suppress" not in a.title)
        unsafe = fix.title.endswith("(unsafe)")
        fixed = apply_edit(text, fix.edit, uri, 1)
        assert fixed == cli_write(tmp_path, text, *(("--unsafe-fixes",) if unsafe else ()))


@pytest.mark.asyncio
async def test_crlf_line_ends(tmp_path: Path) -> None:
    text = DOUBLE_BACKWARD.replace("\n", "\r\n")
    async with server(tmp_path) as client:
        uri = open_doc(client, tmp_path / "train.py", text)
        (diagnostic,) = [d for d in await published(client, uri, 1) if d.code == "AF101"]
        assert text.split("\r\n")[diagnostic.range.start.line].strip().startswith("loss_b.backward")
        actions = await code_actions(client, uri, diagnostic.range, [diagnostic])
        fix = next(a for a in actions if "suppress" not in a.title)
        fixed = apply_edit(text, fix.edit, uri, 1)
        assert "\r\n" in fixed and "\n" not in fixed.replace("\r\n", "")
        assert fixed == cli_write(tmp_path, text, *(("--unsafe-fixes",) if fix.title.endswith("(unsafe)") else ()))


@pytest.mark.asyncio
async def test_utf8_position_encoding_when_the_client_prefers_it(tmp_path: Path) -> None:
    text = DOUBLE_BACKWARD.replace("    loss_b.backward()\n", "    tag = \"😀\"; loss_b.backward()\n")
    async with server(tmp_path, encodings=["utf-8", "utf-16"]) as client:
        assert client.server_capabilities.position_encoding == "utf-8"
        uri = open_doc(client, tmp_path / "train.py", text)
        (diagnostic,) = [d for d in await published(client, uri, 1) if d.code == "AF101"]
        line = text.splitlines()[diagnostic.range.start.line]
        assert line.encode("utf-8")[diagnostic.range.start.character :].startswith(b"loss_b.backward")


@pytest.mark.asyncio
async def test_suppression_action_silences_the_finding(tmp_path: Path) -> None:
    async with server(tmp_path) as client:
        uri = open_doc(client, tmp_path / "train.py", DOUBLE_BACKWARD)
        (diagnostic,) = [d for d in await published(client, uri, 1) if d.code == "AF101"]
        actions = await code_actions(client, uri, diagnostic.range, [diagnostic])
        (suppress,) = [a for a in actions if "suppress" in a.title]
        suppressed = apply_edit(DOUBLE_BACKWARD, suppress.edit, uri, 1)
        assert "# autofix: ignore[AF101]" in suppressed.splitlines()[diagnostic.range.start.line]
        change_doc(client, uri, suppressed, 2)
        assert [d for d in await published(client, uri, 2) if d.code == "AF101"] == []
        # The CLI agrees: nothing left to report.
        assert [f for f in api.fix_source(suppressed, "train.py").findings if f.code == "AF101"] == []


@pytest.mark.asyncio
async def test_syntax_errors_while_typing_clear_diagnostics_without_error_messages(tmp_path: Path) -> None:
    async with server(tmp_path) as client:
        uri = open_doc(client, tmp_path / "train.py", DOUBLE_BACKWARD)
        assert await published(client, uri, 1)
        # Half-typed lines, one change at a time as an editor sends them.
        broken = DOUBLE_BACKWARD.replace("    opt.step()\n", "    opt.step(\n    if loss_a >\n")
        change_doc(client, uri, broken, 2)
        assert await published(client, uri, 2) == []
        change_doc(client, uri, broken + "    def (", 3)
        assert await published(client, uri, 3) == []
        # Opening a document that does not parse at all.
        other = open_doc(client, tmp_path / "other.py", "def f(:\n    x.backward(\n")
        assert await published(client, other, 1) == []
        # Typing on to valid code brings the diagnostics back.
        change_doc(client, uri, DOUBLE_BACKWARD, 4)
        assert [d.code for d in await published(client, uri, 4)] == ["AF101"]
        assert client.messages == []  # no window/showMessage spam
        assert client.error is None


@pytest.mark.asyncio
async def test_rapid_changes_publish_only_for_the_latest_version(tmp_path: Path) -> None:
    async with server(tmp_path) as client:
        uri = open_doc(client, tmp_path / "train.py", "import torch\n")
        assert await published(client, uri, 1) == []
        for version in range(2, 12):
            change_doc(client, uri, DOUBLE_BACKWARD if version % 2 else "import torch\n", version)
        assert [d.code for d in await published(client, uri, 11)] == ["AF101"]
        # Debounced: the burst did not produce one publish per keystroke.
        assert len([p for p in client.published if p.uri == uri]) < 11


@pytest.mark.asyncio
async def test_configuration_and_unsaved_buffers(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.autofix]\nignore = ["AF101"]\n')
    async with server(tmp_path) as client:
        # The document's own path finds proj/pyproject.toml: AF101 is ignored there.
        ignored = open_doc(client, project / "pkg" / "train.py", DOUBLE_BACKWARD)
        assert await published(client, ignored, 1) == []
        # Editing the configuration (here outside the editor) re-lints open buffers.
        (project / "pyproject.toml").write_text('[tool.autofix]\nignore = ["AF104"]\n')
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=(project / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]
            )
        )
        await _settled(client, ignored, 1, ["AF101"])
        # Outside that project the default configuration applies; the file need not exist.
        elsewhere = open_doc(client, tmp_path / "unsaved.py", DOUBLE_BACKWARD)
        assert [d.code for d in await published(client, elsewhere, 1)] == ["AF101"]
        assert not (tmp_path / "unsaved.py").exists()
        # An untitled buffer lints too.
        untitled = "untitled:Untitled-1"
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=untitled, language_id="python", version=1, text=DOUBLE_BACKWARD)
            )
        )
        assert [d.code for d in await published(client, untitled, 1)] == ["AF101"]
        # per-file-ignores globs are relative to the pyproject.toml, as for the CLI.
        other = tmp_path / "other"
        (other / "legacy").mkdir(parents=True)
        (other / "pyproject.toml").write_text('[tool.autofix.per-file-ignores]\n"legacy/*.py" = ["AF101"]\n')
        legacy = open_doc(client, other / "legacy" / "old.py", DOUBLE_BACKWARD)
        fresh = open_doc(client, other / "new.py", DOUBLE_BACKWARD)
        assert await published(client, legacy, 1) == []
        assert [d.code for d in await published(client, fresh, 1)] == ["AF101"]
        # A broken configuration: one warning, then the defaults.
        broken = tmp_path / "broken"
        broken.mkdir()
        (broken / "pyproject.toml").write_text("[tool.autofix]\nselct = ['AF101']\n")
        for n in range(2):
            uri = open_doc(client, broken / f"t{n}.py", DOUBLE_BACKWARD)
            assert [d.code for d in await published(client, uri, 1)] == ["AF101"]
        (warning,) = client.messages
        assert warning.type == types.MessageType.Warning and "selct" in warning.message
        # Closing a document clears its diagnostics.
        client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=elsewhere)))
        for _ in range(500):
            if client.published[-1].uri == elsewhere and not client.published[-1].diagnostics:
                break
            await asyncio.sleep(0.01)
        assert client.published[-1].uri == elsewhere and not client.published[-1].diagnostics


# zero_grad() in one function, the loop in another: only the whole module shows
# that the optimizer's gradients are zeroed, so a per-function lint alone reports AF104.
CROSS_FUNCTION = textwrap.dedent(
    """\
    import torch
    from torch import nn

    model = nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)


    def reset():
        opt.zero_grad()


    def train(data):
        for x in data:
            loss = model(x).sum()
            loss.backward()
            opt.step()
    """
)


async def _settled(client: Client, uri: str, version: int, expected: list, timeout: float = 60.0) -> list:
    """The last diagnostics published for ``version`` once they match ``expected`` codes."""
    deadline = time.monotonic() + timeout
    codes: list = []
    while time.monotonic() < deadline:
        mine = [p for p in client.published if p.uri == uri and p.version == version]
        if mine:
            codes = [d.code for d in mine[-1].diagnostics]
            if codes == expected:
                return list(mine[-1].diagnostics)
        await asyncio.sleep(0.05)
    raise AssertionError(f"version {version} settled on {codes}, expected {expected}")


@pytest.mark.asyncio
async def test_whole_file_lint_corrects_the_per_function_lint(tmp_path: Path) -> None:
    expected = [f.code for f in api.fix_source(CROSS_FUNCTION, "train.py").findings]
    assert "AF104" not in expected
    async with server(tmp_path) as client:
        uri = open_doc(client, tmp_path / "train.py", CROSS_FUNCTION)
        await published(client, uri, 1)
        # On open the whole-file lint follows at once and its result wins.
        await _settled(client, uri, 1, expected)
        # After an edit, once typing pauses.
        change_doc(client, uri, CROSS_FUNCTION.replace("lr=0.1", "lr=0.2"), 2)
        await _settled(client, uri, 2, expected)
        assert client.messages == []


@pytest.mark.asyncio
async def test_hover_on_a_finding_shows_the_rule_explanation(tmp_path: Path) -> None:
    async with server(tmp_path) as client:
        uri = open_doc(client, tmp_path / "train.py", DOUBLE_BACKWARD)
        (diagnostic,) = [d for d in await published(client, uri, 1) if d.code == "AF101"]
        hover = await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=diagnostic.range.start)
        )
        assert hover is not None and "AF101" in hover.contents.value
        assert "What it does" in hover.contents.value


@pytest.mark.asyncio
async def test_shutdown_and_exit(tmp_path: Path) -> None:
    config = ClientServerConfig(server_command=SERVER, client_factory=_make_client)
    client = await config.start()
    await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities()))
    await client.shutdown_async(None)
    client.exit(None)
    assert await asyncio.wait_for(client._server.wait(), 20) == 0
    await client.stop()


# --------------------------------------------------------------------------- in-process checks


# Installed through PYTHONPATH in the server and every process it starts:
# records (and refuses) any attempt to import torch.
TORCH_TRIPWIRE = """\
import os, sys

class _Tripwire:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            with open(os.environ["AUTOFIX_TORCH_TRIPWIRE"], "a") as log:
                log.write(f"{os.getpid()} imported {name}\\n")
            raise ImportError("torch is not allowed here")
        return None

sys.meta_path.insert(0, _Tripwire())
"""


@pytest.mark.asyncio
async def test_the_server_never_imports_torch(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text(TORCH_TRIPWIRE)
    log = tmp_path / "torch-imports.log"
    env = {**os.environ, "PYTHONPATH": str(probe), "AUTOFIX_TORCH_TRIPWIRE": str(log)}
    text = DOUBLE_BACKWARD + "\n\n" + CROSS_FUNCTION.split("\n\n\n", 1)[1]
    async with server(tmp_path, env=env) as client:
        # Every feature: per-unit and whole-file lints, quick fixes, fix-all (a child process), hover.
        uri = open_doc(client, tmp_path / "train.py", text)
        diagnostics = await published(client, uri, 1)
        assert diagnostics
        whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=len(text.splitlines()), character=0))
        assert await code_actions(client, uri, whole, diagnostics)
        await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=diagnostics[0].range.start)
        )
        client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
        await asyncio.sleep(3)  # let the whole-file lint's child process run
    assert not log.exists(), log.read_text()
    # The tripwire works: a process that imports torch trips it.
    proc = subprocess.run([sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "imported torch" in log.read_text()


def _finding(line: int, column: int, end_line: int, end_column: int) -> Finding:
    return Finding("x.py", "AF101", "double-backward", "m", line, column, end_line, end_column)


@pytest.mark.parametrize(
    "encoding, expected",
    [
        pytest.param("utf-16", 11, id="utf-16 counts astral characters twice"),
        pytest.param("utf-8", 16, id="utf-8 counts bytes"),
        pytest.param("utf-32", 9, id="utf-32 counts code points"),
    ],
)
def test_positions_convert_per_encoding(encoding: str, expected: int) -> None:
    text = "a = 1\ns = '😀é🚀'; y\n"
    document = convert.Document(text, encoding)
    rng = document.finding_range(_finding(2, 10, 2, 11))  # ``;``: code point 9 of its line
    assert rng.start == types.Position(line=1, character=expected)
    assert document.offset(rng.start) == text.index(";")


def test_engine_edits_survive_line_breaks_lsp_does_not_know() -> None:
    # \f and U+2028 end lines for str.splitlines (the engine) but not for LSP.
    text = "x = 1\f\ny = '\u2028'\r\nz = 3\n"
    document = convert.Document(text, "utf-16")
    assert document.lines == ["x = 1\f", "y = '\u2028'", "z = 3", ""]
    # For the engine "z = 3" is line 5: \f and U+2028 each end a line there.
    edit = document.text_edit(TextEdit(5, 0, 6, 0, "z = 4\n"))
    assert edit.range.start == types.Position(line=2, character=0)
    assert edit.range.end == types.Position(line=3, character=0)
    assert convert.apply_text_edits(text, [edit], "utf-16") == text.replace("z = 3", "z = 4")


def test_edit_at_end_of_text_without_final_newline() -> None:
    text = "a\nb"
    document = convert.Document(text, "utf-16")
    edit = document.text_edit(TextEdit(2, 0, 3, 0, "c\n"))
    assert edit.range.end == types.Position(line=1, character=1)
    assert convert.apply_text_edits(text, [edit], "utf-16") == "a\nc\n"


def _lint_both(text: str):
    from autofix.lsp import server as s
    from autofix.lsp.incremental import units

    options = api.Options(fix=False)
    full = [s.to_diagnostic(f, convert.Document(text, "utf-16"), None) for f in api.fix_source(text, "t.py", options).findings]

    views = []

    def run(view: str):
        views.append(view)
        return s.run_engine(view, "t.py", options)

    def per_unit(linter):
        return linter.lint(
            text, units(text), ("t.py", options), "utf-16", run,
            lambda finding, document: s.to_diagnostic(finding, document, None),
        )

    return full, per_unit, views


def test_per_unit_lint_matches_the_whole_file_lint_and_follows_moved_lines() -> None:
    from autofix.lsp.incremental import IncrementalLinter

    second = DOUBLE_BACKWARD.split("\n\n\n", 1)[1].replace("train_step", "train_again").replace("loss_a", "l_a")
    text = DOUBLE_BACKWARD + "\n\n" + second + "\n\ndef helper(x):\n    return x * 2\n"
    linter = IncrementalLinter()
    full, per_unit, views = _lint_both(text)
    assert len(full) == 2 and per_unit(linter) == full
    assert len(views) == 4  # the module-level code, then each of the three functions with it
    # Lines inserted above every unit: cached results move with their units.
    moved = text.replace("import torch\n", "import torch\n\n# a comment\n\n", 1)
    full, per_unit, views = _lint_both(moved)
    assert per_unit(linter) == full
    assert [v for v in views if "def " in v] == []  # no function was linted again
    # An edit inside one function re-lints that function only.
    edited = moved.replace("return x * 2", "return x * 3")
    full, per_unit, views = _lint_both(edited)
    assert per_unit(linter) == full
    assert len(views) == 1 and "def helper" in views[0] and "def train_step" not in views[0]


def test_a_long_first_lint_publishes_what_it_found_so_far(monkeypatch) -> None:
    from autofix.lsp import incremental
    from autofix.lsp import server as s

    # Twelve functions, each with a double backward: a first lint of them all takes a while.
    body = DOUBLE_BACKWARD.split("\n\n\n", 1)[1]
    text = DOUBLE_BACKWARD.split("\n\n\n", 1)[0] + "".join(
        "\n\n\n" + body.replace("train_step", f"train_step_{i}") for i in range(12)
    )
    options = api.Options(fix=False)
    monkeypatch.setattr(incremental, "PROGRESS_S", 0.0)  # publish after every unit
    partials: list = []
    linter = incremental.IncrementalLinter()
    final = linter.lint(
        text, incremental.units(text), ("t.py", options), "utf-16",
        lambda view: s.run_engine(view, "t.py", options),
        lambda finding, document: s.to_diagnostic(finding, document, None),
        partials.append,
    )
    assert len(final) == 12
    # One publication per unit while at least PROGRESS_MIN_LEFT are still to come,
    # each the final diagnostics of the units done so far.
    assert [len(p) for p in partials] == list(range(1, 13 - incremental.PROGRESS_MIN_LEFT))
    assert all(p == final[: len(p)] for p in partials)
    # Re-linting the same text hits the cache: nothing partial to publish.
    partials.clear()
    assert linter.lint(
        text, incremental.units(text), ("t.py", options), "utf-16",
        lambda view: s.run_engine(view, "t.py", options),
        lambda finding, document: s.to_diagnostic(finding, document, None),
        partials.append,
    ) == final
    assert partials == []


def test_respan_after_an_edit_agrees_with_a_full_parse() -> None:
    import random

    from autofix.lsp.incremental import IncrementalLinter, respan, units

    text = (DOUBLE_BACKWARD + "\n\n" + CROSS_FUNCTION.split("\n\n\n", 1)[1]) * 3
    pieces = ["x", "\n", "\n    y = 1\n", "def", "(", ")", "  # c", '"""', "\\\n", "\r\n", "\t", "class A:\n    pass\n", ""]
    rng = random.Random(7)
    answered = 0
    for _ in range(300):
        linter = IncrementalLinter()
        assert linter.segment(text) == units(text)
        i = rng.randrange(len(text))
        j = min(len(text), i + rng.choice([0, 0, 1, 3, 20]))
        new = text[:i] + rng.choice(pieces) + text[j:]
        _, _, starts, spans = linter._last
        got = respan(text, starts, spans, new)
        if got is not None:
            answered += 1
            assert got == units(new), (i, j)
    assert answered > 30  # the shortcut is taken for ordinary edits


@pytest.mark.parametrize(
    "line, expected",
    [
        pytest.param("    loss.backward()", "    loss.backward()  # autofix: ignore[AF101]", id="new comment"),
        pytest.param("    loss.backward()  # noqa", "    loss.backward()  # noqa  # autofix: ignore[AF101]", id="after another comment"),
        pytest.param(
            "    loss.backward()  # autofix: ignore[AF104]",
            "    loss.backward()  # autofix: ignore[AF104, AF101]",
            id="extends an existing suppression",
        ),
        pytest.param("    loss.backward()  # autofix: ignore", None, id="already suppressed for every code"),
    ],
)
def test_suppression_comment(line: str, expected: Optional[str]) -> None:
    from autofix.lsp.server import suppressed_line

    assert suppressed_line(line, "AF101") == expected


@pytest.mark.parametrize(
    "text, line",
    [
        pytest.param('x = """start\nloss.backward()\n"""\n', 0, id="line ends inside a string"),
        pytest.param("total = a + \\\n    b\n", 0, id="line ends with a backslash"),
    ],
)
def test_no_suppression_where_a_comment_cannot_go(text: str, line: int) -> None:
    from autofix.lsp.server import _comment_survives, suppressed_line

    document = convert.Document(text, "utf-16")
    assert not _comment_survives(document, line, suppressed_line(document.lines[line], "AF101"))
