from __future__ import annotations

import multiprocessing
import collections
import os
import signal

import pytest

from autofix import api, runner
from autofix.rule import Rule
from autofix.types import Options

OPTIONS = Options(select=("ALL",))
fork_only = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(),
    reason="the test's rule is patched in and reaches workers only by fork",
)


class _Trap(Rule):
    """Test-only rule: reports `TRAP`, crashes on `CRASH`, kills its process on `DIE`."""

    # No CODE: stays out of the registry; the tests hand it to the engine directly.
    NAME = "trap"
    MESSAGE = "trap"
    TRIGGERS = ("TRAP", "CRASH", "DIE")

    def check(self) -> None:
        code = self.context.module.code
        if "DIE" in code:
            os.kill(os.getpid(), signal.SIGKILL)
        if "CRASH" in code:
            raise ValueError("rule bug")
        if "TRAP" in code:
            self.report(self.context.module.body[0])


_Trap.CODE = "AF999"


@pytest.fixture
def trap(monkeypatch):
    monkeypatch.setattr(api, "rules_for", lambda options, path=None: [_Trap])
    # The text screen before the engine asks the registry: it must see the trap alone too.
    monkeypatch.setattr(api, "no_rule_may_fire", lambda source, options, path=None: not _Trap.may_fire(source.decode("latin-1")))


def tree(tmp_path, count, special=()):
    paths = []
    for i in range(count):
        path = tmp_path / f"m{i:04d}.py"
        path.write_text(f"x = {i}\n")
        paths.append(str(path))
    for i, text in special:
        (tmp_path / f"m{i:04d}.py").write_text(text)
    return paths


def by_path(results):
    return {r.path: r for r in results}


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_every_path_comes_back_once(tmp_path, jobs):
    paths = tree(tmp_path, 40)
    results = list(runner.run(paths, OPTIONS, jobs=jobs))
    assert sorted(r.path for r in results) == sorted(paths)
    assert all(r.error is None and r.source == r.fixed for r in results)


@fork_only
def test_parallel_results_equal_in_process_results(tmp_path, trap):
    paths = tree(tmp_path, 30, special=[(3, "TRAP = 1\n"), (17, "y = TRAP\n"), (20, "x = (TRAP\n")])
    serial = by_path(runner.run(paths, OPTIONS, jobs=1))
    parallel = by_path(runner.run(paths, OPTIONS, jobs=2))
    assert serial == parallel
    assert [len(parallel[p].findings) for p in paths].count(1) == 2
    assert parallel[paths[20]].error.startswith("syntax error")


@fork_only
@pytest.mark.parametrize("jobs", [1, 2])
def test_only_files_with_findings_or_fixes_keep_their_bytes(tmp_path, trap, jobs):
    # The parent of a many-file run must not hold the whole tree's bytes.
    paths = tree(tmp_path, 12, special=[(3, "TRAP = 1\n")])
    results = by_path(runner.run(paths, OPTIONS, jobs=jobs))
    assert results[paths[3]].source == b"TRAP = 1\n" and results[paths[3]].findings
    clean = [results[p] for p in paths if p != paths[3]]
    assert all(r.source is None and r.fixed is None and r.source_dropped for r in clean)
    assert not any(r.changed or r.error for r in clean)


def test_the_summary_counts_files_whose_bytes_were_let_go(tmp_path):
    from click.testing import CliRunner

    from autofix.cli import cli

    for i in range(4):
        (tmp_path / f"t{i}.py").write_text("import torch\nloss = torch.ones(1, requires_grad=True).sum()\nloss.backward()\n")
    (tmp_path / "plain.py").write_text("x = 1\n")
    (tmp_path / "broken.py").write_text("x = (\n")  # named below: its syntax is checked though no rule could fire
    out = CliRunner().invoke(cli, ["--no-cache", "--jobs", "2", str(tmp_path), str(tmp_path / "broken.py")])
    assert "Checked 6 files: 4 analysed, 1 with nothing the selected rules look for, 1 with errors" in out.output, out.output
    assert "broken.py: error: syntax error" in out.output


@fork_only
def test_a_rule_crash_is_that_files_error(tmp_path, trap):
    paths = tree(tmp_path, 12, special=[(5, "CRASH = 1\n")])
    results = by_path(runner.run(paths, OPTIONS, jobs=2))
    assert len(results) == 12
    assert "ValueError: rule bug" in results[paths[5]].error
    assert all(results[p].error is None for p in paths if p != paths[5])


@fork_only
def test_a_dying_worker_costs_only_its_file(tmp_path, trap):
    paths = tree(tmp_path, 60, special=[(7, "DIE = 1\n"), (31, "DIE = 2\n"), (8, "TRAP = 1\n")])
    results = by_path(runner.run(paths, OPTIONS, jobs=2))
    assert sorted(results) == sorted(paths)
    for index in (7, 31):
        assert results[paths[index]].error == "internal error: the worker checking this file died (SIGKILL)"
    assert len(results[paths[8]].findings) == 1
    others = [p for i, p in enumerate(paths) if i not in (7, 31)]
    assert all(results[p].error is None for p in others)


def test_small_runs_stay_in_process(tmp_path, monkeypatch):
    def no_pool(*args, **kwargs):
        raise AssertionError("a process pool was started")

    monkeypatch.setattr(runner, "_Pool", no_pool)
    paths = tree(tmp_path, 5)
    assert len(list(runner.run(paths[:1], OPTIONS, jobs=8))) == 1
    assert len(list(runner.run(paths[:2], OPTIONS))) == 2
    assert len(list(runner.run(paths, OPTIONS, jobs=1))) == 5


def test_missing_file_is_reported_not_raised(tmp_path):
    paths = tree(tmp_path, 4) + [str(tmp_path / "gone.py")]
    results = by_path(runner.run(paths, OPTIONS, jobs=2))
    assert results[str(tmp_path / "gone.py")].error.startswith("cannot read file")


def test_work_in_flight_is_bounded(tmp_path, monkeypatch):
    # Results are consumed one at a time; the parent must not hand out the whole tree.
    sent = []
    real_send = runner._Worker.send

    def send(self, batch):
        sent.append(len(batch))
        real_send(self, batch)

    monkeypatch.setattr(runner._Worker, "send", send)
    paths = tree(tmp_path, 300)
    limit = 2 * 2 * runner.BATCH_SIZE
    received = 0
    for _ in runner.run(paths, OPTIONS, jobs=2):
        received += 1
        assert sum(sent) - received <= limit
    assert received == 300


def test_closing_early_stops_the_workers(tmp_path):
    paths = tree(tmp_path, 200)
    results = runner.run(paths, OPTIONS, jobs=2)
    next(results)
    assert multiprocessing.active_children()
    results.close()
    assert multiprocessing.active_children() == []


def test_a_batch_sent_to_a_worker_that_just_died_stays_pending():
    # The worker sent its last result, then died on its next file; the parent
    # feeds it before it sees the death. The batch must wait in `pending` (the
    # pool hands it to a replacement), not raise BrokenPipeError out of the run.
    import multiprocessing

    parent, child = multiprocessing.Pipe(duplex=True)
    child.close()
    worker = object.__new__(runner._Worker)
    worker.conn = parent
    worker.pending = collections.deque([(0, "a.py")])
    worker.send([(1, "b.py"), (2, "c.py")])
    assert list(worker.pending) == [(0, "a.py"), (1, "b.py"), (2, "c.py")]


def test_each_worker_takes_its_own_contiguous_share_then_steals_from_the_far_end():
    # Files of one package import the same project modules: a worker reading one stretch of the
    # sorted paths summarises each of them once. An idle worker takes from the end of the largest
    # share left, away from where its owner works.
    tasks = [(i, f"f{i}.py") for i in range(10)]
    todo = runner._Todo([collections.deque(tasks[:5]), collections.deque(tasks[5:])])
    assert [i for i, _ in todo.take(0, 2)] == [0, 1]
    assert [i for i, _ in todo.take(1, 2)] == [5, 6]
    assert [i for i, _ in todo.take(1, 3)] == [7, 8, 9]
    assert len(todo) == 3
    assert [i for i, _ in todo.take(1, 2)] == [3, 4]  # share 1 is done: the back of share 0
    todo.give_back(1, collections.deque(tasks[7:9]))  # a dead worker's unfinished tasks
    assert [i for i, _ in todo.take(1, 8)] == [7, 8]
    assert [i for i, _ in todo.take(1, 8)] == [2]
    assert todo.take(0, 8) == [] and len(todo) == 0
