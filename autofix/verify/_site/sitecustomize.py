"""Put on PYTHONPATH by ``--verify-cmd`` runs: records the command's first Python process."""

try:
    from autofix.verify.bootstrap import install_from_env
except ImportError:  # a different interpreter without autofix: run unrecorded
    pass
else:
    install_from_env()
