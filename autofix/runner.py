"""Check many files, in parallel when it pays.

Small runs stay in this process. Larger ones use a pool of worker processes,
forked (where the platform allows) after the parser and the rules are warmed,
so that no worker pays for imports. Each worker is given its own contiguous
share of the paths (files of one package import the same project modules, and
a worker summarises each module it reads once), in small batches, a few at a
time; a worker whose share is done takes batches from the far end of the
largest share left. Each result is sent back as a value as soon as it is ready:
memory stays flat however large the tree, and no parsed tree ever leaves a
worker. A worker that dies (a crash in native code, the OOM killer) costs only
the file it was on, which comes back with ``error`` set; the pool replaces it.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import multiprocessing
import os
import signal
from multiprocessing.connection import Connection, wait
from typing import Any, Deque, Dict, Iterator, List, Optional, Sequence, Tuple

from autofix import api
from autofix.types import FileResult, Options

#: Runs with at most this many files are not worth starting processes for.
IN_PROCESS_MAX_FILES = 2
#: Paths per message to a worker; small, so that work spreads evenly near the end.
BATCH_SIZE = 8

_Task = Tuple[int, str]


def run(paths: Sequence[str], options: Options, *, jobs: Optional[int] = None) -> Iterator[FileResult]:
    """Yield one :class:`FileResult` per path, in the order they complete.

    ``jobs`` is the number of worker processes (``None``: one per core). A
    failure while checking one file, even the death of its worker, becomes that
    file's ``error`` and never stops the run. Results are :meth:`~FileResult.lean`:
    only files with findings or changes come with their bytes.
    """
    with _few_collections():
        yield from _run(list(paths), options, jobs)


@contextlib.contextmanager
def _few_collections() -> Iterator[None]:
    """Let Python's cycle collector run rarely while a batch runs.

    Each file leaves parse trees of a few hundred thousand objects, and a program model that
    keeps the trees it may read again: with the default thresholds, the full collections that
    walk every live object took more time than parsing (``benchmarks/bulk.py``). The trees hold
    no cycles, so reference counting frees them; the collector still runs, a hundred times less often.
    """
    before = gc.get_threshold()
    gc.set_threshold(100_000, 50, 1_000)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _run(paths: List[str], options: Options, jobs: Optional[int]) -> Iterator[FileResult]:
    if options.cache_dir is not None:
        # Cached results are served here, before any worker (or LibCST) is started:
        # a repeated run over an unchanged tree costs little more than reading it.
        misses = []
        for path in paths:
            hit = api.cached_result(path, options)
            if hit is None:
                misses.append(path)
            else:
                yield hit.lean()
        paths = misses
        if not paths:
            return
    if jobs is None:
        jobs = os.cpu_count() or 1
    jobs = max(1, min(jobs, len(paths)))
    if jobs == 1 or len(paths) <= IN_PROCESS_MAX_FILES:
        for path in paths:
            yield check_path(path, options).lean()
        return
    warm(options)
    yield from _Pool(jobs, options).run(paths)


def check_path(path: str, options: Options) -> FileResult:
    """:func:`autofix.api.check_file`, with anything unexpected turned into the file's error."""
    try:
        return api.check_file(path, options)
    except RecursionError:
        from autofix.engine import TOO_DEEP_TO_ANALYSE  # the file's problem, not autofix's: exit 1, not 2

        return FileResult(path, None, None, error=TOO_DEEP_TO_ANALYSE)
    except Exception as exc:
        return FileResult(path, None, None, error=f"internal error: {type(exc).__name__}: {exc}")


def warm(options: Options) -> None:
    """Import and exercise everything a check needs, so that forked workers inherit it."""
    try:
        api.warm_up(options)
    except Exception:
        pass  # a broken rule set shows up again, per file, where it can be reported


# --------------------------------------------------------------------------- the pool


def _context() -> Any:
    # A fork or spawn context; typeshed's BaseContext lacks the Process both have.
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _worker(conn: Connection, options: Options) -> None:
    # Ctrl-C reaches the whole process group; the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            batch = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if batch is None:
            return
        for index, path in batch:
            result = check_path(path, options).lean()  # and the bytes never cross the pipe
            try:
                conn.send((index, result))
            except (BrokenPipeError, EOFError):
                return
            except Exception as exc:  # e.g. a result that cannot be pickled
                conn.send((index, FileResult(path, None, None, error=f"internal error: {type(exc).__name__}: {exc}")))


class _Worker:
    def __init__(self, context: Any, options: Options, share: int) -> None:
        #: the index of the share of the paths this worker takes from first
        self.share = share
        self.conn, child = context.Pipe(duplex=True)
        self.process = context.Process(target=_worker, args=(child, options), daemon=True)
        self.process.start()
        child.close()
        self.pending: Deque[_Task] = collections.deque()

    def send(self, batch: List[_Task]) -> None:
        self.pending.extend(batch)
        try:
            self.conn.send(batch)
        except OSError:
            # The worker died after sending its last result (a file that kills
            # its process, say) and the pipe is gone. Its sentinel is ready:
            # _collect blames the file it was on and puts the rest of pending,
            # this batch too, back in line.
            pass

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.conn.close()


class _Pool:
    def __init__(self, jobs: int, options: Options) -> None:
        self.jobs = jobs
        self.options = options
        self.context = _context()

    def run(self, paths: List[str]) -> Iterator[FileResult]:
        tasks = list(enumerate(paths))
        # One contiguous share per worker, in the order the paths came (a directory's files together).
        per_share = -(-len(tasks) // self.jobs)
        todo = _Todo([collections.deque(tasks[start : start + per_share]) for start in range(0, len(tasks), per_share)])
        workers: Dict[int, _Worker] = {}
        try:
            for share in range(self.jobs):
                worker = _Worker(self.context, self.options, share)
                workers[id(worker)] = worker
            # Two batches per worker: one to work on, one waiting, never more.
            for _ in range(2):
                for worker in workers.values():
                    self._feed(worker, todo)
            for worker in [w for w in workers.values() if not w.pending]:
                del workers[id(worker)]  # fewer files than room in the first round
                worker.stop()
            while workers:
                ready = wait([w.conn for w in workers.values()] + [w.process.sentinel for w in workers.values()])
                for worker in list(workers.values()):
                    if worker.conn in ready or worker.process.sentinel in ready:
                        yield from self._collect(worker, todo, workers)
        finally:
            for worker in workers.values():
                worker.stop()
            for worker in workers.values():
                worker.process.join(timeout=1)
                if worker.process.is_alive():
                    worker.process.terminate()
                    worker.process.join(timeout=1)

    def _collect(self, worker: _Worker, todo: "_Todo", workers: Dict[int, _Worker]) -> Iterator[FileResult]:
        while True:
            try:
                if not worker.conn.poll():
                    break
                _, result = worker.conn.recv()
            except (EOFError, OSError):
                break
            worker.pending.popleft()
            yield result
            if len(worker.pending) <= BATCH_SIZE:
                self._feed(worker, todo)
        if worker.process.is_alive() or worker.process.exitcode is None:
            if not worker.pending and not todo:
                del workers[id(worker)]
                worker.stop()
            return
        # The worker died. The file it was on is the culprit; the rest go back in line.
        del workers[id(worker)]
        worker.conn.close()
        if worker.pending:
            _, path = worker.pending.popleft()
            yield FileResult(path, None, None, error=_death_message(worker.process.exitcode))
            todo.give_back(worker.share, worker.pending)
        if todo:
            replacement = _Worker(self.context, self.options, worker.share)
            workers[id(replacement)] = replacement
            self._feed(replacement, todo)
            self._feed(replacement, todo)

    def _feed(self, worker: _Worker, todo: "_Todo") -> None:
        # Short batches when little is left, so that the last files spread over every worker.
        size = min(BATCH_SIZE, -(-len(todo) // self.jobs))
        batch = todo.take(worker.share, size)
        if batch:
            worker.send(batch)


class _Todo:
    """The paths not yet handed out: one contiguous share per worker, taken from its front; a
    worker whose share is empty takes from the back of the largest share left."""

    def __init__(self, shares: List[Deque[_Task]]) -> None:
        self.shares = shares

    def __len__(self) -> int:
        return sum(len(share) for share in self.shares)

    def take(self, share: int, size: int) -> List[_Task]:
        own = self.shares[share] if share < len(self.shares) else None
        if own:
            return [own.popleft() for _ in range(min(size, len(own)))]
        largest = max(self.shares, key=len, default=None)
        if not largest:
            return []
        stolen = [largest.pop() for _ in range(min(size, len(largest)))]
        stolen.reverse()
        return stolen

    def give_back(self, share: int, tasks: Deque[_Task]) -> None:
        """The tasks a dead worker had not finished go back to the front of its share."""
        while len(self.shares) <= share:
            self.shares.append(collections.deque())
        self.shares[share].extendleft(reversed(tasks))


def _death_message(exitcode: Optional[int]) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"internal error: the worker checking this file died ({name})"
    return f"internal error: the worker checking this file exited with status {exitcode}"
