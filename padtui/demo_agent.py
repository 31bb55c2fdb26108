"""Scripted agents for ``padtui demo``: a pad rewritten step by step the way a
self-editing agent does. The agent is a client like any other: it writes its file with
plain file writes and plans through the public API (``padtui.load``, ``padtui.plan``).

Each scenario is a small data file (``padtui/scenarios/NAME.json``): a starting pad and a
list of steps. A step says what the agent is doing (``say``) and does some of, in this
order: ``remove`` (ids), ``replace`` (id -> new entry), ``add`` (entries), ``compact`` (run
padtui's own plan with a policy and write its result; a refusal halts the agent).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from padtui import PadError, Plan, load, plan

SCENARIO_DIR = Path(__file__).parent / "scenarios"
WRITE_MODES = ("atomic", "inplace")


@dataclass(frozen=True)
class Step:
    say: str
    remove: tuple[str, ...] = ()
    replace: dict[str, dict[str, Any]] = field(default_factory=dict)
    add: tuple[dict[str, Any], ...] = ()
    compact: str | None = None  # a policy name


@dataclass(frozen=True)
class Scenario:
    """A scripted agent's run: its first pad, then its steps (``teaches``: what the demo
    shows with it)."""

    name: str
    title: str
    teaches: str
    pad: dict[str, Any]
    steps: tuple[Step, ...]


def names() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.json"))


def load_scenario(name: str) -> Scenario:
    """A scenario by name; an unknown name or a bad file is a one-line PadError."""
    path = SCENARIO_DIR / f"{name}.json"
    if not path.is_file():
        raise PadError(name, f"no such scenario; choose one of {', '.join(names())}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        steps = tuple(
            Step(
                say=s["say"],
                remove=tuple(s.get("remove", ())),
                replace=dict(s.get("replace", {})),
                add=tuple(s.get("add", ())),
                compact=s.get("compact"),
            )
            for s in data["steps"]
        )
        return Scenario(name, data["title"], data["teaches"], _start(data), steps)
    except (KeyError, TypeError, ValueError) as exc:
        raise PadError(str(path), f"bad scenario file: {exc}") from None


def _start(data: dict[str, Any]) -> dict[str, Any]:
    """The starting pad: given inline, or a sample pad without some entries."""
    if "pad" in data:
        return dict(data["pad"])
    from padtui.samples import samples_dir

    sample = json.loads((samples_dir() / data["sample"]).read_text(encoding="utf-8"))
    without = set(data.get("without", ()))
    sample["entries"] = [e for e in sample["entries"] if e.get("id") not in without]
    return dict(sample)


@dataclass(frozen=True)
class StepResult:
    """What one step did: the narration, and a refusal that halted the agent."""

    number: int
    say: str
    refusal: Plan | None = None

    @property
    def halted(self) -> bool:
        return self.refusal is not None


def write_pad(path: str, doc: dict[str, Any], mode: str = "atomic") -> bytes:
    """Write a pad as an agent would: a temporary file renamed over it, or in place."""
    data = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if mode == "inplace":
        with open(path, "wb") as f:
            f.write(data)
        return data
    tmp = f"{path}.agent-tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return data


class ScriptedAgent:
    """Plays a scenario against a pad file, one step per call to :meth:`step`."""

    def __init__(self, path: str, scenario: Scenario, mode: str = "atomic") -> None:
        if mode not in WRITE_MODES:
            raise ValueError(f"writes must be one of {', '.join(WRITE_MODES)}")
        self.path = path
        self.scenario = scenario
        self.mode = mode
        self.position = 0  # the next step to play
        self.halted: StepResult | None = None

    @property
    def done(self) -> bool:
        return self.halted is not None or self.position >= len(self.scenario.steps)

    def start(self) -> None:
        """Write the scenario's starting pad (over whatever is there: the agent's own file)."""
        write_pad(self.path, self.scenario.pad, self.mode)
        self.position = 0
        self.halted = None

    def step(self, on_write: Callable[[bytes], None] | None = None) -> StepResult | None:
        """Play the next step; None when the scenario is over."""
        if self.done:
            return None
        number = self.position
        step = self.scenario.steps[number]
        self.position += 1
        doc = json.loads(Path(self.path).read_text(encoding="utf-8"))
        entries = _edit(list(doc.get("entries", [])), step)
        doc["entries"] = entries
        if step.compact is not None:
            write = write_pad(self.path, doc, self.mode) if _changed(step) else None
            if write is not None and on_write is not None:
                on_write(write)
            pad_file = load(self.path)
            trial = plan(pad_file.pad, policy=step.compact, fmt=pad_file.layout.format)
            if trial.refused:
                self.halted = StepResult(number, step.say, trial)
                return self.halted
            if not trial.dropped:
                return StepResult(number, step.say)
            doc["entries"] = [e.as_dict() for e in trial.result()]
        data = write_pad(self.path, doc, self.mode)
        if on_write is not None:
            on_write(data)
        return StepResult(number, step.say)


def _changed(step: Step) -> bool:
    return bool(step.remove or step.replace or step.add)


def _edit(entries: list[dict[str, Any]], step: Step) -> list[dict[str, Any]]:
    gone = set(step.remove)
    out = []
    for e in entries:
        if e.get("id") in gone:
            continue
        out.append(dict(step.replace.get(e.get("id", ""), e)))
    out.extend(dict(e) for e in step.add)
    return out
