"""The autofix language server (``autofix --lsp``): diagnostics and code actions over stdio."""

from __future__ import annotations

__all__ = ["serve"]


def serve() -> None:
    """Run the language server on stdin/stdout until the client says ``exit``."""
    # Imported here so that ``import autofix.lsp`` stays cheap for the CLI.
    from autofix.lsp.server import create_server

    create_server().start_io()
