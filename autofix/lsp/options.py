"""The CLI's configuration for one editor buffer: ``[tool.autofix]`` found from its path."""

from __future__ import annotations

import os
from typing import Optional

from autofix import config
from autofix.types import Options


def options_for(path: str, workspace_root: Optional[str]) -> Options:
    """:class:`Options` for the document at ``path``, as ``autofix PATH`` builds them.

    The nearest ``pyproject.toml`` with ``[tool.autofix]`` above the document
    wins (the CLI's loader and mapping). Unsaved buffers without a file path
    take the configuration of the workspace root, or of the working
    directory. Raises :class:`config.ConfigError` (or ``UnknownRuleError``)
    for a broken configuration.
    """
    start = path if os.path.isabs(path) else (workspace_root or os.getcwd())
    return config.discover(start).options()
