"""``padtui mcp``: the guard as a stdio Model Context Protocol server, so that an agent can ask
before it rewrites its memory (the README's "Let the agent ask first").

A thin face over the core: the same trial, audit, safe commit and journal as the commands.
It touches only the pads named on its command line, or pads inside the folders named there,
by their real paths (a symlink or ``..`` that leads elsewhere is refused). Pad text is
untrusted; results are structured JSON, and every error is a tool error of one line.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp.types import ToolAnnotations
from pydantic import ValidationError

from padtui import __version__, telemetry
from padtui.core import sealing, store
from padtui.core.errors import EncodingUnavailable, PadError
from padtui.core.formats import (
    MAX_PAD_BYTES,
    check_writable,
    chosen,
    format_for_name,
    format_of,
    load_pad,
    parse,
)
from padtui.core.text import one_line
from padtui.report import plan_json

if TYPE_CHECKING:
    from padtui.core.compaction import Plan
    from padtui.core.journal import Version
    from padtui.core.model import Pad
    from padtui.core.tokens import TokenCounter

MAX_HISTORY = 1000

INSTRUCTIONS = (
    "padtui guards an agent's memory files (pads) against rewrites that lose its rules. "
    "Before you rewrite a memory file, call audit with the text you are about to write: a "
    "verdict of corruption means halt and surface it to the user instead of writing. To make "
    "room, call compact without confirm to see the plan, then again with its token; "
    "a refusal or a conflict is never written."
)


class OutsideScope(ToolError):
    """A path the server was not given."""


class Scope:
    """The pads the server may touch: the files named on its command line and whatever lies
    inside the folders named there, compared by real path (symlinks and ``..`` resolved)."""

    def __init__(self, roots: Sequence[str]) -> None:
        self.files: set[str] = set()
        self.folders: list[str] = []
        for root in roots:
            real = os.path.realpath(root)
            if os.path.isdir(real):
                self.folders.append(real)
            elif os.path.isfile(real):
                format_of(root if format_for_name(root) else real)  # a pad by its name
                self.files.add(real)
            else:
                raise PadError(root, "no such file or folder")

    def allows(self, real: str) -> bool:
        return real in self.files or any(
            real != folder and os.path.commonpath([real, folder]) == folder
            for folder in self.folders
        )

    def resolve(self, path: str) -> str:
        """The real path behind ``path`` (relative to the server's folder), if allowed."""
        if not path or "\0" in path:
            raise OutsideScope("a path is needed (a pad the server was started with)")
        real = os.path.realpath(path)
        if not self.allows(real):
            raise OutsideScope(
                f"{one_line(path, 200)}: outside the pads this server may touch "
                "(the files and folders named on its command line)"
            )
        return real

    def pads(self) -> list[str]:
        """The pads in scope now: the files named, and pads directly in the folders named."""
        found = set(self.files)
        for folder in self.folders:
            try:
                names = sorted(os.listdir(folder))
            except OSError:
                continue
            for name in names:
                real = os.path.realpath(os.path.join(folder, name))
                if format_for_name(name) and os.path.isfile(real) and self.allows(real):
                    found.add(real)
        return sorted(found)


@contextmanager
def _tool_errors() -> Iterator[None]:
    """The core's errors as tool errors, one line each (the server goes on)."""
    try:
        yield
    except ToolError:
        raise
    except store.Conflict as exc:
        raise ToolError(f"conflict: {one_line(exc.line())}") from None
    except store.CommitError as exc:
        raise ToolError(one_line(exc.line())) from None
    except PadError as exc:
        raise ToolError(one_line(exc.line())) from None
    except EncodingUnavailable as exc:
        raise ToolError(one_line(str(exc))) from None


def _chosen(fmt: str) -> str | None:
    """The format to read a pad as, when its real name may not say it (a link named for
    it); a format padtui only reads (``af``) is read by its name."""
    return fmt if fmt in chosen() else None


def _plan_report(path: str, plan: Plan, fmt: str) -> dict[str, Any]:
    """``check --json``'s object, and for a refusal that sealing would lift, the way out as
    the call to make (``way_out`` says it as a command for a person)."""
    # (a way out's command says --format only where the pad's name does not say it)
    out = plan_json(path, plan, None if format_for_name(path) else fmt)
    # (what strict keeps: the protected entries and rules the pass drops, and those a pass at
    # the same budget would drop once they are sealed)
    out["way_out_call"] = (
        {
            "tool": "externalize",
            "arguments": {"path": path, "ids": [plan.source.name_of(e) for e in plan.to_seal]},
        }
        if plan.refused and plan.to_seal and "padtui externalize" in (plan.way_out or "")
        else None
    )
    return out


def _counter(path: str, pad: Pad) -> TokenCounter:
    from padtui.core.tokens import counter_for

    try:
        return counter_for(pad.encoding)
    except EncodingUnavailable as exc:
        raise PadError(path, str(exc), '"encoding"') from None


class Guard:
    """The tools, over one scope; a plan token is an HMAC under a key of this process."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self._key = secrets.token_bytes(32)

    def _pad(self, path: str) -> tuple[str, str]:
        real = self.scope.resolve(path)
        # the format from the name the agent gave (a link may be named for its format)
        return real, format_of(path if format_for_name(path) else real)

    def _token(self, snap: store.Snapshot, budget: int | None) -> str:
        message = f"{snap.target}\0{snap.stamp.sha256}\0{budget}\0strict".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def check(
        self, path: str, budget: int | None = None, policy: Literal["strict", "seed"] = "strict"
    ) -> dict[str, Any]:
        from padtui.core.compaction import plan

        with _tool_errors():
            real, fmt = self._pad(path)
            pad = load_pad(real, _chosen(fmt))
            result = plan(pad, budget, policy, _counter(real, pad), fmt=fmt)
            telemetry.planned(path, result, source="mcp.check")
            return _plan_report(path, result, fmt)

    def audit(self, path: str, new_text: str = "", new_path: str = "") -> dict[str, Any]:
        from padtui.core.audit import audit
        from padtui.core.tokens import counter_for

        if new_text and new_path:
            raise ToolError("give new_text (the rewrite about to be written) or new_path, not both")
        with _tool_errors():
            real, fmt = self._pad(path)
            old = load_pad(real, _chosen(fmt))
            if not new_path:
                data = new_text.encode("utf-8", "surrogatepass")
                if len(data) > MAX_PAD_BYTES:
                    raise ToolError(f"new_text: larger than {MAX_PAD_BYTES} bytes")
                try:
                    new = parse(real, data, fmt).pad
                except PadError as exc:
                    place = f"{exc.where}: " if exc.where else ""
                    raise ToolError(f"new_text: {place}{one_line(exc.problem)}") from None
                shown = "(new_text)"
            else:
                new_real, new_fmt = self._pad(new_path)
                new = load_pad(new_real, _chosen(new_fmt))
                shown = new_path
            result = audit(old, new, counter_for(new.encoding or old.encoding))
            telemetry.audited(path, result, source="mcp.audit", old=old)
            return {"old": path, "new": shown, **result.as_json()}

    def compact(
        self, path: str, budget: int | None = None, confirm: str | None = None
    ) -> dict[str, Any]:
        from padtui.core.compaction import plan

        with _tool_errors():
            real, fmt = self._pad(path)
            check_writable(real, fmt, seals=True)
            snap = store.read(real, fmt=_chosen(fmt))
            self.scope.resolve(snap.target)  # the file read is the one allowed
            check_writable(real, snap.format, snap.file.layout)
            result = plan(snap.pad, budget, "strict", _counter(real, snap.pad), fmt=fmt)
            telemetry.planned(path, result, source="mcp.compact")
            report: dict[str, Any] = {**_plan_report(path, result, fmt), "written": False}
            token = self._token(snap, budget)
            if confirm is None:
                committable = not result.refused and bool(result.dropped)
                return {**report, "token": token if committable else None}
            if not hmac.compare_digest(confirm.encode(), token.encode()):
                raise ToolError(
                    f"conflict: {one_line(path, 200)} is not the version the token's plan was "
                    "made from (or the budget differs); nothing written; call compact again "
                    "without confirm for a new plan"
                )
            if result.refused or not result.dropped:
                return report
            after = store.commit(snap, result, journal=True)
            return {**report, "written": True, "journal": self._journal(real, after)}

    def externalize(self, path: str, ids: list[str]) -> dict[str, Any]:
        with _tool_errors():
            real, fmt = self._pad(path)
            check_writable(real, fmt, seals=True)
            snap = store.read(real, fmt=_chosen(fmt))
            self.scope.resolve(snap.target)
            check_writable(real, snap.format, snap.file.layout)
            entries, sealed, already = sealing.externalized(snap.pad, ids, path)
            report: dict[str, Any] = {
                "path": path,
                "sealed": sealed,
                "already_sealed": already,
                "written": False,
            }
            if not sealed:
                return report
            after = store.commit(snap, entries, journal=True, origin="externalize")
            return {**report, "written": True, "journal": self._journal(real, after)}

    def _journal(self, real: str, after: store.Snapshot) -> dict[str, Any] | None:
        j = store.journal_of(real, True)
        return {"path": j.path, "version": after.version} if j is not None else None

    def history(self, path: str, limit: int = 20) -> dict[str, Any]:
        from padtui.core.history import history

        if not 1 <= limit <= MAX_HISTORY:
            raise ToolError(f"limit: between 1 and {MAX_HISTORY}, got {limit}")
        with _tool_errors():
            real, fmt = self._pad(path)
            journal = store.journal_of(real, True)
            assert journal is not None
            journal.check_owner()
            rows = history(journal)
            on_disk, current = self._on_disk(real, fmt, [r.version for r in rows])
            return {
                "path": path,
                "journal": journal.path,
                "on_disk": on_disk,
                "current_error": current,
                "versions": [r.as_json() for r in rows[-limit:]],
                "more": max(len(rows) - limit, 0),
                "damaged_lines": [{"line": n, "problem": p} for n, p in journal.damage()],
                "lost_versions": sorted(journal.lost()),
            }

    def _on_disk(
        self, real: str, fmt: str, versions: Sequence[Version]
    ) -> tuple[int | None, str | None]:
        """The journaled version the file now is (looked up, not journaled: read-only)."""
        try:
            snap = store.read(real, fmt=_chosen(fmt))
        except PadError as exc:
            return None, one_line(exc.problem)
        same = [v.n for v in versions if v.sha256 == snap.stamp.sha256]
        return (same[-1] if same else None), None

    def sealed(self, real: str) -> str:
        with _resource_errors():
            pad = load_pad(real)
            entries = [{"id": e.label, "kind": e.kind, "text": e.text} for e in pad.sealed]
            return json.dumps({"path": real, "sealed": entries}, ensure_ascii=False)

    def findings(self, real: str) -> str:
        from padtui.core.history import history

        with _resource_errors():
            journal = store.journal_of(real, True)
            assert journal is not None
            journal.check_owner()
            audited = [r for r in history(journal) if r.audit is not None]
            last = audited[-1] if audited else None
            out: dict[str, Any] = {"path": real, "version": None, "against": None}
            if last is not None and last.audit is not None:
                out.update(version=last.version.n, against=last.previous, **last.audit.as_json())
            return json.dumps(out, ensure_ascii=False)


@contextmanager
def _resource_errors() -> Iterator[None]:
    try:
        yield
    except PadError as exc:
        raise ResourceError(one_line(exc.line())) from None
    except EncodingUnavailable as exc:
        raise ResourceError(one_line(str(exc))) from None


class _Server(MCPServer):
    """The SDK's server, with its argument errors in one line (pydantic's take several,
    and quote the values given)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                problems = "; ".join(
                    f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}"
                    for e in cause.errors()
                )
                raise ToolError(
                    one_line(f"Error executing tool {name}: invalid arguments: {problems}")
                ) from cause
            if "\n" in str(exc) and not isinstance(exc, UnexpectedToolError):
                raise ToolError(one_line(str(exc))) from cause
            raise


READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)


def build_server(roots: Sequence[str]) -> MCPServer:
    """The server over the pads and folders named (PadError for one that is not there)."""
    guard = Guard(Scope(roots))
    server = _Server("padtui", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    def tool(fn: Callable[..., dict[str, Any]], title: str, hints: ToolAnnotations) -> None:
        server.add_tool(fn, title=title, description=fn.__doc__, annotations=hints)

    def check(
        path: str, budget: int | None = None, policy: Literal["strict", "seed"] = "strict"
    ) -> dict[str, Any]:
        """The trial compaction of a pad, read-only: verdict (fits, compactable, refused),
        what a pass would drop, the rules at risk in unsealed entries, and for a refusal the
        way out. budget: tokens (default: the pad's budget_tokens, else 4000). policy: strict
        (refuses to drop constraints and negative facts, appends a loss record) or seed.
        A refusal that sealing would lift names the call to make in way_out_call."""
        return guard.check(path, budget, policy)

    def audit(path: str, new_text: str = "", new_path: str = "") -> dict[str, Any]:
        """Judge a rewrite before you write it, read-only: the pad at path as it is now
        against new_text (the full text you are about to write; empty means the pad
        emptied), or against the pad at new_path. Verdict (unchanged, compaction,
        corruption) and findings with the text before and after. On corruption, do not
        write: surface the findings to the user."""
        return guard.audit(path, new_text, new_path)

    def compact(path: str, budget: int | None = None, confirm: str | None = None) -> dict[str, Any]:
        """Compact a pad to its budget under the strict policy. Without confirm: the plan
        and a token for it (nothing written; no token for a refused plan). With confirm set
        to that token: the plan committed by compare-and-swap, journaled; if the pad changed
        since the plan, a conflict and nothing written."""
        return guard.compact(path, budget, confirm)

    def externalize(path: str, ids: list[str]) -> dict[str, Any]:
        """Seal constraints, negative facts or loss records (by id, or #N position) into
        the pad's sealed region, which no compaction drops; a safe, journaled commit."""
        return guard.externalize(path, ids)

    def history(path: str, limit: int = 20) -> dict[str, Any]:
        """The pad's journaled versions (the last limit of them), each with the audit verdict
        of the transition into it, read-only."""
        return guard.history(path, limit)

    tool(check, "Trial compaction", READ_ONLY)
    tool(audit, "Audit a rewrite before writing it", READ_ONLY)
    tool(
        compact,
        "Compact (plan, then commit with its token)",
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )
    tool(
        externalize,
        "Seal rules",
        ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    tool(history, "Version history with verdicts", READ_ONLY)
    for n, real in enumerate(guard.scope.pads(), 1):
        _pad_resources(server, guard, n, real)
    return server


def _reading(read: Callable[[str], str], real: str) -> Callable[[], str]:
    """A resource's reader: what ``read`` says of the pad ``real`` (a resource takes none)."""

    def resource() -> str:
        return read(real)

    return resource


def _pad_resources(server: MCPServer, guard: Guard, n: int, real: str) -> None:
    name = one_line(os.path.basename(real), 80)

    where = one_line(real, 200)
    for part, read, what in (
        ("sealed", guard.sealed, f"The sealed entries of {where}"),
        ("findings", guard.findings, f"The audit of the latest journaled rewrite of {where}"),
    ):
        server.resource(
            f"padtui://pads/{n}/{part}",
            name=f"{name} {part}",
            description=what,
            mime_type="application/json",
        )(_reading(read, real))


def serve(roots: Sequence[str]) -> None:
    """Run the server on standard input and output until the client closes them."""
    build_server(roots).run("stdio")
