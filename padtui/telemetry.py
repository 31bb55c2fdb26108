"""Verdicts into the team's OpenTelemetry (SPEC §11; docs/observability.md has the attributes).

The faces call the verdict functions below (``audited``, ``planned``, ``version_taken``,
``compaction_judged``, ``report_verdict``); each is a no-op costing one test unless
``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) is set and the
``otel`` extra installed. Only then is ``opentelemetry`` imported, configured by the standard
``OTEL_*`` variables alone:

- in a long-lived process (the TUI, the MCP server) and a hook, in a thread of its own, set
  up at the first verdict (those reported meanwhile wait for it, bounded);
- for ``check`` and ``audit``, in a sender process started as the command starts
  (``prepare``), on another core beside the command's work; the command hands it each
  verdict as a line of JSON.

Either way spans wait in the SDK's bounded queue (``BatchSpanProcessor``) and leave from its
thread: the screen and a hook only add to the queue. At exit (``finish``) what is queued is
sent, bounded by the exporter's timeout (``OTEL_EXPORTER_OTLP_TIMEOUT``); a failure to send is
one line on standard error (or the TUI's notice), never a traceback, and never an exit code.

A face module, not core: it does I/O of its own (a network exporter, a thread, a hook at
exit), which the core never does.
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
_sender: subprocess.Popen[bytes] | None = None  # (see prepare)
_handed = 0  # verdicts handed to the sender
_pending: list[_Verdict] = []  # reported while the set-up runs (MAX_PENDING at most)
_wanted: bool | None = None
_problem: str | None = None
_told = False
_notice: Callable[[str], None] | None = None
MAX_PENDING = 2048
SENDER_MARGIN = 0.5  # seconds (see _configured)


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
    """For a short-lived command that will report a verdict, called as it starts: with an
    endpoint set, a sender process (``python -m padtui.telemetry``) is started, which
    imports the SDK and exports what this process hands it, on another core beside the
    command's work (importing the SDK and its HTTP stack here would cost the command more
    than the work of a large audit's last tenth). Nothing is imported here."""
    global _sender, _decided
    with _guard:
        if _decided or _sender is not None or not wanted():
            return
        try:
            _sender = subprocess.Popen(
                [sys.executable, "-m", "padtui.telemetry"],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,  # (the terminal's ^C is the command's, not its)
            )
        except OSError as exc:
            _tell(f"telemetry off: the sender did not start ({exc.strerror or exc})")
            _decided = True
            return
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
    """Whether verdicts are exported (waiting for the set-up, when one is under way)."""
    prepare()
    thread = _setting_up
    if thread is not None:
        thread.join()
    return _exporting is not None


def _configured(margin: float = 0.0) -> _Exporting | None:
    """The export as the environment asks for it (None: none asked for, or no SDK);
    ``margin``: seconds the exporter's timeout leaves to the sender process to say how it
    went before the command stops waiting for it."""
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
    timeout = exporter_timeout()
    if margin:
        exporter = otlp.OTLPSpanExporter(timeout=max(timeout - margin, timeout / 2))
    else:
        exporter = otlp.OTLPSpanExporter()
    return _install(exporter, timeout, endpoint)


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
    global _told
    timeout = exporter_timeout()
    deadline = time.monotonic() + timeout + 0.2
    _worked_off(deadline)
    if _sender is not None:
        _sender_done(_sender, deadline)
    thread = _setting_up
    if thread is not None:
        thread.join(max(deadline - time.monotonic(), 0.0))
        if thread.is_alive():
            _tell(f"telemetry not set up within {timeout:g} s: nothing sent")
    exporting = _exporting
    if exporting is not None:
        _shut_down(exporting, deadline)
    if _problem is not None and not _told:
        _told = True
        try:
            sys.stderr.write(f"padtui: {_problem}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


def _sender_done(sender: subprocess.Popen[bytes], deadline: float) -> None:
    """Close the sender's input (it sends what it holds and ends), wait for it until
    ``deadline``, and tell the first line it had to say."""
    global _sender, _handed
    _sender = None
    if not _handed:  # (nothing to send: a command that ended on bad input)
        sender.kill()
        sender.communicate()
        return
    _handed = 0
    try:
        _out, err = sender.communicate(timeout=max(deadline - time.monotonic(), 0.0))
    except subprocess.TimeoutExpired:
        sender.kill()
        sender.communicate()
        _tell(f"telemetry not all sent within {exporter_timeout():g} s: the rest is dropped")
        return
    except (OSError, ValueError) as exc:
        _tell(f"telemetry: the sender failed ({one_line(str(exc), 160)})")
        return
    said = [line for line in err.decode("utf-8", "replace").splitlines() if line]
    told = [line for line in said if line.startswith("padtui: ")]
    if told:
        _tell(told[0].removeprefix("padtui: "))
    elif sender.returncode:
        _tell(f"telemetry: the sender failed ({one_line(said[-1] if said else '', 160)})")


def _send_from_standard_input() -> int:
    """The sender process: each line of standard input a verdict, exported as the set-up
    in process does; at the end, what is queued is sent within the exporter's timeout and a
    problem is one line on standard error (read by the command that started it)."""
    global _exporting, _decided
    exporting = _exporting = _configured(margin=SENDER_MARGIN)
    _decided = True
    for line in sys.stdin.buffer:
        if exporting is None:
            continue  # (read to the end all the same: the command's writes never block)
        try:
            got = json.loads(line)
            _span(exporting, _Verdict(int(got["at"]), got["attributes"], got["event"]))
        except (ValueError, KeyError, TypeError) as exc:
            _tell(f"telemetry: a verdict not read ({one_line(str(exc), 120)})")
    finish()
    return 0


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
    """Send what is queued and forget the set-up: the next verdict looks at the environment
    again."""
    global _exporting, _decided, _setting_up, _sender, _wanted, _problem, _told
    _worked_off(time.monotonic() + 10.0)
    if _sender is not None:
        _sender_done(_sender, time.monotonic() + exporter_timeout() + 0.2)
    thread = _setting_up
    if thread is not None:
        thread.join()
    exporting = _exporting
    if exporting is not None:
        _shut_down(exporting, time.monotonic() + exporting.timeout + 0.2)
    with _guard:
        _exporting, _decided, _setting_up, _sender, _wanted = None, False, None, None, None
        _problem, _told = None, False
        _pending.clear()


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
        if agent_id:
            attributes["gen_ai.agent.id"] = agent_id
        if conversation_id:
            attributes["gen_ai.conversation.id"] = conversation_id
        if compacted is not None:
            attributes["gen_ai.conversation.compacted"] = compacted
        attributes.update({f"padtui.{k}": v for k, v in (detail or {}).items() if v is not None})
        made = _Verdict(time.time_ns(), attributes, _evaluation(verdict, score, explanation))
        if _sender is not None:
            _hand_over(_sender, made)
            return
        with _guard:
            exporting = _exporting
            if exporting is None:  # (the set-up under way sends it once done)
                if not _decided and len(_pending) < MAX_PENDING:
                    _pending.append(made)
                    _begin()
                return
        _span(exporting, made)
    except Exception as exc:  # exporting never breaks padtui
        _tell(f"telemetry: {one_line(str(exc) or type(exc).__name__, 200)}")


def _hand_over(sender: subprocess.Popen[bytes], verdict: _Verdict) -> None:
    """One verdict to the sender process, as a line of JSON."""
    global _handed
    line = json.dumps(verdict._asdict(), ensure_ascii=True, default=str) + "\n"
    try:
        with _guard:
            _handed += 1
            assert sender.stdin is not None
            sender.stdin.write(line.encode("ascii"))
            sender.stdin.flush()
    except (OSError, ValueError):
        _tell("telemetry not sent: the sender process ended")


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
    score: float | None = 1.0
    rules_before = rules_lost = None
    if lost:
        score = None
        if old is not None:
            memo = counter.store.rules if counter is not None and counter.store else None
            rules_before, rules_lost = _rules_lost(old, lost, rule_map, memo)
            if rules_before:
                score = (rules_before - rules_lost) / rules_before
    attributes: Attributes = {
        "findings.codes": sorted({str(f.code) for f in result.findings}),
        "findings.critical": len(result.critical),
        "rules.before": rules_before,
        "rules.lost": rules_lost if lost else 0,
        "tokens.before": result.tokens_before,
        "tokens.after": result.tokens_after,
        "claims.before": result.claims_before,
        "claims.after": result.claims_after,
        **detail,
    }
    report_verdict(
        store_id,
        result.verdict,
        source=source,
        score=score,
        explanation=_explained(f.message for f in lost),
        agent_id=agent_id,
        conversation_id=conversation_id,
        detail=attributes,
    )


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
    report_verdict(
        store_id,
        plan.verdict,
        source=source,
        score=score,
        explanation=_explained(r.text for r in dropped),
        detail=detail,
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
    raise SystemExit(_send_from_standard_input())
