"""Diagnostics latency of ``autofix --lsp``: didChange → publishDiagnostics.

Generates a ~2,000-line training module (many training functions and classes,
some with findings for every rule), starts the real server as a subprocess,
opens the buffer, then sends N edits one at a time — as a user pausing
between keystrokes — and times each from the didChange notification to the
publishDiagnostics for that version. Reports the median and p90 wall time and
the server's CPU time per change (what an otherwise idle machine would see).

    python benchmarks/lsp_latency.py [--lines 2000] [--changes 30] [--opens 3] [--engine]

Targets for 2,000 lines: first diagnostics after didOpen < 500 ms median; edits < 100 ms median.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import textwrap
import time
from typing import Dict, List, Optional, Tuple

from lsprotocol import types
from pygls.lsp.client import LanguageClient

# One block per pattern: correct code mostly, with the mistakes autofix looks for.
BLOCKS = [
    """\
    def train_epoch_{i}(model, loader, opt, loss_fn):
        model.train()
        total = 0.0
        for step, (x, y) in enumerate(loader):
            opt.zero_grad()
            out = model(x)
            loss = loss_fn(out, y)
            loss.backward()
            opt.step()
            total += loss.item()
        return total / max(1, len(loader))
    """,
    """\
    def train_two_heads_{i}(model, loader, opt):
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            loss_a = out.pow(2).mean()
            loss_b = (out - y).abs().mean()
            loss_a.backward()
            loss_b.backward()
            opt.step()
    """,
    """\
    class Trainer{i}:
        def __init__(self, model, opt):
            self.model = model
            self.opt = opt
            self.history = []

        def fit(self, loader, epochs=1):
            running = 0
            for _ in range(epochs):
                for x, y in loader:
                    self.opt.zero_grad()
                    loss = F.mse_loss(self.model(x), y)
                    loss.backward()
                    self.opt.step()
                    running += loss
            self.history.append(running)
            return running
    """,
    """\
    def rnn_epoch_{i}(rnn, head, batches, opt):
        h = torch.zeros(1, 8, 16)
        for x, y in batches:
            opt.zero_grad()
            out, h = rnn(x, h)
            loss = F.cross_entropy(head(out[-1]), y)
            loss.backward()
            opt.step()
        return h
    """,
    """\
    def accumulate_{i}(model, loader, opt, accum=4):
        opt.zero_grad()
        for step, (x, y) in enumerate(loader):
            loss = F.mse_loss(model(x), y) / accum
            loss.backward()
            if (step + 1) % accum == 0:
                opt.step()
                opt.zero_grad()
    """,
    """\
    def forward_block_{i}(x, w):
        h = x @ w
        h.relu_()
        return h.sum()
    """,
    """\
    @torch.no_grad()
    def evaluate_{i}(model, loader):
        correct = 0
        for x, y in loader:
            pred = model(x).argmax(dim=-1)
            correct += (pred == y).sum().item()
        return correct
    """,
]

HEADER = """\
import torch
import torch.nn.functional as F
from torch import nn


"""


#: After this long without a publication for the opened version, opening is over.
QUIET_S = 8.0


def make_module(lines: int) -> str:
    parts = [HEADER]
    count = HEADER.count("\n")
    i = 0
    while count < lines:
        block = textwrap.dedent(BLOCKS[i % len(BLOCKS)]).format(i=i) + "\n\n"
        parts.append(block)
        count += block.count("\n")
        i += 1
    return "".join(parts)


def cpu_seconds(pid: int) -> Optional[float]:
    """CPU time (user + system) the server process has used so far (Linux only)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(text: str, changes: int, pause: float, opens: int) -> Tuple[List[float], List[float]]:
    client = LanguageClient("autofix-latency-benchmark", "1")
    waiting: Dict[int, asyncio.Future] = {}

    #: Every publication: uri -> [(perf_counter time, version, diagnostics)].
    seen: Dict[str, List[Tuple[float, Optional[int], int]]] = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: types.PublishDiagnosticsParams) -> None:
        seen.setdefault(params.uri, []).append((time.perf_counter(), params.version, len(params.diagnostics)))
        future = waiting.get(params.version)
        if future is not None and not future.done():
            future.set_result(len(params.diagnostics))

    await client.start_io(sys.executable, "-m", "autofix", "--lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    loop = asyncio.get_running_loop()

    async def open_and_settle(uri: str, text: str) -> List[Tuple[float, int]]:
        """Open ``uri``; every publication until the server goes quiet, as (seconds after didOpen, diagnostics)."""
        opened = time.perf_counter()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        # A long buffer's first lint publishes what it has found so far while it
        # goes on, then everything, then (if it differs) the whole-file lint's result.
        while not seen.get(uri) or time.perf_counter() - seen[uri][-1][0] < QUIET_S:
            await asyncio.sleep(0.05)
            if time.perf_counter() - opened > 1800:
                raise TimeoutError(uri)
        return [(t - opened, n) for t, _, n in seen[uri]]

    # The first buffer a fresh server sees pays for loading LibCST and the
    # rules (unless the warm-up started by `initialized` is done): time it apart.
    small = make_module(40)
    first = await open_and_settle("file:///tmp/autofix-latency/small.py", small)
    print(f"first buffer of a fresh server ({small.count(chr(10))} lines): diagnostics after {first[0][0] * 1e3:.0f} ms")

    firsts = []
    for k in range(opens):
        uri = f"file:///tmp/autofix-latency/train{k}.py"
        opening = await open_and_settle(uri, text)
        firsts.append(opening[0][0] * 1e3)
        print(f"open {k + 1}: first diagnostics after {opening[0][0] * 1e3:.0f} ms ({opening[0][1]}); "
              f"all {opening[-1][1]} after {opening[-1][0]:.1f} s; "
              f"{len(opening)} publications")
        if k + 1 < opens:
            client.text_document_did_close(
                types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
    print(f"open -> first diagnostics: median {statistics.median(firsts):.0f} ms over {opens} opens")

    timings, cpu = [], []
    pid = client._server.pid
    lines = text.splitlines(keepends=True)
    # Typing at the end of a statement inside a training function mid-file.
    target = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].strip() == "opt.step()")
    original = lines[target].rstrip("\n")
    for n in range(changes):
        version = n + 2
        lines[target] = f"{original}  # tuning {'x' * (n + 1)}\n"
        waiting[version] = loop.create_future()
        started = time.perf_counter()
        cpu_before = cpu_seconds(pid)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text="".join(lines))],
            )
        )
        await asyncio.wait_for(waiting[version], 60)
        timings.append((time.perf_counter() - started) * 1e3)
        cpu_after = cpu_seconds(pid)
        if cpu_before is not None and cpu_after is not None:
            cpu.append((cpu_after - cpu_before) * 1e3)
        await asyncio.sleep(pause)

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return timings, cpu


def _p90(values: List[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * len(ordered))) - 1)]


def engine_ms(text: str, runs: int) -> float:
    from autofix import api
    from autofix.types import Options

    data = text.encode()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        api.fix_source(data, "train.py", Options(fix=False))
        times.append((time.perf_counter() - started) * 1e3)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument("--opens", type=int, default=3, help="times the long buffer is opened afresh")
    parser.add_argument("--pause", type=float, default=0.15, help="seconds between edits")
    parser.add_argument("--engine", action="store_true", help="also time one whole-file lint, for comparison")
    args = parser.parse_args()

    text = make_module(args.lines)
    timings, cpu = asyncio.run(measure(text, args.changes, args.pause, args.opens))
    median = statistics.median(timings)
    print(f"file: {text.count(chr(10))} lines; {len(timings)} changes; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"didChange -> publishDiagnostics: median {median:.1f} ms, p90 {_p90(timings):.1f} ms, max {max(timings):.1f} ms")
    if cpu:
        # On a busy machine wall time includes waiting for a CPU; the server's
        # own CPU time per change is what an idle machine would take.
        print(f"server CPU time per change: median {statistics.median(cpu):.0f} ms, p90 {_p90(cpu):.0f} ms (10 ms ticks)")
    if args.engine:
        print(f"whole-file engine lint (in-process, one run): {engine_ms(text, runs=1):.0f} ms")
    return 0 if median < 100 else 1


if __name__ == "__main__":
    sys.exit(main())
