"""One check for every numeric argument of the command line."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from padtui.core.errors import shown
from padtui.core.formats import MAX_BUDGET

N = TypeVar("N", int, float)


@dataclass(frozen=True)
class Number(Generic[N]):
    """A numeric argument: ``noun`` names what a value that does not parse should have been,
    ``bounds`` says what one out of ``low``..``high`` should be (argparse makes either a
    one-line usage error, exit 2)."""

    parse: Callable[[str], N]
    noun: str
    low: N
    high: N | None
    bounds: str

    def __call__(self, value: str) -> N:
        try:
            n = self.parse(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {self.noun}: {value!r}") from None
        if n < self.low or (self.high is not None and n > self.high):
            raise argparse.ArgumentTypeError(f"{self.bounds}, got {shown(n)}")
        return n


BUDGET = Number(int, "a whole number", 0, MAX_BUDGET, f"must be >= 0 and at most {MAX_BUDGET}")
SECONDS = Number(float, "a number of seconds", 0.0, 3600.0, "must be between 0 and 3600")
VERSION = Number(int, "a version number", 1, None, "versions are numbered from 1")


def env_seconds(name: str, default: float) -> float:
    try:
        return SECONDS(os.environ.get(name, str(default)))
    except argparse.ArgumentTypeError:
        return default
