"""The formats padtui reads, by name: the one table by which every part of padtui (the
reader, the store, the journal, the fleet's folder view, the command line's help) decides
what format a file is and what that format supports."""

from __future__ import annotations

from padtui.core.formats.base import Format

_FORMATS: dict[str, Format] = {}  # by name, in the order registered


def register(fmt: Format) -> Format:
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
    """Every format, in the order registered."""
    return tuple(_FORMATS.values())


def named(name: str) -> Format | None:
    """The format of this name, or None."""
    return _FORMATS.get(name)


def for_name(file_name: str) -> Format | None:
    """The format a file's name says (the first whose ``sniff`` says so), or None."""
    for fmt in _FORMATS.values():
        if fmt.sniff(file_name):
            return fmt
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
