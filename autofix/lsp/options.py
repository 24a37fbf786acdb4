"""The CLI's configuration for one editor buffer: ``[tool.autofix]`` found from its path."""

from __future__ import annotations

import os
from typing import Optional

from autofix import config, registry
from autofix.types import Options


def options_for(path: str, workspace_root: Optional[str]) -> Options:
    """:class:`Options` for the document at ``path``, as ``autofix PATH`` builds them.

    The nearest ``pyproject.toml`` with ``[tool.autofix]`` above the document
    wins (``config.discover``, the CLI's loader). Unsaved buffers without a
    file path take the configuration of the workspace root, or of the working
    directory. Raises :class:`config.ConfigError` for a broken configuration.
    """
    start = path if os.path.isabs(path) else (workspace_root or os.getcwd())
    found = config.discover(start)
    # The same mapping as the CLI's ``_options`` without command-line flags.
    select = tuple(found.select or ("AF",))
    ignore = tuple(found.ignore or ())
    registry.select_rules(select, ignore)
    return Options(
        select=select,
        ignore=ignore,
        unsafe_fixes=bool(found.unsafe_fixes),
        per_path_ignores=found.per_file_ignores,
        root=str(found.root) if found.root is not None else None,
    )
