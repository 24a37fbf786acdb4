"""Hostile trees for ``--write`` (issue 14, items 1-4; issue 17: named folders inside ignored ones).

Each test here failed on the main branch before the hardening work: links out
of the tree were written through, a file edited meanwhile was overwritten, a
read-only file was rewritten, setuid was dropped, hard links were split, and
temporary files were neither recognisable nor reported.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from autofix import api, discovery, writer
from autofix.types import Options
from test_robustness import TRAINING  # AF104 with a safe fix
from autofix.writeback import write_back

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX links, modes and owners")



def autofix(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "autofix", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def fixed_results(path: Path):
    return api.fix_paths([str(path)], Options(fix=True), jobs=1)


# --------------------------------------------------------------------------- 1. symbolic links


@posix_only
def test_a_link_out_of_the_tree_is_skipped_and_its_target_untouched(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "t.py").write_text(TRAINING)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "own.py").write_text(TRAINING)
    (tree / "l.py").symlink_to(elsewhere / "t.py")
    result = autofix("--write", str(tree))
    assert (elsewhere / "t.py").read_text() == TRAINING
    assert (tree / "own.py").read_text() != TRAINING
    assert "l.py: error: skipped: symbolic link to" in result.stderr + result.stdout
    assert result.returncode == 1


@posix_only
def test_a_folder_link_out_of_the_tree_is_not_walked(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "t.py").write_text(TRAINING)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "data").symlink_to(tmp_path / "elsewhere")
    files, errors = discovery.discover([str(tmp_path / "tree")])
    assert files == [] and errors == []


@posix_only
def test_two_links_to_one_file_check_and_write_it_once(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "real.py").write_text(TRAINING)
    (tree / "a.py").symlink_to("real.py")
    (tree / "b.py").symlink_to("real.py")
    files, errors = discovery.discover([str(tree)])
    assert files == [str(tree / "real.py")] and errors == []
    result = autofix("--write", str(tree))
    assert "1 file" in result.stderr or "1 file" in result.stdout, result.stderr
    assert (tree / "a.py").is_symlink() and (tree / "b.py").is_symlink()


@posix_only
def test_links_alone_give_one_name_for_their_file(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "real.py").write_text("x = 1\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "b.py").symlink_to(tmp_path / "pkg" / "real.py")
    (tree / "a.py").symlink_to(tmp_path / "pkg" / "real.py")
    files, errors = discovery.discover([str(tree), str(tmp_path / "pkg")])
    assert files == [str(tmp_path / "pkg" / "real.py")] and errors == []


# --------------------------------------------------------------------------- 2. concurrent edits


def test_a_file_edited_after_it_was_read_is_not_overwritten(tmp_path):
    target = tmp_path / "train.py"
    target.write_text(TRAINING)
    results = fixed_results(target)
    assert results[0].changed
    edited = TRAINING + "# saved by the editor meanwhile\n"
    target.write_text(edited)
    out, written, _ = write_back(results)
    assert target.read_text() == edited
    assert written == ()
    assert out[0].error == "not written: the file changed since autofix read it; run autofix again"


def test_a_change_during_the_write_is_caught_before_the_replace(tmp_path, monkeypatch):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")
    real_fsync = os.fsync

    def fsync_and_edit(fd):
        real_fsync(fd)
        with open(target, "ab") as handle:  # the editor saves while autofix flushes
            handle.write(b"more\n")

    monkeypatch.setattr(writer.os, "fsync", fsync_and_edit)
    with pytest.raises(writer.WriteRefused, match="changed since autofix read it"):
        writer.write_atomic(str(target), b"new\n", expected=b"old\n")
    assert target.read_bytes() == b"old\nmore\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(writer.TEMP_SUFFIX)]


def test_concurrent_edit_exits_1_with_a_message(tmp_path, monkeypatch, capsys):
    from autofix import cli

    target = tmp_path / "train.py"
    target.write_text(TRAINING)
    real = api.check_paths

    def check_then_edit(files, options, jobs=None):
        results = list(real(files, options, jobs=jobs))
        target.write_text(TRAINING + "# edited\n")
        return iter(results)

    monkeypatch.setattr(api, "check_paths", check_then_edit)
    assert cli.main(["--write", str(target)]) == 1
    assert "the file changed since autofix read it" in capsys.readouterr().err
    assert target.read_text().endswith("# edited\n")


# --------------------------------------------------------------------------- 3. permissions and owners


@posix_only
def test_a_read_only_file_is_refused_unless_asked(tmp_path):
    target = tmp_path / "train.py"
    target.write_text(TRAINING)
    target.chmod(0o444)
    result = autofix("--write", str(target))
    assert result.returncode == 1
    assert "the file is read-only (--force-readonly writes it anyway)" in result.stderr + result.stdout
    assert target.read_text() == TRAINING
    result = autofix("--write", "--force-readonly", str(target))
    assert target.read_text() != TRAINING
    assert stat.S_IMODE(target.stat().st_mode) == 0o444


@posix_only
@pytest.mark.parametrize("mode", [0o4755, 0o2755, 0o6750, 0o1644])
def test_setuid_setgid_and_sticky_bits_are_kept(tmp_path, mode):
    target = tmp_path / "run.py"
    target.write_bytes(b"old\n")
    target.chmod(mode)
    writer.write_atomic(str(target), b"new\n")
    assert stat.S_IMODE(target.stat().st_mode) == mode


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving files away needs root")
def test_owner_and_group_of_another_user_are_kept(tmp_path):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")
    os.chown(target, 1234, 2345)
    target.chmod(0o6775)
    writer.write_atomic(str(target), b"new\n")
    st = target.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1234, 2345, 0o6775)


@posix_only
def test_another_users_file_is_refused_without_root(tmp_path, monkeypatch):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")
    monkeypatch.setattr(writer.os, "geteuid", lambda: target.stat().st_uid + 1)
    with pytest.raises(writer.WriteRefused, match="belongs to another user"):
        writer.write_atomic(str(target), b"new\n")
    assert target.read_bytes() == b"old\n"


@posix_only
def test_a_group_that_cannot_be_kept_is_refused(tmp_path, monkeypatch):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")
    real_stat = os.stat
    owner_stat = real_stat(target)

    def foreign_group(path, *args, **kwargs):
        st = real_stat(path, *args, **kwargs)
        if os.fspath(path) == str(target):
            values = list(st)
            values[stat.ST_GID] = owner_stat.st_gid + 1  # a group this user cannot give files to
            return os.stat_result(values)
        return st

    def chown(path, uid, gid):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(writer.os, "stat", foreign_group)
    monkeypatch.setattr(writer.os, "chown", chown)
    with pytest.raises(writer.WriteRefused, match="cannot keep the file's group"):
        writer.write_atomic(str(target), b"new\n")
    monkeypatch.undo()
    assert target.read_bytes() == b"old\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(writer.TEMP_SUFFIX)]


def _xattrs_supported(path: Path) -> bool:
    try:
        os.setxattr(path, "user.autofix-probe", b"1")
        os.removexattr(path, "user.autofix-probe")
        return True
    except (AttributeError, OSError):
        return False


def test_extended_attributes_are_kept(tmp_path):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")
    if not _xattrs_supported(target):
        pytest.skip("no user extended attributes here")
    os.setxattr(target, "user.origin", b"kept")
    writer.write_atomic(str(target), b"new\n")
    assert os.getxattr(target, "user.origin") == b"kept"


@posix_only
def test_a_hard_linked_file_is_refused_and_stays_linked(tmp_path):
    target = tmp_path / "train.py"
    target.write_text(TRAINING)
    os.link(target, tmp_path / "copy_of_train.txt")
    result = autofix("--write", str(target))
    assert "the file has 2 hard links; replacing it would split them" in result.stderr + result.stdout
    assert result.returncode == 1
    assert target.stat().st_nlink == 2
    assert target.read_text() == TRAINING


# --------------------------------------------------------------------------- 4. temporary files


def test_temporary_files_are_recognisable(tmp_path, monkeypatch):
    target = tmp_path / "train.py"
    target.write_bytes(b"old\n")
    seen = []
    real_replace = os.replace

    def replace(src, dst):
        seen.append(os.path.basename(src))
        real_replace(src, dst)

    monkeypatch.setattr(writer.os, "replace", replace)
    writer.write_atomic(str(target), b"new\n")
    assert seen[0].startswith(f".train.py.{os.getpid()}.") and seen[0].endswith(".autofix-tmp")


def test_stale_temporary_files_are_reported_and_never_checked(tmp_path):
    (tmp_path / "train.py").write_text("x = 1\n")
    dead = tmp_path / ".train.py.999999999.abc123.autofix-tmp"  # no such process
    dead.write_text("x = 2\n")
    old_style = tmp_path / ".model.py.q1w2e3.autofix-tmp"
    old_style.write_text("x = 3\n")
    live = tmp_path / f".other.py.{os.getpid()}.zz9.autofix-tmp"  # a write in progress
    live.write_text("x = 4\n")
    (tmp_path / "decoy.py.tmp.py").write_text("x = 5\n")
    files, errors = discovery.discover([str(tmp_path)])
    assert [Path(f).name for f in files] == ["decoy.py.tmp.py", "train.py"]
    assert sorted(Path(e.path).name for e in errors) == [old_style.name, dead.name]
    assert all("stale temporary file" in e.error for e in errors)


# --------------------------------------------------------------------------- issue 17: named folders


def test_a_named_folder_inside_an_ignored_one_is_checked(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n*_pb2.py\n")
    for name in ("generated/pkg/a.py", "generated/pkg/b_pb2.py", "generated/pkg/sub/c.py", "src/d.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    files, errors = discovery.discover([str(tmp_path / "generated" / "pkg")])
    names = [Path(f).relative_to(tmp_path).as_posix() for f in files]
    # The ignored folder the user named is walked; other ignore patterns still hold.
    assert names == ["generated/pkg/a.py", "generated/pkg/sub/c.py"] and errors == []
    files, _ = discovery.discover([str(tmp_path)])
    assert [Path(f).relative_to(tmp_path).as_posix() for f in files] == ["src/d.py"]
