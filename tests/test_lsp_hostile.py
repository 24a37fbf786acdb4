"""The language server under hostile input (issue 14, "done when").

A buffer nested deeper than LibCST can parse, a 50,000-line buffer, and
``exit`` without ``shutdown`` while a lint is running: the server answers,
exits as the protocol says (0 after ``shutdown``, 1 without it), and never
writes a file.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Dict, Tuple

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from test_lsp import DOUBLE_BACKWARD, SERVER, Client, _make_client, open_doc, published

pytestmark = pytest.mark.asyncio


def snapshot(root: Path) -> Dict[str, Tuple[int, int]]:
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            st = os.stat(os.path.join(folder, name))
            found[os.path.join(folder, name)] = (st.st_size, st.st_mtime_ns)
    return found


async def start(root: Path) -> Client:
    config = ClientServerConfig(server_command=SERVER, client_factory=_make_client)
    client = await config.start()
    assert isinstance(client, Client)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="root")],
        )
    )
    return client


def big_buffer(lines: int) -> str:
    body = DOUBLE_BACKWARD.split("\n\n\n", 1)[1]
    parts = [DOUBLE_BACKWARD.split("\n\n\n", 1)[0], "\n\n"]
    count = 0
    i = 0
    while count < lines:
        chunk = body.replace("def train_step(", f"def train_step_{i}(")
        parts.append(chunk + "\n")
        count += chunk.count("\n") + 1
        i += 1
    return "".join(parts)


async def test_deep_nesting_is_answered_and_the_server_goes_on(tmp_path: Path) -> None:
    (tmp_path / "deep.py").write_text("x = 1\n")
    (tmp_path / "train.py").write_text(DOUBLE_BACKWARD)
    before = snapshot(tmp_path)
    client = await start(tmp_path)
    try:
        deep = "import torch\nloss.backward()\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
        uri = open_doc(client, tmp_path / "deep.py", deep)
        assert await published(client, uri, 1, timeout=120) == []
        uri = open_doc(client, tmp_path / "train.py", DOUBLE_BACKWARD)
        assert [d.code for d in await published(client, uri, 1, timeout=120)] == ["AF101"]
        await client.shutdown_async(None)
        client.exit(None)
        assert await asyncio.wait_for(client._server.wait(), 60) == 0
    finally:
        await client.stop()
    assert snapshot(tmp_path) == before


async def test_exit_without_shutdown_while_busy_with_a_huge_buffer(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text("x = 1\n")
    before = snapshot(tmp_path)
    client = await start(tmp_path)
    try:
        open_doc(client, tmp_path / "big.py", big_buffer(50_000))
        await asyncio.sleep(1.0)  # the lint has started
        started = time.monotonic()
        client.exit(None)
        # LSP: without a shutdown request first, the exit code is 1.
        assert await asyncio.wait_for(client._server.wait(), 60) == 1
        assert time.monotonic() - started < 60
    finally:
        await client.stop()
    assert snapshot(tmp_path) == before


async def test_shutdown_while_busy_with_a_huge_buffer_then_exit(tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    client = await start(tmp_path)
    try:
        open_doc(client, tmp_path / "big.py", big_buffer(50_000))
        await asyncio.sleep(1.0)
        await asyncio.wait_for(client.shutdown_async(None), 60)
        client.exit(None)
        assert await asyncio.wait_for(client._server.wait(), 60) == 0
    finally:
        await client.stop()
    assert snapshot(tmp_path) == before
