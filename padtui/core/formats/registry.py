"""The formats padtui reads, by name: the one table by which every part of padtui (the
reader, the store, the journal, the fleet's folder view, the command line's help) decides
what format a file is and what that format supports.

A format may be registered before its module is imported (:class:`Deferred`): the table
then knows its name and its files' names, and imports the rest when a pad of it is read or
what it supports is asked. Every run of padtui asks which format a file is; few read more
than one format (a check of a JSON pad never imports the Markdown reader)."""

from __future__ import annotations

import importlib

from padtui.core.formats.base import Format, names_end

_FORMATS: dict[str, Format | Deferred] = {}  # by name, in the order registered


class Deferred:
    """A format known by its name, the endings of its files' names, whether ``--format``
    may choose it and its names in words (``names``, else the endings), until the rest of
    it is needed: then its module's ``FORMAT``, which must agree with all of these."""

    def __init__(
        self,
        module: str,
        name: str,
        suffixes: tuple[str, ...],
        *,
        choosable: bool = True,
        names: str | None = None,
    ) -> None:
        self.module, self.name, self.suffixes = module, name, suffixes
        self.choosable = choosable
        self._names = names
        self._format: Format | None = None

    def sniff(self, name: str) -> bool:
        return names_end(name, self.suffixes)

    def names_text(self) -> str:
        return self._names if self._names is not None else ", ".join(self.suffixes)

    def load(self) -> Format:
        """The format itself (its module imported the first time)."""
        if self._format is None:
            found: Format = importlib.import_module(self.module).FORMAT
            known = (self.name, self.suffixes, self.choosable, self.names_text())
            if (found.name, found.suffixes, found.choosable, found.names_text()) != known:
                raise RuntimeError(f"{self.module}.FORMAT is not the format registered")
            self._format = found
        return self._format


def _loaded(fmt: Format | Deferred) -> Format:
    return fmt.load() if isinstance(fmt, Deferred) else fmt


def register(fmt: Format | Deferred) -> Format | Deferred:
    """Add a format (ValueError for a name, or an ending of file names, already taken)."""
    if fmt.name in _FORMATS:
        raise ValueError(f"a format named {fmt.name!r} is registered already")
    for other in _FORMATS.values():
        taken = set(fmt.suffixes) & set(other.suffixes)
        if taken:
            raise ValueError(f"{', '.join(sorted(taken))} are {other.name} files already")
    _FORMATS[fmt.name] = fmt
    return fmt


def unregister(name: str) -> None:
    """Take a format out (a test's own, when it is done)."""
    del _FORMATS[name]


def registered() -> tuple[Format, ...]:
    """Every format, in the order registered (each module imported)."""
    return tuple(map(_loaded, _FORMATS.values()))


def named(name: str) -> Format | None:
    """The format of this name, or None."""
    found = _FORMATS.get(name)
    return _loaded(found) if found is not None else None


def for_name(file_name: str) -> str | None:
    """The name of the format a file's name says (the first whose ``sniff`` says so), or
    None."""
    for fmt in _FORMATS.values():
        if fmt.sniff(file_name):
            return fmt.name
    return None


def suffixes() -> tuple[str, ...]:
    """How the names of the files padtui reads end, every format's."""
    return tuple(s for fmt in _FORMATS.values() for s in fmt.suffixes)


def chosen() -> tuple[str, ...]:
    """The formats ``--format`` may name, to read a file of any name as that format."""
    return tuple(fmt.name for fmt in _FORMATS.values() if fmt.choosable)


def names_text() -> str:
    """The names padtui reads, in words (for help and errors)."""
    return "; ".join(fmt.names_text() for fmt in _FORMATS.values())
