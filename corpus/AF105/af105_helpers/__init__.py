"""Helpers the AF105 scripts next to this folder import (a package of the project)."""
