"""The audit's accuracy on labelled rewrites: precision and recall per kind of rewrite and per
finding code.

A labelled pair is a folder holding ``old.EXT``, ``new.EXT`` and ``expect.json``::

    {"verdict": "corruption", "acceptable": [], "must_include_codes": ["CONSTRAINT_WEAKENED"],
     "variant": "iii", "style": "claude-md", "why": "..."}

Usage::

    python bench/accuracy.py                      # the corpus in tests/corpus/pairs
    python bench/accuracy.py --pairs DIR          # any folder of labelled pairs
    python bench/accuracy.py --write ACCURACY.md  # the report, as Markdown
    python bench/accuracy.py --real DIR [--real DIR2] [--write ACCURACY.md]

``--real DIR``: a folder of real rewrites taken from public git histories (not part of the
repository): each ``NAME/old.EXT``, ``new.EXT`` and ``label.json`` (or ``expect.json``) with
``verdict``, ``accept`` (other verdicts a careful reader would also give) and ``split``
(``dev`` or ``heldout``; a folder without splits is one group named after it). A file that is
not ``.md``, ``.json`` or ``.jsonl`` is read as Markdown. Each split is reported apart: the
verdicts right (the label or one it accepts), the rule-losing rewrites (labelled
``corruption``) caught, and the clean ones (labelled otherwise, ``corruption`` not accepted)
with a critical finding, with the false alarms by cause (the reasons of their critical
findings). With ``--write`` the real figures go in a block of their own, kept as they are
when the report is written again without ``--real``.

What is counted:

* a pair is *right* when the verdict is the labelled one (or one of its ``acceptable``
  alternatives) and every code it must include is reported;
* *corrupt* pairs (a rule dropped, weakened, changed; variants ii, iii, vi, x, and any pair
  labelled ``corruption``) are *caught* when the verdict is ``corruption``: that is the
  recall the alarm is judged by;
* *honest* pairs (every other label) raise a *false alarm* when any critical finding is
  reported;
* per finding code, precision is the share of pairs reporting the code that were labelled
  with it, recall the share of pairs labelled with it that report it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "pairs"

VARIANTS = {
    "i": "faithful summary",
    "ii": "a rule dropped",
    "iii": "a rule weakened",
    "iv": "declared merge",
    "v": "reorder or reformat",
    "vi": "a number or name changed in a rule",
    "vii": "declared drop",
    "viii": "a fact updated in place",
    "ix": "a plain note dropped",
    "x": "polarity flipped, condition or lending heading removed",
}
CRITICAL_CODES = (
    "CONSTRAINT_DROPPED",
    "CONSTRAINT_WEAKENED",
    "SEALED_EDITED",
    "SEALED_REMOVED",
    "SEALED_UNSEALED",
    "LOSS_RECORD_EVICTED",
)


@dataclass(frozen=True)
class Pair:
    name: str
    old: Path
    new: Path
    verdict: str
    acceptable: tuple[str, ...]
    must: tuple[str, ...]
    variant: str
    style: str


@dataclass(frozen=True)
class Outcome:
    pair: Pair
    verdict: str
    codes: frozenset[str]
    error: str | None = None

    @property
    def right(self) -> bool:
        ok = self.verdict in (self.pair.verdict, *self.pair.acceptable)
        return ok and all(c in self.codes for c in self.pair.must)

    @property
    def corrupt(self) -> bool:
        return self.pair.verdict == "corruption"

    @property
    def alarm(self) -> bool:
        return any(c in CRITICAL_CODES for c in self.codes)


def variant_of(name: str, label: dict[str, object]) -> str:
    given = label.get("variant")
    if isinstance(given, str) and given:
        return given
    for part in reversed(name.split("-")):
        if part in VARIANTS:
            return part
    return "other"


def load_pairs(root: Path) -> list[Pair]:
    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        expect = folder / "expect.json"
        if not expect.is_file():
            continue
        label = json.loads(expect.read_text(encoding="utf-8"))
        olds = sorted(folder.glob("old.*"))
        news = sorted(folder.glob("new.*"))
        if len(olds) != 1 or len(news) != 1:
            raise SystemExit(f"{folder}: expected one old.* and one new.*")
        out.append(
            Pair(
                name=folder.name,
                old=olds[0],
                new=news[0],
                verdict=label["verdict"],
                acceptable=tuple(label.get("acceptable", ())),
                must=tuple(label.get("must_include_codes", ())),
                variant=variant_of(folder.name, label),
                style=str(label.get("style", "")),
            )
        )
    return out


def judge(pairs: Iterable[Pair]) -> list[Outcome]:
    """Audit every pair in this process, as ``padtui audit OLD NEW`` would."""
    from padtui.core.audit.rewrite import audit
    from padtui.core.errors import PadError
    from padtui.core.formats import load_pad

    out = []
    for p in pairs:
        try:
            result = audit(load_pad(str(p.old)), load_pad(str(p.new)))
        except PadError as exc:
            out.append(Outcome(p, "error", frozenset(), str(exc)))
            continue
        out.append(Outcome(p, result.verdict, frozenset(result.codes)))
    return out


@dataclass(frozen=True)
class Summary:
    pairs: int
    right: int
    corrupt: int
    caught: int
    honest: int
    false_alarms: int

    @property
    def recall(self) -> float:
        return self.caught / self.corrupt if self.corrupt else 1.0

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.honest if self.honest else 0.0


def summarize(outcomes: Sequence[Outcome]) -> Summary:
    corrupt = [o for o in outcomes if o.corrupt]
    honest = [o for o in outcomes if not o.corrupt]
    return Summary(
        pairs=len(outcomes),
        right=sum(o.right for o in outcomes),
        corrupt=len(corrupt),
        caught=sum(o.verdict == "corruption" for o in corrupt),
        honest=len(honest),
        false_alarms=sum(o.alarm for o in honest),
    )


def _pct(x: float) -> str:
    return f"{x:.0%}" if x in (0.0, 1.0) else f"{x:.1%}"


def _ratio(a: int, b: int) -> str:
    return f"{_pct(a / b)} ({a}/{b})" if b else "-"


def report(outcomes: Sequence[Outcome], source: str) -> str:
    s = summarize(outcomes)
    lines = [
        f"Source: `{source}` ({s.pairs} labelled pairs). "
        f"Verdicts right: {_ratio(s.right, s.pairs)}.",
        "",
        f"- **Recall on corrupting rewrites** (a rule dropped, weakened or changed, labelled "
        f"`corruption`): {_ratio(s.caught, s.corrupt)} judged `corruption`.",
        f"- **False alarms on honest rewrites** (every other label): "
        f"{_ratio(s.false_alarms, s.honest)} raised a critical finding.",
        "",
        "### Per kind of rewrite",
        "",
        "| variant | what | pairs | verdict right | caught (corrupt) / false alarms (honest) |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    by_variant: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_variant[o.pair.variant].append(o)
    order = [v for v in VARIANTS if v in by_variant] + sorted(set(by_variant) - set(VARIANTS))
    for v in order:
        group = by_variant[v]
        g = summarize(group)
        if g.corrupt and not g.honest:
            alarm = f"caught {_ratio(g.caught, g.corrupt)}"
        elif g.honest and not g.corrupt:
            alarm = f"false alarms {_ratio(g.false_alarms, g.honest)}"
        else:
            alarm = (
                f"caught {_ratio(g.caught, g.corrupt)}, "
                f"false alarms {_ratio(g.false_alarms, g.honest)}"
            )
        what = VARIANTS.get(v, "other")
        lines.append(f"| {v} | {what} | {g.pairs} | {_ratio(g.right, g.pairs)} | {alarm} |")
    lines += [
        "",
        "### Per finding code",
        "",
        "Precision: of the pairs that report the code, the share labelled with it; recall: of",
        "the pairs labelled with it, the share that report it. A pair labelled with one",
        "critical code that reports another as well counts against the other's precision.",
        "",
        "| code | labelled | reported | precision | recall |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for code in CRITICAL_CODES:
        labelled = [o for o in outcomes if code in o.pair.must]
        reported = [o for o in outcomes if code in o.codes]
        if not labelled and not reported:
            continue
        both = [o for o in labelled if code in o.codes]
        lines.append(
            f"| `{code}` | {len(labelled)} | {len(reported)} | "
            f"{_ratio(len(both), len(reported))} | {_ratio(len(both), len(labelled))} |"
        )
    styles = Counter(o.pair.style for o in outcomes if o.pair.style)
    if styles:
        lines += ["", "### Per style of memory", ""]
        lines += ["| style | pairs | verdict right |", "| --- | ---: | ---: |"]
        for style, _n in sorted(styles.items()):
            group = [o for o in outcomes if o.pair.style == style]
            lines.append(
                f"| {style} | {len(group)} | {_ratio(sum(o.right for o in group), len(group))} |"
            )
    wrong = [o for o in outcomes if not o.right]
    if wrong:
        lines += ["", "### The pairs it gets wrong", ""]
        for o in wrong:
            want = "/".join((o.pair.verdict, *o.pair.acceptable))
            extra = f"; must report {', '.join(o.pair.must)}" if o.pair.must else ""
            got = ", ".join(sorted(o.codes)) or "no findings"
            lines.append(f"- `{o.pair.name}`: {o.verdict} ({got}); labelled {want}{extra}")
    return "\n".join(lines) + "\n"


# --- real rewrites from public git histories -------------------------------------------------

REAL_START, REAL_END = "<!-- real history: bench/accuracy.py --real -->", "<!-- /real history -->"
MARKDOWN_EXTS = (".md", ".json", ".jsonl", ".af")


@dataclass(frozen=True)
class RealOutcome:
    name: str
    group: str
    label: str
    accept: tuple[str, ...]
    verdict: str
    critical: tuple[tuple[str, tuple[str, ...]], ...]  # (code, reasons) of critical findings
    error: str | None = None
    repo: str = ""
    language: str = ""

    @property
    def right(self) -> bool:
        return self.verdict in (self.label, *self.accept)

    @property
    def losing(self) -> bool:
        return self.label == "corruption"

    @property
    def clean(self) -> bool:
        return self.label != "corruption" and "corruption" not in self.accept


def judge_real(root: Path) -> list[RealOutcome]:
    """Audit every labelled real rewrite under ``root``, as ``padtui audit`` would."""
    from padtui.core.audit.rewrite import audit
    from padtui.core.errors import PadError
    from padtui.core.formats import load_pad

    out = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        label_file = next(
            (folder / n for n in ("label.json", "expect.json") if (folder / n).is_file()), None
        )
        olds, news = sorted(folder.glob("old.*")), sorted(folder.glob("new.*"))
        if label_file is None or len(olds) != 1 or len(news) != 1:
            continue
        try:
            label = json.loads(label_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # (a label being written)
        group = f"{root.name} ({label['split']})" if label.get("split") else root.name
        where = {"repo": str(label.get("repo", "")), "language": str(label.get("language", ""))}
        accept = tuple(label.get("accept", label.get("acceptable", ())))
        fmt = None if olds[0].suffix in MARKDOWN_EXTS else "md"
        try:
            result = audit(load_pad(str(olds[0]), fmt), load_pad(str(news[0]), fmt))
        except PadError as exc:
            out.append(
                RealOutcome(
                    folder.name,
                    group,
                    label["verdict"],
                    accept,
                    "error",
                    (),
                    str(exc).replace(str(folder), folder.name),
                    **where,
                )
            )
            continue
        critical = tuple(
            (f.code.value, tuple(r.value for r in f.reasons))
            for f in result.findings
            if f.severity == "critical"
        )
        out.append(
            RealOutcome(
                folder.name, group, label["verdict"], accept, result.verdict, critical, **where
            )
        )
    return out


def _cause(o: RealOutcome) -> str:
    """What a false alarm rests on: the reasons its critical findings give."""
    reasons = sorted({r for _code, rs in o.critical for r in rs}) or ["sealed"]
    return ", ".join(reasons)


def real_report(outcomes: Sequence[RealOutcome], synthetic: Summary | None) -> str:
    groups: dict[str, list[RealOutcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.group].append(o)
    repos = len({o.repo for o in outcomes if o.repo})
    languages = ", ".join(sorted({o.language for o in outcomes if o.language})) or "-"
    lines = [
        REAL_START,
        "## Real rewrites and the synthetic corpus, side by side",
        "",
        f"{len(outcomes)} real rewrites of memory files (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`,",
        "Cursor and Windsurf rules, Cline memory banks and rules ...) taken from the public git",
        f"histories of {repos} repositories (languages: {languages}), each labelled by its",
        "meaning, with the label's why, before padtui ran on it: `corruption` when a rule that",
        "binds the agent was lost or loosened, else what happened (`growth`, `compaction`,",
        "`undeclared_loss`, `unchanged`), with the other verdicts a careful reader would also",
        "accept. They are fetched public material, so they are not in the repository:",
        "`bench/real_history/manifest.jsonl` names each pair (repository, file, commits,",
        "label) and `bench/real_history/build.py` writes the pairs back from clones. These",
        "figures were produced with `python bench/real_history/build.py --git-root CLONES --out",
        "DIR`, then `python bench/accuracy.py --real DIR --real WILD --write ACCURACY.md` (WILD:",
        "a further folder of labelled real rewrites, used in development). The `dev` split was",
        "used to develop the audit; the `heldout` split was run only to measure it. A verdict",
        "is right when it is the label or one it accepts; a rule-losing rewrite is one labelled",
        "`corruption`; a clean one is labelled otherwise, with `corruption` not among the",
        "accepted verdicts.",
        "",
        "| corpus | pairs | verdicts right | rule-losing rewrites caught | "
        "clean rewrites with a critical finding |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name in sorted(groups):
        g = groups[name]
        losing = [o for o in g if o.losing]
        clean = [o for o in g if o.clean]
        lines.append(
            f"| {name} | {len(g)} | {_ratio(sum(o.right for o in g), len(g))} | "
            f"{_ratio(sum(o.verdict == 'corruption' for o in losing), len(losing))} | "
            f"{_ratio(sum(bool(o.critical) for o in clean), len(clean))} |"
        )
    if synthetic is not None:
        s = synthetic
        lines.append(
            f"| synthetic (`tests/corpus/pairs`) | {s.pairs} | {_ratio(s.right, s.pairs)} | "
            f"{_ratio(s.caught, s.corrupt)} | {_ratio(s.false_alarms, s.honest)} |"
        )
    alarms = [o for o in outcomes if o.clean and o.critical]
    lines += ["", "### False alarms on clean real rewrites, by cause", ""]
    if alarms:
        lines += ["| cause (reasons of the critical findings) | pairs |", "| --- | ---: |"]
        for cause, n in Counter(_cause(o) for o in alarms).most_common():
            lines.append(f"| {cause} | {n} |")
    else:
        lines.append("None.")
    wrong = [o for o in outcomes if not o.right]
    if wrong:
        lines += ["", "### Real rewrites it gets wrong", ""]
        for o in wrong:
            want = "/".join((o.label, *o.accept))
            got = o.error or ", ".join(sorted({c for c, _ in o.critical})) or "no critical finding"
            lines.append(f"- `{o.name}` ({o.group}): {o.verdict} ({got}); labelled {want}")
    lines += [REAL_END, ""]
    return "\n".join(lines)


def _kept_real(path: Path) -> str:
    """The real-history block of an earlier report, to keep when it is not measured again."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ""
    start, end = text.find(REAL_START), text.find(REAL_END)
    return text[start : end + len(REAL_END)] + "\n\n" if 0 <= start < end else ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, default=CORPUS, help="a folder of labelled pairs")
    parser.add_argument("--write", type=Path, help="write the report (Markdown) here")
    parser.add_argument(
        "--real",
        type=Path,
        action="append",
        default=[],
        help="a folder of real rewrites with label.json (may be given more than once)",
    )
    args = parser.parse_args(argv)
    pairs = load_pairs(args.pairs)
    if not pairs:
        print(f"{args.pairs}: no labelled pairs", file=sys.stderr)
        return 2
    started = time.perf_counter()
    outcomes = judge(pairs)
    took = time.perf_counter() - started
    source = os.path.relpath(args.pairs, ROOT) if args.pairs.is_relative_to(ROOT) else args.pairs
    body = report(outcomes, str(source))
    real = ""
    if args.real:
        found = [o for root in args.real for o in judge_real(root)]
        real = real_report(found, summarize(outcomes)) + "\n"
    elif args.write:
        real = _kept_real(args.write)
    if args.write:
        head = [
            "# How often the audit is right",
            "",
            "Generated by `python bench/accuracy.py --write ACCURACY.md` "
            f"({platform.python_implementation()} {platform.python_version()}; "
            f"{len(pairs)} pairs audited in {took:.1f} s). Do not edit by hand.",
            "",
            "The corpus (`tests/corpus/pairs/`, described in `tests/corpus/README.md`) was",
            "written for this project in the styles of real memory files: Claude Code",
            "`CLAUDE.md` and auto-memory, Cursor and Cline rules, Letta agent files, padtui's",
            "own JSON pads, in six languages. Each pair is labelled with the verdict a person",
            "who knows the agent would give. `tests/core/test_accuracy.py` holds the audit to",
            "the targets below on every test run.",
            "",
        ]
        args.write.write_text("\n".join(head) + real + body, encoding="utf-8")
        print(f"wrote {args.write}")
    else:
        print(real + body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
