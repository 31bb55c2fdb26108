"""Verdicts into the team's OpenTelemetry (SPEC §11; docs/observability.md has the attributes).

The faces call the verdict functions below (``audited``, ``planned``, ``version_taken``,
``compaction_judged``, ``report_verdict``); each is a no-op costing one test unless
``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) is set and the
``otel`` extra installed. Only then is ``opentelemetry`` imported, configured by the standard
``OTEL_*`` variables alone, in one of two ways:

- in a long-lived process (the TUI, the MCP server) and a hook, in a thread of its own, set
  up at the first verdict (those reported meanwhile wait for it, bounded). Spans wait in the
  SDK's bounded queue (``BatchSpanProcessor``) and leave from its thread: the screen and a
  hook only add to the queue. At exit (``finish``) what is queued is sent, bounded by the
  exporter's timeout (``OTEL_EXPORTER_OTLP_TIMEOUT``); a failure to send is one line on
  standard error (or the TUI's notice).
- ``check`` and ``audit`` (``prepare``) hold their verdicts, and at exit write them to a spool
  file in the state folder and start a sender process on it (``python -m padtui.telemetry
  SPOOL``, in a session of its own), without waiting for it: starting Python and importing
  the SDK take longer than a warm audit of a large pad. The sender exports within the
  exporter's timeout and removes the spool; a failure is a line in the export's log
  (``export.log`` beside the spools), which the next command that exports tells in one line
  on standard error.

Never a traceback, and never another exit code.

A face module, not core: it does I/O of its own (a network exporter, a thread, a process, a
hook at exit), which the core never does.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from padtui.core.audit.findings import FindingCode
from padtui.core.text import one_line

if TYPE_CHECKING:
    from padtui.core.agents.guard import Judgement
    from padtui.core.audit.findings import Finding
    from padtui.core.audit.rewrite import Audit
    from padtui.core.compaction.plan import Plan
    from padtui.core.counting.tokens import TokenCounter
    from padtui.core.live.inspection import Inspection, SeenVersion
    from padtui.core.model import Pad
    from padtui.core.rules.finder import RuleMap, RuleMemo

ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
TIMEOUTS = ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")
DEFAULT_TIMEOUT = 10.0  # seconds, the OTLP exporter's own default
EVALUATION = "padtui.memory_fidelity"
OPERATION = "update_memory"
# the findings that lose a rule (dropped, weakened, or a sealed entry removed or edited)
RULE_LOSSES = frozenset(
    {
        FindingCode.CONSTRAINT_DROPPED,
        FindingCode.CONSTRAINT_WEAKENED,
        FindingCode.SEALED_REMOVED,
        FindingCode.SEALED_EDITED,
    }
)
MAX_EXPLANATION = 2000  # characters of the rules lost, on one event

Attributes = dict[str, Any]


# --- the exporting, set up on the first verdict ---------------------------------------------


class _Exporting:
    """The tracer, its span processor, and what went wrong sending (said once)."""

    def __init__(self, tracer: Any, processor: Any, timeout: float) -> None:
        self.tracer = tracer
        self.processor = processor
        self.timeout = timeout


_guard = threading.RLock()  # (a problem is told while the set-up holds it)
_exporting: _Exporting | None = None
_decided = False  # the set-up is done (exporting or not)
_setting_up: threading.Thread | None = None
_detached = False  # verdicts held for a sender started at exit (see prepare)
_held: list[_Verdict] = []  # (MAX_HELD at most)
_sender: subprocess.Popen[bytes] | None = None  # (kept: never waited for)
_pending: list[_Verdict] = []  # reported while the set-up runs (MAX_PENDING at most)
_wanted: bool | None = None
_problem: str | None = None
_told = False
_notice: Callable[[str], None] | None = None
MAX_PENDING = 2048
MAX_HELD = 100_000
SPOOL_FOLDER = "telemetry"  # in the state folder: the spools, and the export's log
LOG = "export.log"
UNSAID = "unsaid"  # the last failure logged, until a command tells it
MAX_LOG = 1 << 20  # bytes: past that, the log is moved to export.log.1
SENDER_BATCH = 512  # spans a batch, each sent before the next (the SDK's queue is bounded)


class _Verdict(NamedTuple):
    at: int  # nanoseconds since the epoch
    attributes: Attributes
    event: Attributes


def wanted() -> bool:
    """Whether an endpoint is set (and the SDK not disabled): the environment, read once."""
    global _wanted
    if _wanted is None:
        endpoint = any(os.environ.get(n, "").strip() for n in ENDPOINTS)
        off = os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"
        _wanted = endpoint and not off
    return _wanted


def _active() -> bool:
    return _exporting is not None or (not _decided and wanted())


def prepare() -> None:
    """For a short-lived command (``check``, ``audit``), as it starts: with an endpoint set,
    its verdicts are held, and handed at exit (``finish``) to a sender process that exports
    them after the command has exited. Nothing is imported or started here."""
    global _detached
    with _guard:
        if _decided or _detached or not wanted():
            return
        _detached = True
    atexit.register(finish)


def _begin() -> None:
    global _setting_up
    with _guard:
        if _setting_up is None and not _decided:
            _setting_up = threading.Thread(target=_set_up, name="padtui-telemetry", daemon=True)
            _setting_up.start()
            atexit.register(finish)


def _set_up() -> None:
    global _exporting, _decided
    try:
        exporting = _configured()
    except Exception as exc:  # exporting never breaks padtui
        _tell(f"telemetry off: {one_line(str(exc) or type(exc).__name__, 200)}")
        exporting = None
    with _guard:
        _exporting, _decided = exporting, True
        pending = list(_pending)
        _pending.clear()
    if exporting is not None:
        for verdict in pending:
            _span(exporting, verdict)


def enabled() -> bool:
    """Whether verdicts are exported in this process (waiting for the set-up, when one is
    under way)."""
    thread = _setting_up
    if thread is not None:
        thread.join()
    return _exporting is not None


def _configured() -> _Exporting | None:
    """The export as the environment asks for it (None: none asked for, or no SDK)."""
    endpoint = next((os.environ[n] for n in ENDPOINTS if os.environ.get(n, "").strip()), None)
    if endpoint is None or os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter as otlp
    except ImportError:
        _tell(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set but the otel extra is not installed "
            "(pip install 'padtui[otel]'): nothing exported"
        )
        return None
    return _install(otlp.OTLPSpanExporter(), exporter_timeout(), endpoint)


def exporter_timeout() -> float:
    """The exporter's timeout in seconds, as the OTLP exporter reads it."""
    for name in TIMEOUTS:
        raw = os.environ.get(name, "").strip()
        if raw:
            try:
                return max(float(raw), 0.0)
            except ValueError:
                break
    return DEFAULT_TIMEOUT


def _install(exporter: Any, timeout: float, where: str) -> _Exporting:
    """A tracer exporting through ``exporter`` in batches, from the processor's thread."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

    _quiet_sdk_logs()

    class Watched(SpanExporter):
        """The exporter, its failures kept for one line (the SDK's logs are silenced)."""

        def export(self, spans: Sequence[Any]) -> Any:
            try:
                result = exporter.export(spans)
            except Exception as exc:
                _failed(where, str(exc) or type(exc).__name__)
                raise
            if getattr(result, "name", "") != "SUCCESS":
                why = _last_sdk_error or "the collector did not take them"
                if "max retries" in why and _last_sdk_cause:
                    why = _cause(_last_sdk_cause)
                _failed(where, why)
            return result

        def shutdown(self, timeout_millis: float = 30000, **_: Any) -> None:
            exporter.shutdown()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return bool(exporter.force_flush(timeout_millis))

    own: Attributes = {}
    resource_env = os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    if not os.environ.get("OTEL_SERVICE_NAME") and "service.name=" not in resource_env:
        own["service.name"] = "padtui"
    provider = TracerProvider(resource=Resource.create(own), shutdown_on_exit=False)
    processor = BatchSpanProcessor(Watched())
    provider.add_span_processor(processor)
    return _Exporting(provider.get_tracer("padtui"), processor, timeout)


_last_sdk_error: str | None = None
_last_sdk_cause: str | None = None  # (the retries' reason, when the error names none)


class _Kept(logging.Handler):
    """Why the SDK last failed to send (it logs each failure, and why it retried: a refused
    connection; padtui says one line of its own)."""

    def emit(self, record: logging.LogRecord) -> None:
        global _last_sdk_error, _last_sdk_cause
        try:
            message = one_line(record.getMessage(), 1000)
        except Exception:
            return
        if record.levelno >= logging.ERROR:
            _last_sdk_error = message
        elif message.startswith("Transient error"):
            _last_sdk_cause = message


def _cause(message: str) -> str:
    """The system's reason in a retry's message (``[Errno 111] Connection refused``), else the
    message."""
    found = re.search(r"\[Errno -?\d+\] ([^'\")\]]+)", message)
    return found.group(1).strip() if found else message.removeprefix("Transient error ")


def _quiet_sdk_logs() -> None:
    log = logging.getLogger("opentelemetry")
    log.propagate = False
    if not any(isinstance(h, _Kept) for h in log.handlers):
        log.addHandler(_Kept())


def _failed(where: str, why: str) -> None:
    _tell(f"telemetry not sent to {one_line(where, 120)}: {one_line(why, 200)}")


def _tell(line: str) -> None:
    """Keep the first problem; a screen that asked for it (``on_problem``) hears it now."""
    global _problem, _told
    with _guard:
        if _problem is not None:
            return
        _problem = line
        notice = _notice
    if notice is not None:
        try:
            notice(f"padtui: {line}")
            _told = True
        except Exception:
            pass


def on_problem(notice: Callable[[str], None] | None) -> None:
    """Have ``notice`` hear a problem sending (once; from the exporter's thread): the TUI
    shows it on screen instead of standard error."""
    global _notice
    _notice = notice


def finish() -> None:
    """Send what is queued, waiting at most the exporter's timeout in all (the set-up, if
    still under way, included), and say a problem in one line on standard error (once; safe
    to call again). The command line calls it before the interpreter ends: once that has
    begun, the SDK can start no thread, so a set-up still under way then fails (an exit
    hook calls it too, for padtui used as a library)."""
    with contextlib.suppress(KeyboardInterrupt):  # (^C while waiting: the rest is dropped)
        _finish()


def _finish() -> None:
    if _detached:
        _dispatch()
    else:
        _in_process_done()
    _say_problem()


def _in_process_done() -> None:
    """Send what this process queued, by the exporter's timeout (the set-up included)."""
    timeout = exporter_timeout()
    deadline = time.monotonic() + timeout + 0.2
    _worked_off(deadline)
    thread = _setting_up
    if thread is not None:
        thread.join(max(deadline - time.monotonic(), 0.0))
        if thread.is_alive():
            _tell(f"telemetry not set up within {timeout:g} s: nothing sent")
    exporting = _exporting
    if exporting is not None:
        _shut_down(exporting, deadline)


def _say_problem() -> None:
    global _told
    if _problem is not None and not _told:
        _told = True
        try:
            sys.stderr.write(f"padtui: {_problem}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


# --- a detached sender, for check and audit -------------------------------------------------


def _dispatch() -> None:
    """Hand the verdicts held to a sender process (started, never waited for), and tell the
    failure of an export before, if no command has told it yet."""
    with _guard:
        held = list(_held)
        _held.clear()
    if not held:
        return
    from padtui.core.storage.journal import state_dir

    folder = os.path.join(state_dir(), SPOOL_FOLDER)
    _tell_unsaid(folder)
    _start_sender(folder, held)


def _start_sender(folder: str, verdicts: Sequence[_Verdict]) -> None:
    """Write ``verdicts`` to a spool file in ``folder`` and start the sender on it, in a
    session of its own (the terminal's ^C and hang-up are the command's, not its), its output
    appended to the export's log (a crash of it lands there, not on the command's screen)."""
    global _sender
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        spool = _spooled(folder, verdicts)
        log = _log_opened(folder)
    except OSError as exc:
        _tell(f"telemetry not sent: {one_line(folder, 160)}: {exc.strerror or exc}")
        return
    try:
        _sender = subprocess.Popen(
            [sys.executable, "-m", "padtui.telemetry", spool],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(spool)
        _tell(f"telemetry not sent: the sender did not start ({exc.strerror or exc})")
    finally:
        os.close(log)


def _spooled(folder: str, verdicts: Sequence[_Verdict]) -> str:
    """A new spool file in ``folder`` holding ``verdicts``, a line of JSON each."""
    path = os.path.join(folder, f"{os.getpid()}-{time.time_ns()}.jsonl")
    lines = (json.dumps(v._asdict(), ensure_ascii=True, default=str) + "\n" for v in verdicts)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.writelines(lines)
    return path


def _log_opened(folder: str) -> int:
    """The export's log, opened to append (moved to ``export.log.1`` first past MAX_LOG)."""
    path = os.path.join(folder, LOG)
    with contextlib.suppress(OSError):
        if os.stat(path).st_size > MAX_LOG:
            os.replace(path, path + ".1")
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)


def _tell_unsaid(folder: str) -> None:
    """The failure the last sender logged, told once (the command that claims it tells it)."""
    unsaid = os.path.join(folder, UNSAID)
    claimed = f"{unsaid}.told-{os.getpid()}"
    try:
        os.rename(unsaid, claimed)
    except OSError:
        return
    try:
        with open(claimed, encoding="utf-8", errors="replace") as got:
            at, _, line = got.read(2000).partition(" ")
    except OSError:
        return
    finally:
        with contextlib.suppress(OSError):
            os.unlink(claimed)
    where = one_line(os.path.join(folder, LOG), 200)
    _tell(
        f"an export before this one failed at {one_line(at, 40)}: {one_line(line, 300)} ({where})"
    )


def _send_spooled(spool: str) -> int:
    """The sender: the verdicts in ``spool`` exported as the set-up in process does, within
    the exporter's timeout, and the spool removed; a problem is one line in the export's log
    (its standard error) and kept for the next command to tell."""
    global _exporting, _decided
    try:
        verdicts = _unspooled(spool)
        exporting = _exporting = _configured()
        _decided = True
        if exporting is not None:
            _export_all(exporting, verdicts)
    except Exception as exc:  # (a line in the log, not a traceback)
        _tell(f"telemetry: {one_line(str(exc) or type(exc).__name__, 200)}")
    finally:
        with contextlib.suppress(OSError):
            os.unlink(spool)
    if _problem is not None:
        _logged(os.path.dirname(spool), _problem)
    return 0


def _unspooled(spool: str) -> list[_Verdict]:
    verdicts = []
    with open(spool, encoding="ascii") as lines:
        for line in lines:
            got = json.loads(line)
            verdicts.append(_Verdict(int(got["at"]), got["attributes"], got["event"]))
    return verdicts


def _export_all(exporting: _Exporting, verdicts: Sequence[_Verdict]) -> None:
    for done, verdict in enumerate(verdicts, 1):
        _span(exporting, verdict)
        if done % SENDER_BATCH == 0:  # (the queue is bounded: its spans sent before more)
            exporting.processor.force_flush(int(exporting.timeout * 1000))
    _shut_down(exporting, time.monotonic() + exporting.timeout + 0.2)


def _logged(folder: str, problem: str) -> None:
    """``problem`` as a line of the log (standard error), and as the failure unsaid."""
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"{at} padtui: {problem}\n")
        sys.stderr.flush()
    fresh = os.path.join(folder, f"{UNSAID}.new-{os.getpid()}")
    with contextlib.suppress(OSError):
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(f"{at} {problem}\n")
        os.replace(fresh, os.path.join(folder, UNSAID))


def _shut_down(exporting: _Exporting, deadline: float) -> None:
    """Send what is queued by ``deadline`` (``time.monotonic``): the processor's own
    shutdown sends batch after batch, each within the exporter's timeout, so it is waited
    for from here (its thread is a daemon: the process does not wait for it past that)."""

    def shut() -> None:
        try:
            exporting.processor.shutdown()
        except Exception as exc:
            _failed("the collector", str(exc) or type(exc).__name__)

    closing = threading.Thread(target=shut, name="padtui-telemetry-exit", daemon=True)
    closing.start()
    closing.join(max(deadline - time.monotonic(), 0.0))
    if closing.is_alive():
        _tell(f"telemetry not all sent within {exporting.timeout:g} s: the rest is dropped")


def use(exporter: Any) -> None:
    """Export through ``exporter`` from now on, whatever the environment says (the tests
    hand the SDK's in-memory exporter; ``stop`` undoes it)."""
    global _exporting, _decided, _problem, _told
    stop()
    with _guard:
        _exporting = _install(exporter, exporter_timeout(), "the exporter")
        _decided = True


def flush() -> None:
    """Send what is queued now (a test reads its exporter after this)."""
    _worked_off(time.monotonic() + 10.0)
    if _exporting is not None:
        _exporting.processor.force_flush()


def stop() -> None:
    """Send what is queued (a detached command: hand it to its sender) and forget the
    set-up: the next verdict looks at the environment again."""
    global _exporting, _decided, _setting_up, _detached, _wanted, _problem, _told
    if _detached:
        _dispatch()
    _worked_off(time.monotonic() + 10.0)
    thread = _setting_up
    if thread is not None:
        thread.join()
    exporting = _exporting
    if exporting is not None:
        _shut_down(exporting, time.monotonic() + exporting.timeout + 0.2)
    with _guard:
        _exporting, _decided, _setting_up, _detached, _wanted = None, False, None, False, None
        _problem, _told = None, False
        _pending.clear()
        _held.clear()


# --- the verdicts ---------------------------------------------------------------------------


def report_verdict(
    store_id: str,
    verdict: str,
    *,
    source: str,
    score: float | None = None,
    explanation: str = "",
    agent_id: str | None = None,
    conversation_id: str | None = None,
    compacted: bool | None = None,
    detail: Attributes | None = None,
) -> None:
    """One verdict on a write to the memory ``store_id`` (a pad's path, a store's folder, a
    transcript): an ``update_memory`` span with a ``gen_ai.evaluation.result`` event.
    ``score``: the share of rules carried (none: the event has no value); ``explanation``:
    the rules lost; ``detail``: padtui's own attributes (named ``padtui.`` here)."""
    if not _active():
        return
    try:
        attributes: Attributes = {
            "gen_ai.operation.name": OPERATION,
            "gen_ai.memory.store.id": store_id,
            "padtui.source": source,
            "padtui.verdict": str(verdict),
        }
        known = {
            "gen_ai.agent.id": agent_id or None,
            "gen_ai.conversation.id": conversation_id or None,
            "gen_ai.conversation.compacted": compacted,
            **{f"padtui.{k}": v for k, v in (detail or {}).items()},
        }
        attributes.update((k, v) for k, v in known.items() if v is not None)
        _report(_Verdict(time.time_ns(), attributes, _evaluation(verdict, score, explanation)))
    except Exception as exc:  # exporting never breaks padtui
        _tell(f"telemetry: {one_line(str(exc) or type(exc).__name__, 200)}")


def _report(verdict: _Verdict) -> None:
    """Held (a detached command), waiting for the set-up under way, or a span now."""
    with _guard:
        if _detached:
            if len(_held) < MAX_HELD:
                _held.append(verdict)
            else:
                _tell(f"telemetry: verdicts dropped (more than {MAX_HELD:,} in one command)")
            return
        exporting = _exporting
        if exporting is None:  # (the set-up under way sends it once done)
            if not _decided and len(_pending) < MAX_PENDING:
                _pending.append(verdict)
                _begin()
            return
    _span(exporting, verdict)


def _evaluation(verdict: str, score: float | None, explanation: str) -> Attributes:
    event: Attributes = {
        "gen_ai.evaluation.name": EVALUATION,
        "gen_ai.evaluation.score.label": str(verdict),
    }
    if score is not None:
        event["gen_ai.evaluation.score.value"] = float(score)
    if explanation:
        event["gen_ai.evaluation.explanation"] = explanation[:MAX_EXPLANATION]
    return event


def _span(exporting: _Exporting, verdict: _Verdict) -> None:
    span = exporting.tracer.start_span(
        OPERATION, attributes=verdict.attributes, start_time=verdict.at
    )
    span.add_event("gen_ai.evaluation.result", verdict.event, timestamp=verdict.at)
    span.end(end_time=verdict.at)


def audited(
    store_id: str,
    result: Audit,
    *,
    source: str,
    old: Pad | None = None,
    rule_map: RuleMap | None = None,
    counter: TokenCounter | None = None,
    agent_id: str | None = None,
    conversation_id: str | None = None,
    **detail: Any,
) -> None:
    """An audit's verdict on the rewrite of ``store_id``. ``old``: the version before, whose
    rules are counted for the share carried only when a rule was lost (else it is 1), looked
    up in ``counter``'s count cache when it has one; ``detail``: padtui's own attributes (a
    commit, a version number, ...)."""
    if not _active():
        return
    lost = [f for f in result.findings if f.code in RULE_LOSSES]
    memo = counter.store.rules if counter is not None and counter.store else None
    score, rules_before, rules_lost = _share_carried(old, lost, rule_map, memo)
    attributes: Attributes = {
        "findings.codes": sorted({str(f.code) for f in result.findings}),
        "findings.critical": len(result.critical),
        "rules.before": rules_before,
        "rules.lost": rules_lost,
        "tokens.before": result.tokens_before,
        "tokens.after": result.tokens_after,
        "claims.before": result.claims_before,
        "claims.after": result.claims_after,
        **detail,
    }
    explanation = _explained(f.message for f in lost)
    report_verdict(
        store_id,
        result.verdict,
        source=source,
        agent_id=agent_id,
        conversation_id=conversation_id,
        score=score,
        explanation=explanation,
        detail=attributes,
    )


def _share_carried(
    old: Pad | None, lost: Sequence[Finding], rule_map: RuleMap | None, memo: RuleMemo | None
) -> tuple[float | None, int | None, int | None]:
    """The share of the rules of ``old`` an audit carried (1 when no finding lost one; none
    when one was but ``old`` is not known), the rules of ``old`` (counted only then), and
    those lost."""
    if not lost:
        return 1.0, None, 0
    if old is None:
        return None, None, None
    before, gone = _rules_lost(old, lost, rule_map, memo)
    return ((before - gone) / before if before else None), before, gone


def _rules_lost(
    old: Pad, lost: Sequence[Finding], rule_map: RuleMap | None, memo: RuleMemo | None
) -> tuple[int, int]:
    """The rules of the version before, and those of its entries a finding says lost or
    weakened a rule (all of such an entry's rules count as lost)."""
    from padtui.core.rules.finder import find_rules

    rules = find_rules(old, rule_map, memo)
    index = {e.label: e.index for e in old.entries}
    hit = {index[label] for f in lost for label in f.entries if label in index}
    return len(rules), sum(1 for r in rules if r.entry in hit)


def planned(store_id: str, plan: Plan, *, source: str) -> None:
    """A trial compaction's verdict (``check``): the share of the unsealed rules the pass
    keeps, and those it would drop."""
    if not _active():
        return
    at_risk = plan.rules_at_risk
    dropped = [r for r in at_risk if r.dropped]
    score = 1 - len(dropped) / len(at_risk) if at_risk else 1.0
    detail: Attributes = {
        "trial": True,
        "refusal.code": str(plan.code) if plan.code is not None else None,
        "policy": str(plan.policy),
        "budget": plan.budget,
        "tokens.before": plan.tokens_total,
        "tokens.after": plan.tokens_after,
        "rules.at_risk": len(at_risk),
        "rules.lost": len(dropped),
    }
    lost = _explained(r.text for r in dropped)
    report_verdict(
        store_id, plan.verdict, source=source, score=score, explanation=lost, detail=detail
    )


def version_taken(insp: Inspection, version: SeenVersion, *, source: str) -> None:
    """A version the inspector or the fleet took in, with the audit of the rewrite that made
    it (the first version: its verdict is ``initial``, with no audit). Called on the screen's
    thread: the verdict is made in telemetry's own worker (counting the rules of the version
    before, when one was lost, takes a large pad's tens of milliseconds)."""
    if not _active():
        return
    held = insp.versions
    old = held[-2].pad if len(held) > 1 and held[-1] is version else None
    path, rule_map = insp.path, insp.rule_map
    _later(lambda: _version_verdict(path, version, old, rule_map, source))


def _version_verdict(
    path: str, version: SeenVersion, old: Pad | None, rule_map: RuleMap | None, source: str
) -> None:
    about: Attributes = {"version": version.number, "origin": version.origin}
    if version.audit is None:
        about["tokens.after"] = version.tokens
        report_verdict(path, "initial", source=source, detail=about)
        return
    audited(path, version.audit, source=source, old=old, rule_map=rule_map, **about)


_work: queue.Queue[Callable[[], None]] = queue.Queue(maxsize=MAX_PENDING)
_worker: threading.Thread | None = None


def _later(task: Callable[[], None]) -> None:
    """Run ``task`` in telemetry's worker thread (started on first use); when its queue is
    full, the verdict is dropped, never waited for."""
    global _worker
    with _guard:
        if _worker is None:
            _worker = threading.Thread(target=_working, name="padtui-verdicts", daemon=True)
            _worker.start()
    try:
        _work.put_nowait(task)
    except queue.Full:
        _tell("telemetry: verdicts dropped (more than 2,048 waiting)")


def _working() -> None:
    while True:
        task = _work.get()
        try:
            task()
        except Exception as exc:  # exporting never breaks padtui
            _tell(f"telemetry: {one_line(str(exc) or type(exc).__name__, 200)}")


def _worked_off(deadline: float) -> None:
    """Wait (until ``deadline``) for the verdicts the worker holds to be reported."""
    if _worker is None:
        return
    done = threading.Event()
    try:
        _work.put(done.set, timeout=max(deadline - time.monotonic(), 0.0))
    except queue.Full:
        return
    done.wait(max(deadline - time.monotonic(), 0.0))


def compaction_judged(
    session_id: str, transcript: str, verdict: Judgement, compaction: int, *, source: str = "claude"
) -> None:
    """A Claude Code compaction's verdict on the rules in force in the conversation."""
    if not _active():
        return
    rules = len(verdict.carried) + len(verdict.lost)
    report_verdict(
        transcript,
        verdict.verdict,
        source=source,
        score=len(verdict.carried) / rules if rules else 1.0,
        explanation=_explained(r.text for r in verdict.lost),
        conversation_id=session_id,
        compacted=True,
        detail={
            "compaction": compaction,
            "rules.before": rules,
            "rules.lost": len(verdict.lost),
            "rules.dropped": len(verdict.dropped),
            "rules.weakened": len(verdict.weakened),
        },
    )


def _explained(lost: Iterable[str]) -> str:
    return "; ".join(one_line(text, 300) for text in lost)[:MAX_EXPLANATION]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: python -m padtui.telemetry SPOOL (started by check and audit)\n")
        raise SystemExit(2)
    raise SystemExit(_send_spooled(sys.argv[1]))
