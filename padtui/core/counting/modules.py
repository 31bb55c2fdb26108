"""Where an installed module's file lies, found without importing the module.

``importlib.util.find_spec`` would do, but importing ``importlib.util`` costs about 4 ms, and
every headless run asks (tiktoken's version for the count cache's key, the bundled ranks
file): the finders the import system itself asks are asked here directly.
"""

from __future__ import annotations

import sys


def module_file(name: str) -> str | None:
    """The file of the module ``name`` (a package's ``__init__.py``), or None where it is not
    installed or has no file. Its parent package, if it has one, is imported (as
    ``find_spec`` imports it): only namespace packages are asked for here."""
    found = sys.modules.get(name)
    if found is not None:
        return _located(getattr(found, "__spec__", None))
    parent, _, _ = name.rpartition(".")
    path = None
    if parent:
        try:
            __import__(parent)
        except ImportError:
            return None
        path = getattr(sys.modules[parent], "__path__", None)
        if path is None:
            return None
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        spec = find(name, path)
        if spec is not None:
            return _located(spec)
    return None


def _located(spec: object) -> str | None:
    """A module spec's file, if it has one (not a built-in's "built-in")."""
    if not getattr(spec, "has_location", False):
        return None
    origin = getattr(spec, "origin", None)
    return origin if isinstance(origin, str) else None
