"""The README's Neovim recipes, in a real headless Neovim talking to ``autofix --lsp``.

Open a buggy file, wait for the diagnostics, apply a quick fix; then save with
the fix-all-on-save autocommand. Both results must equal ``autofix --write``.
Skipped where Neovim is not installed (.ci/run installs it with apt-get).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NVIM = shutil.which("nvim")

pytestmark = pytest.mark.skipif(NVIM is None, reason="Neovim is not installed (.ci/run installs it with apt-get)")

BUGGY = """\
import torch
from torch import nn

trunk = nn.Linear(8, 16)
head_a, head_b = nn.Linear(16, 1), nn.Linear(16, 1)
optimizer = torch.optim.SGD([*trunk.parameters(), *head_a.parameters(), *head_b.parameters()], lr=0.1)

for step in range(3):
    features = trunk(torch.randn(4, 8)).relu()
    loss_a = head_a(features).pow(2).mean()
    loss_b = head_b(features).abs().mean()
    optimizer.zero_grad()
    loss_a.backward()
    loss_b.backward()
    optimizer.step()
"""

# Drives the editor the way a user does; reports what it saw as JSON on a file.
DRIVER = r"""
local out = {}
local function finish(code)
  vim.fn.writefile({ vim.fn.json_encode(out) }, vim.env.AUTOFIX_REPORT)
  vim.cmd(code == 0 and "qall!" or ("cquit " .. code))
end
vim.cmd("edit " .. vim.fn.fnameescape(vim.env.AUTOFIX_FILE))
local bufnr = vim.api.nvim_get_current_buf()
local ok = vim.wait(90000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
if not ok then
  out.error = "no diagnostics within 90 s; clients: " .. #vim.lsp.get_active_clients()
  return finish(3)
end
local diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  table.insert(diagnostics, { code = d.code, line = d.lnum, source = d.source, severity = d.severity })
end
out.diagnostics = diagnostics
local d = vim.diagnostic.get(bufnr)[1]
local params = {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum, character = d.end_col } },
  context = { diagnostics = {}, only = { "quickfix" } },
}
local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 60000) or {}
local titles = {}
for id, response in pairs(responses) do
  local client = vim.lsp.get_client_by_id(id)
  for _, action in ipairs(response.result or {}) do
    table.insert(titles, action.title)
    if out.applied == nil and action.edit and not action.title:find("suppress") then
      vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
      out.applied = action.title
    end
  end
end
out.titles = titles
out.quick_fixed = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
-- Back to the buggy text, then save: the BufWritePre recipe applies every safe fix.
vim.cmd("silent! undo")
out.undone = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
vim.wait(90000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
vim.cmd("write")
finish(0)
"""


def _recipes(executable: str) -> str:
    """The README's Neovim 0.7-0.10 start-up and fix-on-save snippets, with autofix's absolute path."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Neovim") : readme.index("### Helix")]
    blocks = re.findall(r"```lua\n(.*?)```", section, re.DOTALL)
    start = next(b for b in blocks if "start_client" in b)
    on_save = next(b for b in blocks if "BufWritePre" in b)
    command = '{ "autofix", "--lsp" }'
    assert command in start
    # The machine running the tests may be loaded: give the save's request more time.
    on_save, timeouts = re.subn(r"params, \d+\)", "params, 60000)", on_save)
    assert timeouts == 1
    return start.replace(command, "{ %s, \"--lsp\" }" % json.dumps(executable)) + "\n" + on_save


def _autofix() -> str:
    found = Path(sys.executable).with_name("autofix")
    return str(found) if found.exists() else (shutil.which("autofix") or "")


def test_quick_fix_and_fix_all_on_save_equal_autofix_write(tmp_path):
    executable = _autofix()
    assert executable, "the autofix console script is not installed"
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.autofix]\n")
    target = project / "train.py"
    target.write_text(BUGGY)
    expected_path = tmp_path / "cli" / "train.py"
    expected_path.parent.mkdir()
    expected_path.write_text(BUGGY)
    subprocess.run([executable, "--write", "-q", str(expected_path)], check=False, timeout=300)
    expected = expected_path.read_text()
    assert expected != BUGGY and expected.count(".backward(") == 1

    init = tmp_path / "init.lua"
    init.write_text(_recipes(executable))
    driver = tmp_path / "driver.lua"
    driver.write_text(DRIVER)
    report = tmp_path / "report.json"
    env = {**os.environ, "AUTOFIX_FILE": str(target), "AUTOFIX_REPORT": str(report), "XDG_STATE_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    proc = subprocess.run(
        [NVIM, "--headless", "-n", "-i", "NONE", "-u", str(init), "-c", f"luafile {driver}"],
        cwd=project, env=env, capture_output=True, text=True, timeout=400,
    )
    seen = json.loads(report.read_text()) if report.exists() else {}
    assert proc.returncode == 0, (seen, proc.stdout[-2000:], proc.stderr[-2000:])
    assert [d["code"] for d in seen["diagnostics"]] == ["AF101"]
    assert seen["diagnostics"][0]["source"] == "autofix"
    assert seen["applied"] and "suppress" not in seen["applied"]
    assert seen["quick_fixed"] == expected  # the quick fix is the CLI's edit
    assert seen["undone"] == BUGGY
    assert target.read_text() == expected  # saved with every safe fix applied
