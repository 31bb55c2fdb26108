"""The sample pads shipped with padtui (``sample_pads/`` in the source tree)."""

from __future__ import annotations

from pathlib import Path

DEFAULT = "retry-5xx-under-pressure.json"


def samples_dir() -> Path:
    """The folder of sample pads: inside the installed package, else the source tree."""
    packaged = Path(__file__).parent / "sample_pads"
    if packaged.is_dir():
        return packaged
    return Path(__file__).parent.parent / "sample_pads"


def default_pad() -> Path:
    return samples_dir() / DEFAULT
