"""The reconciliation: what the chaos run left must equal the fault-free run's, and
nothing may be missing, duplicated, leaked across tenants or dead-lettered wrongly.

Tenants whose judge call failed for good (an llm_calls row with an error: a malformed
reply, retries used up) or that have an episode ended ``failed`` are *excused* from the
fact comparison, because the seed lets such a failure change the result (judge failure:
every verdict `neither`; an episode past its retry cap: the tenant goes on without it).
They are listed, with whether they match anyway; every other tenant must match exactly.
A failed extraction or a record dead-lettered after it is no excuse: under the retry cap
the episode runs again in its place (DESIGN "Time", rule 2).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from chaos.poison import Poison
from chaos.scenario import INJECTED, Scenario
from chaos.state import DbState, DeadLetterSeen, Tenant
from streams.demo.report import terminal_state


@dataclass
class Check:
    name: str
    expected: str
    found: str
    ok: bool | None  # None: information only


@dataclass
class Reconciliation:
    checks: list[Check] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok is not False for c in self.checks)

    def add(self, name: str, expected: str, found: str, ok: bool | None) -> None:
        self.checks.append(Check(name, expected, found, ok))


def check_ledger(rec: Reconciliation, label: str, scenario: Scenario, db: DbState,
                 cap: int) -> None:  # fmt: skip
    wanted = [(e.dataset, e.project_id, e.episode_id) for t in scenario.tenants for e in t.episodes]
    missing = [k for k in wanted if k not in db.ledger]
    unfinished = [k for k in wanted if k in db.ledger and not terminal_state(db.ledger[k], cap)]
    outcome: Counter[str] = Counter()
    reasonless = []
    for k in wanted:
        row = db.ledger.get(k)
        if row is None:
            continue
        sides = (row["status"], row["semantic_status"])
        outcome[
            "failed"
            if "failed" in sides
            else "skipped"
            if "skipped" in sides
            else row["semantic_status"]
        ] += 1
        if row["status"] == "failed" and not row["last_error"]:
            reasonless.append(k)
        if row["semantic_status"] == "failed" and not row["semantic_last_error"]:
            reasonless.append(k)
    found = (
        f"done {outcome['done']}, skipped {outcome['skipped']}, failed {outcome['failed']},"
        f" missing {len(missing)}, unfinished {len(unfinished)}"
    )
    rec.add(
        f"{label}: every published episode done/skipped/failed",
        f"{len(wanted)} terminal, 0 missing",
        found,
        not missing and not unfinished,
    )
    rec.add(
        f"{label}: every failed episode carries its reason",
        "0 without a reason",
        f"{len(reasonless)} without a reason",
        not reasonless,
    )
    for k in (missing + unfinished)[:10]:
        row = db.ledger.get(k)
        state = "missing" if row is None else f"{row['status']}/{row['semantic_status']}"
        rec.details.append(f"{label}: episode {':'.join(k)} {state}")


def excuses(chaos: DbState) -> dict[Tenant, list[str]]:
    """Tenants whose result the seed lets a model failure change, and why: a judge call
    that failed for good (every verdict `neither`), or an episode that ended `failed`.
    Extraction and embedding failures are not excused: their episode is retried in its
    place (in the extraction stage, or after its record's dead letter)."""
    out: dict[Tenant, list[str]] = {}
    for tenant, failures in chaos.model_failures.items():
        for episode_id, stage, error in failures:
            if stage == "judge":
                out.setdefault(tenant, []).append(f"{episode_id} {stage}: {error}")
    for (ds, proj, ep), row in chaos.ledger.items():
        if row["semantic_status"] == "failed":
            out.setdefault((ds, proj), []).append(f"{ep} ended failed")
    return out


def check_facts(rec: Reconciliation, scenario: Scenario, base: DbState, chaos: DbState) -> None:
    excused = excuses(chaos)
    tenants = [(t.dataset, t.project_id) for t in scenario.tenants]
    equal: list[Tenant] = []
    differ: list[Tenant] = []
    excused_equal: list[Tenant] = []
    excused_differ: list[Tenant] = []
    for t in tenants:
        same = base.facts.get(t, Counter()) == chaos.facts.get(t, Counter())
        if t in excused:
            (excused_equal if same else excused_differ).append(t)
        else:
            (equal if same else differ).append(t)
    rows = sum(sum(c.values()) for c in chaos.facts.values())
    rec.add(
        "fact table (live + history) = fault-free run",
        f"{len(tenants) - len(excused)} unexcused tenants equal",
        f"{len(equal)} equal, {len(differ)} differ ({rows} rows)",
        not differ,
    )
    rec.add(
        "  excused: judge calls failed past retries, episodes ended failed",
        "listed",
        f"{len(excused)} tenants ({len(excused_equal)} equal anyway, {len(excused_differ)} differ)",
        None,
    )
    for t in excused_differ + excused_equal:
        verdict = "equal" if t in excused_equal else "DIFFERS"
        rec.details.append(f"excused {':'.join(t)} ({verdict}): " + "; ".join(excused[t][:3]))
    for t in differ[:10]:
        b, c = base.facts.get(t, Counter()), chaos.facts.get(t, Counter())
        rec.details.append(
            f"MISMATCH {':'.join(t)}: only fault-free {list((b - c).elements())[:3]}"
            f" / only chaos {list((c - b).elements())[:3]}"
        )


def check_outcomes(rec: Reconciliation, scenario: Scenario, base: DbState,
                   chaos: DbState) -> None:  # fmt: skip
    """Same extraction and summary outcome per episode. A summary that ended `failed`
    after its model calls failed (and the sweep's retries ran out) is listed, not a
    failure: the summary has no effect on the facts."""
    excused = excuses(chaos)
    diff: list[str] = []
    summaries: list[str] = []
    for t in scenario.tenants:
        for e in t.episodes:
            k = (e.dataset, e.project_id, e.episode_id)
            b, c = base.ledger.get(k), chaos.ledger.get(k)
            if b is None or c is None:
                continue  # the ledger check reports it
            if (
                b["semantic_status"] != c["semantic_status"]
                and (e.dataset, e.project_id) not in excused
            ):
                diff.append(
                    f"{e.episode_id}: extraction {b['semantic_status']} in the fault-free"
                    f" run, {c['semantic_status']} here"
                )
            if b["status"] != c["status"]:
                line = f"{e.episode_id}: summary {b['status']} / {c['status']}: {c['last_error']}"
                (summaries if c["status"] == "failed" and c["last_error"] else diff).append(line)
    rec.add(
        "episode outcomes = fault-free run", "0 differ (unexcused)", f"{len(diff)} differ", not diff
    )
    if summaries:
        rec.add("  summaries failed past retries", "listed", str(len(summaries)), None)
    rec.details += [f"OUTCOME {line}"[:300] for line in diff[:10]]
    rec.details += [f"summary failed {line}"[:300] for line in summaries[:10]]


def check_integrity(rec: Reconciliation, scenario: Scenario, db: DbState) -> None:
    rec.add(
        "no duplicate current (subject, predicate, object) per tenant",
        "0",
        str(len(db.live_duplicates)),
        not db.live_duplicates,
    )
    canaries = scenario.canaries
    leaks = []
    for tenant, texts in db.texts.items():
        own = f"{tenant[0]}:{tenant[1]}"
        foreign = [c for k, c in canaries.items() if k != own]
        blob = "\n".join(texts)
        leaks += [(own, c) for c in foreign if c in blob]
    rec.add("no row of one tenant in another (canaries)", "0", str(len(leaks)), not leaks)
    for own, c in leaks[:10]:
        rec.details.append(f"LEAK: {c} found in rows of {own}")
    injected = [
        (t, n)
        for t, texts in db.texts.items()
        for n, _ in INJECTED
        for line in texts
        if line.startswith(f"{n} lives in")
    ]
    rec.add("injected claims stored as facts", "0", str(len(injected)), not injected)


def check_dead_letters(rec: Reconciliation, label: str, poison: list[Poison],
                       seen: list[DeadLetterSeen]) -> None:  # fmt: skip
    expected = {(s, p.fingerprint): p for p in poison for s in p.stages()}
    found = Counter((d.stage, d.fingerprint) for d in seen)
    missing = [k for k in expected if k not in found]
    # A good record dead-lettered because its model call failed past the provider's
    # retries (ModelCallFailed is not transient to the runtime): listed, not poison; its
    # episode must still have ended (the gate re-runs it once its claim goes stale).
    model = [
        d
        for d in seen
        if (d.stage, d.fingerprint) not in expected
        and d.exception == "ModelCallFailed"
        and d.episode is not None
    ]
    unexpected = [d for d in seen if (d.stage, d.fingerprint) not in expected and d not in model]
    duplicated = [k for k, n in found.items() if n > 1 and k in expected]
    wrong = [
        d
        for d in seen
        if (d.stage, d.fingerprint) in expected
        and d.reason != expected[(d.stage, d.fingerprint)].reason
    ]
    reasons = Counter(d.reason for d in seen)
    by_reason = ", ".join(f"{r} {n}" for r, n in sorted(reasons.items()))
    rec.add(f"{label}: DLQs hold exactly the poison records, each with its reason",
            f"{len(expected)} dead letters", f"{len(seen)} ({by_reason}); missing {len(missing)},"
            f" unexpected {len(unexpected)}, duplicated {len(duplicated)},"
            f" wrong reason {len(wrong)}",
            not (missing or unexpected or duplicated or wrong))  # fmt: skip
    if model:
        rec.add(
            f"{label}:   + good records dead-lettered after model calls failed past retries",
            "listed",
            f"{len(model)}: " + ", ".join(f"{d.episode} ({d.stage})" for d in model[:8]),
            None,
        )
    for stage, fp in missing[:10]:
        rec.details.append(f"{label}: MISSING dead letter {expected[(stage, fp)].name} in {stage}")
    for d in unexpected[:10]:
        rec.details.append(
            f"{label}: UNEXPECTED dead letter in {d.stage} from {d.original}: {d.reason}"
        )
    for stage, fp in duplicated[:10]:
        rec.details.append(
            f"{label}: DUPLICATED dead letter {expected[(stage, fp)].name} in {stage}"
        )
    for d in wrong[:10]:
        rec.details.append(f"{label}: wrong reason in {d.stage}: {d.reason}")
