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
import io
import json
import os
import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any, Literal, cast

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp.types import ToolAnnotations
from pydantic import ValidationError

from padtui import __version__, telemetry
from padtui.core.compaction import sealing
from padtui.core.errors import EncodingUnavailable, PadError, json_type, shown
from padtui.core.formats import (
    MAX_BUDGET,
    MAX_PAD_BYTES,
    check_writable,
    chosen,
    format_for_name,
    format_of,
    pad_from_bytes,
    parse,
)
from padtui.core.storage import fsio, store
from padtui.core.text import one_line
from padtui.report import plan_json

if TYPE_CHECKING:
    from padtui.core.compaction.plan import Plan
    from padtui.core.counting.tokens import TokenCounter
    from padtui.core.model import Pad
    from padtui.core.storage.journal import Version

MAX_HISTORY = 1000
MAX_PATH_BYTES = 4096  # a path longer than the system's own limit names no file
MAX_IDS = 10_000  # ids in one externalize call ...
MAX_ID_CHARS = 4096  # ... and characters in each
MAX_TOKEN_CHARS = 128  # a plan token (64 hex digits)
READ_TRIES = 5  # a pad whose path keeps changing while it is read: refused after this many

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
        if len(path) > MAX_PATH_BYTES or len(os.fsencode(path)) > MAX_PATH_BYTES:
            raise ToolError(f"path: longer than {MAX_PATH_BYTES} bytes")
        try:
            real = os.path.realpath(path)
        except (OSError, RuntimeError, ValueError):  # (a link swapped in or out meanwhile)
            raise ToolError(
                f"{one_line(path, 200)}: kept changing while it was resolved; try again"
            ) from None
        if not self.allows(real):
            raise OutsideScope(
                f"{one_line(path, 200)}: outside the pads this server may touch "
                "(the files and folders named on its command line)"
            )
        return real

    def read(self, path: str) -> tuple[str, bytes]:
        """The real path behind ``path`` and the bytes of the file there, if allowed: the
        file is opened once, along its real path, without following a symlink (one swapped
        in after the path was resolved is caught, and the path resolved again)."""
        for _ in range(READ_TRIES):
            real = self.resolve(path)
            try:
                data, _st = fsio.read_raw(real, path)
            except fsio.Moving:
                continue
            return real, data
        raise ToolError(f"{one_line(path, 200)}: kept changing while it was read; try again")

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
    from padtui.core.counting.tokens import counter_for

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

    def _load(self, path: str) -> tuple[str, str, Pad]:
        """A pad to read and not write back: its real path, format and entries, read once
        from the file the scope allows."""
        self._pad(path)  # (a name that says no format is refused before anything is read)
        real, data = self.scope.read(path)
        fmt = format_of(path if format_for_name(path) else real)
        return real, fmt, pad_from_bytes(real, data, format_of(real, _chosen(fmt)))

    def _token(self, snap: store.Snapshot, budget: int | None) -> str:
        message = f"{snap.target}\0{snap.stamp.sha256}\0{budget}\0strict".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def check(
        self, path: str, budget: int | None = None, policy: Literal["strict", "seed"] = "strict"
    ) -> dict[str, Any]:
        from padtui.core.compaction.plan import plan

        with _tool_errors():
            budget = _budget(budget)
            real, fmt, pad = self._load(path)
            result = plan(pad, budget, policy, _counter(real, pad), fmt=fmt)
            telemetry.planned(path, result, source="mcp.check")
            return _plan_report(path, result, fmt)

    def audit(self, path: str, new_text: str = "", new_path: str = "") -> dict[str, Any]:
        from padtui.core.audit.rewrite import audit
        from padtui.core.counting.tokens import counter_for

        if new_text and new_path:
            raise ToolError("give new_text (the rewrite about to be written) or new_path, not both")
        with _tool_errors():
            if len(new_text) > MAX_PAD_BYTES:
                raise ToolError(f"new_text: larger than {MAX_PAD_BYTES} bytes")
            real, fmt, old = self._load(path)
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
                _new_real, _new_fmt, new = self._load(new_path)
                shown = new_path
            result = audit(old, new, counter_for(new.encoding or old.encoding))
            telemetry.audited(path, result, source="mcp.audit", old=old)
            return {"old": path, "new": shown, **result.as_json()}

    def compact(
        self, path: str, budget: int | None = None, confirm: str | None = None
    ) -> dict[str, Any]:
        from padtui.core.compaction.plan import plan

        with _tool_errors():
            budget = _budget(budget)
            if confirm is not None and len(confirm) > MAX_TOKEN_CHARS:
                raise ToolError("confirm: not a plan token (call compact without confirm)")
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
        if len(ids) > MAX_IDS or any(len(i) > MAX_ID_CHARS for i in ids):
            raise ToolError(f"ids: at most {MAX_IDS}, each at most {MAX_ID_CHARS} characters")
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
        from padtui.core.history.versions import history

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
            _real, _fmt, pad = self._load(real)
            entries = [{"id": e.label, "kind": e.kind, "text": e.text} for e in pad.sealed]
            return json.dumps({"path": real, "sealed": entries}, ensure_ascii=False)

    def findings(self, real: str) -> str:
        from padtui.core.history.versions import history

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
    except ToolError as exc:
        raise ResourceError(one_line(str(exc))) from None
    except PadError as exc:
        raise ResourceError(one_line(exc.line())) from None
    except EncodingUnavailable as exc:
        raise ResourceError(one_line(str(exc))) from None


class _Server(MCPServer):
    """The SDK's server, with its argument errors in one line (pydantic's take several,
    and quote the values given)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        problem = _arguments_problem(arguments)
        if problem is not None:
            raise ToolError(f"Error executing tool {name}: invalid arguments: {problem}")
        try:
            result = await super().call_tool(name, arguments, context)
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
            if not _encodable(str(exc)):
                raise ToolError(_encodable_text(str(exc))) from cause
            raise
        try:  # (what cannot be sent would leave the call unanswered)
            result.model_dump_json()
        except (ValueError, UnicodeError):
            raise ToolError(
                f"Error executing tool {name}: its result holds text that is not Unicode "
                "(a file name that is not UTF-8?)"
            ) from None
        return result


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _encodable_text(text: str) -> str:
    return one_line(text.encode("utf-8", "replace").decode("utf-8"))


def _arguments_problem(arguments: dict[str, Any]) -> str | None:
    """What is wrong with a call's arguments before the SDK converts them (a boolean read
    as a number, text that is not Unicode), else None."""
    bad = arguments.get(NOT_UNICODE)
    if isinstance(bad, list) and bad:
        names = ", ".join(one_line(str(b), 40) for b in bad[:8])
        return f"{names}: holds text that is not Unicode (a lone surrogate)"
    for key in ("budget", "limit"):
        value = arguments.get(key)
        if key == "budget" and value is None:
            continue
        if isinstance(value, bool) or (key in arguments and type(value) is not int):
            return f"{key}: a whole number is needed, got {json_type(value)}"
    for key, value in arguments.items():
        if not _all_unicode(value):
            return (
                f"{one_line(_encodable_text(str(key)), 40)}: holds text that is not Unicode "
                "(a lone surrogate)"
            )
    return None


def _all_unicode(value: Any, depth: int = 0) -> bool:
    if isinstance(value, str):
        return _encodable(value)
    if depth > 32:
        return True
    if isinstance(value, dict):
        return all(
            _all_unicode(k, depth + 1) and _all_unicode(v, depth + 1) for k, v in value.items()
        )
    if isinstance(value, list):
        return all(_all_unicode(v, depth + 1) for v in value)
    return True


def _budget(budget: int | None) -> int | None:
    """A budget as the command line takes it: a whole number from 0 to ``MAX_BUDGET``."""
    if budget is None:
        return None
    if type(budget) is not int:
        raise ToolError(f"budget: a whole number is needed, got {json_type(budget)}")
    if not 0 <= budget <= MAX_BUDGET:
        raise ToolError(f"budget: must be >= 0 and at most {MAX_BUDGET}, got {shown(budget)}")
    return budget


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


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
NOT_UNICODE = "padtui: not unicode"  # (the arguments of a call that held a lone surrogate)


def screened(line: str) -> str:
    """A line of standard input as the SDK can take it. A JSON escape of a lone surrogate
    is no Unicode text, and the SDK's parser refuses the whole line, so the call would go
    unanswered: a tool call's arguments that hold one are replaced by a note of which did
    (its answer is then a tool error), and any other such text by U+FFFD."""
    if _SURROGATE_ESCAPE.search(line) is None:
        return line
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return line
    if not isinstance(message, dict):
        return line
    params = message.get("params")
    if message.get("method") == "tools/call" and isinstance(params, dict):
        arguments = params.get("arguments")
        if isinstance(arguments, dict) and not _all_unicode(arguments):
            bad = [_encodable_text(str(k)) for k, v in arguments.items() if not _all_unicode(v)]
            params["arguments"] = {NOT_UNICODE: bad or ["(an argument's name)"]}
    return json.dumps(_unicode(message)) + "\n"


def _unicode(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return value if _encodable(value) else value.encode("utf-8", "replace").decode()
    if depth > 64:
        return value
    if isinstance(value, dict):
        return {_unicode(k, depth + 1): _unicode(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_unicode(v, depth + 1) for v in value]
    return value


class _Screened:
    """Standard input, each line :func:`screened`."""

    def __init__(self, inner: IO[str]) -> None:
        self._inner = inner

    def readline(self, size: int = -1) -> str:
        return screened(self._inner.readline())

    def close(self) -> None:
        self._inner.close()


async def _serve_stdio(server: MCPServer) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    # standard input is read here, screened, and fd 0 left on the null device (so nothing
    # this process runs reads the client's messages); standard output the SDK's as ever
    raw = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    lines = _Screened(io.TextIOWrapper(raw, encoding="utf-8", errors="replace"))
    async with stdio_server(stdin=anyio.wrap_file(cast(IO[str], lines))) as (read, write):
        low = server._lowlevel_server
        await low.run(read, write, low.create_initialization_options())


def serve(roots: Sequence[str]) -> None:
    """Run the server on standard input and output until the client closes them."""
    import anyio

    anyio.run(_serve_stdio, build_server(roots))
