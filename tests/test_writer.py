from __future__ import annotations

import os
import signal
import stat
import threading

import pytest

from autofix import writer
from autofix.writer import write_atomic

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits and signals")


def leftovers(directory) -> list:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".autofix-tmp"))


def test_replaces_the_contents(tmp_path):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")
    write_atomic(str(target), b"new\r\ncontent\n")
    assert target.read_bytes() == b"new\r\ncontent\n"
    assert leftovers(tmp_path) == []


@posix_only
@pytest.mark.parametrize("mode", [0o755, 0o600, 0o640])
def test_keeps_permission_bits(tmp_path, mode):
    target = tmp_path / "run.py"
    target.write_bytes(b"old\n")
    target.chmod(mode)
    write_atomic(str(target), b"new\n")
    assert stat.S_IMODE(target.stat().st_mode) == mode


@posix_only
def test_new_file_gets_the_umask_mode(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(str(tmp_path / "fresh.py"), b"x = 1\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "fresh.py").stat().st_mode) == 0o640


@posix_only
def test_symlink_is_written_through(tmp_path):
    real = tmp_path / "real.py"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomic(str(link), b"new\n")
    assert link.is_symlink()
    assert real.read_bytes() == b"new\n"


@pytest.mark.parametrize("failing", ["fsync", "replace", "chmod"])
def test_failure_leaves_the_original_and_no_temp_file(tmp_path, monkeypatch, failing):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer.os, failing, boom)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(str(target), b"new\n")
    monkeypatch.undo()
    assert target.read_bytes() == b"old\n"
    assert leftovers(tmp_path) == []


def test_missing_directory_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        write_atomic(str(tmp_path / "nowhere" / "x.py"), b"x\n")


@posix_only
def test_sigint_during_the_write_is_delivered_after_it(tmp_path, monkeypatch):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")
    real_fsync = os.fsync
    replaced_before_interrupt = []

    def fsync_then_interrupt(fd):
        # The signal arrives while the data is being flushed, before the rename.
        os.kill(os.getpid(), signal.SIGINT)
        real_fsync(fd)

    real_replace = os.replace

    def replace(src, dst):
        real_replace(src, dst)
        replaced_before_interrupt.append(dst)

    monkeypatch.setattr(writer.os, "fsync", fsync_then_interrupt)
    monkeypatch.setattr(writer.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(str(target), b"new\n")
    assert replaced_before_interrupt == [os.path.realpath(target)]
    assert target.read_bytes() == b"new\n"
    assert leftovers(tmp_path) == []
    # The default handler is back in place.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@posix_only
def test_sigterm_handler_runs_after_the_write(tmp_path, monkeypatch):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")
    seen = []

    def on_term(signum, frame):
        seen.append(target.read_bytes())

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        real_fsync = os.fsync

        def fsync_then_terminate(fd):
            os.kill(os.getpid(), signal.SIGTERM)
            real_fsync(fd)

        monkeypatch.setattr(writer.os, "fsync", fsync_then_terminate)
        write_atomic(str(target), b"new\n")
        assert signal.getsignal(signal.SIGTERM) is on_term
    finally:
        signal.signal(signal.SIGTERM, previous)
    # Called once, and only when the new contents were in place.
    assert seen == [b"new\n"]


def test_works_outside_the_main_thread(tmp_path):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")
    errors = []

    def work():
        try:
            write_atomic(str(target), b"new\n")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == []
    assert target.read_bytes() == b"new\n"
