"""[tool.autofix] discovery, validation and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from autofix import config as configuration
from autofix.config import ConfigError


@pytest.fixture(autouse=True)
def _demo_registry(monkeypatch):
    import demo_rules

    demo_rules.install(monkeypatch)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_nearest_pyproject_with_the_table_wins(tmp_path):
    outer = write(tmp_path / "pyproject.toml", "[tool.autofix]\nselect = ['AF901']\n")
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'x'\n")  # no table: skipped
    inner_dir = tmp_path / "pkg" / "sub"
    inner_dir.mkdir()
    assert configuration.find_pyproject(inner_dir) == outer
    nearer = write(inner_dir / "pyproject.toml", "[tool.autofix]\nignore = ['AF902']\n")
    assert configuration.find_pyproject(inner_dir / "train.py") == nearer
    assert configuration.discover(inner_dir).ignore == ("AF902",)
    assert configuration.discover(inner_dir).select is None  # tables are not merged


def test_every_key(tmp_path):
    path = write(
        tmp_path / "pyproject.toml",
        """
[tool.autofix]
select = ["af90"]
ignore = ["AF903"]
exclude = ["legacy/"]
extend-exclude = ["*_gen.py"]
unsafe-fixes = true

[tool.autofix.per-file-ignores]
"tests/**" = ["AF901"]
""",
    )
    config = configuration.load(path)
    assert config.select == ("AF90",)
    assert config.ignore == ("AF903",)
    assert config.exclude == ("legacy/",)
    assert config.extend_exclude == ("*_gen.py",)
    assert config.unsafe_fixes is True
    assert config.per_file_ignores == (("tests/**", ("AF901",)),)
    assert config.root == tmp_path


def test_no_config_is_the_defaults(tmp_path):
    assert configuration.load(None) == configuration.Config()


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param("[tool.autofix]\nselct = ['AF901']\n", "unknown key 'selct' (did you mean 'select'?)", id="typo in a key"),
        pytest.param("[tool.autofix]\nunsafe_fixes = true\n", "did you mean 'unsafe-fixes'", id="snake_case key"),
        pytest.param("[tool.autofix]\nselect = ['AF123']\n", "'AF123' matches no rule code", id="unknown code"),
        pytest.param("[tool.autofix]\nselect = 'AF901'\n", "expected a list of strings", id="string instead of list"),
        pytest.param("[tool.autofix]\nunsafe-fixes = 'yes'\n", "expected true or false", id="non-boolean"),
        pytest.param("[tool.autofix]\nper-file-ignores = ['x']\n", "expected a table", id="per-file-ignores not a table"),
        pytest.param(
            "[tool.autofix.per-file-ignores]\n'a.py' = ['AF000']\n", "per-file-ignores 'a.py'", id="bad code in per-file-ignores"
        ),
        pytest.param("[tool.autofix\n", "invalid TOML", id="broken TOML"),
    ],
)
def test_errors_name_the_file_and_the_problem(tmp_path, text, message):
    path = write(tmp_path / "pyproject.toml", text)
    with pytest.raises(ConfigError) as info:
        configuration.discover(tmp_path)
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_command_line_code_lists():
    assert configuration.parse_codes("af901, AF902,") == ("AF901", "AF902")
    with pytest.raises(ConfigError, match="--select"):
        configuration.parse_codes("AF9x", "--select")


def test_path_matching_is_gitignore_style():
    assert configuration.path_matches("tests/unit/test_a.py", "tests/**")
    assert configuration.path_matches("pkg/legacy_model.py", "legacy_*.py")
    assert not configuration.path_matches("src/a.py", "tests/**")


def test_common_root(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "c").mkdir()
    assert configuration.common_root([str(tmp_path / "a" / "b"), str(tmp_path / "a" / "c" / "x.py")]) == str(tmp_path / "a")


def test_options_take_the_config_and_arguments_win(tmp_path):
    path = write(
        tmp_path / "pyproject.toml",
        "[tool.autofix]\nselect = ['AF901', 'AF902']\nunsafe-fixes = true\n"
        "[tool.autofix.per-file-ignores]\n'x/*' = ['AF902']\n",
    )
    config = configuration.load(path)
    options = config.options(fix=False)
    assert (options.select, options.ignore, options.unsafe_fixes, options.fix) == (("AF901", "AF902"), (), True, False)
    assert options.per_path_ignores == (("x/*", ("AF902",)),) and options.root == str(tmp_path)
    flags = config.options(select=("AF903",), ignore=("AF901",), unsafe_fixes=False)
    assert (flags.select, flags.ignore, flags.unsafe_fixes) == (("AF903",), ("AF901",), False)
    assert configuration.Config().options().select == configuration.DEFAULT_SELECT


def test_each_file_gets_its_nearest_config_and_the_language_server_agrees(tmp_path):
    from autofix.lsp import options as lsp_options

    write(tmp_path / "a" / "pyproject.toml", "[tool.autofix]\nignore = ['AF901']\nunfixable = ['AF902']\n")
    write(tmp_path / "a" / "deep" / "pyproject.toml", "[tool.autofix]\nselect = ['AF902']\n")
    files = [write(tmp_path / p, "") for p in ("a/x.py", "a/deep/y.py", "b/z.py", "a/other/w.py")]
    for order in (files, files[::-1]):
        options = configuration.Resolver().options([str(f) for f in order], fix=True)
        for f in files:
            mine = options.for_path(str(f))
            editor = lsp_options.options_for(str(f), None)
            assert (mine.select, mine.ignore, mine.unfixable, mine.root) == (
                editor.select, editor.ignore, editor.unfixable, editor.root
            )
    options = configuration.Resolver().options([str(f) for f in files])
    assert options.for_path(str(files[0])).ignore == ("AF901",)
    assert options.for_path(str(files[1])).select == ("AF902",) and options.for_path(str(files[1])).ignore == ()
    assert options.for_path(str(files[2])).ignore == () and options.for_path(str(files[2])).root is None
    assert options.for_path(str(files[3])).ignore == ("AF901",)


def test_command_line_wins_over_every_file(tmp_path):
    write(tmp_path / "a" / "pyproject.toml", "[tool.autofix]\nselect = ['AF901']\nextend-select = ['AF903']\n")
    f = write(tmp_path / "a" / "x.py", "")
    options = configuration.Resolver().options([str(f)], select=("AF902",), extend_select=("AF903",))
    assert options.for_path(str(f)).select == ("AF902", "AF903")
    assert configuration.Resolver().options([str(f)]).for_path(str(f)).select == ("AF901", "AF903")
