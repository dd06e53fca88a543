"""Sections of a job file that fio runs at once share the array.

Each section is first predicted alone. Its figure then needs a share of the array's time: the
figure over the smallest of the terms that describe a shared part (the disks, md's stripe
cache and thread, the parity CPU, the links and HBAs, a controller's cache). What bounds one
section only (its own queue depth or readahead, its rate cap, its CPU copy) is not shared.
While the shares of the sections that run together add up to no more than the whole, each
keeps its figure; past it, every section is slowed by the same factor, so the shares add up to
the whole: each section keeps its requests in flight, and a disk serving a queue serves each
section's requests in proportion to how many it has waiting, which is what its share alone
measured. Phases (a stonewall, wait_for) run one after another and never share.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from planners.models import Plan
from planners.perf.jobfile import JobFile, Phase
from planners.perf.jobtext import MOST, listed
from planners.perf.predict import Mode, PredictedTerm, WorkloadPrediction
from planners.perf.shaped import predict_shaped
from planners.perf.workloads import Workload
from planners.results import PlanResult

# Terms for parts of the machine every running section uses: their capacity is split.
SHARED = ("disks", "stripe cache", "md thread", "parity CPU", "link", "HBA", "write cache")
NAME = "sections at once"


def share_of_array(p: WorkloadPrediction) -> tuple[float, str]:
    """(share of the shared parts' capacity the section uses alone, the shared term that sets it)."""
    shared = [t for t in p.terms if t.name in SHARED]
    if not shared or p.mb_s <= 0:
        return 0.0, ""
    top = min(shared, key=lambda t: t.mb_s)
    return (p.mb_s / top.mb_s if top.mb_s > 0 else 0.0), top.name


def share(preds: Sequence[WorkloadPrediction], phases: Sequence[Phase]) -> list[WorkloadPrediction]:
    """`preds` (one per section, alone) with the sections of each phase sharing the array."""
    out = list(preds)
    where: dict[str, list[int]] = {}
    for i, p in enumerate(out):
        where.setdefault(p.workload, []).append(i)  # fio allows two sections of one name
    for phase in phases:
        members = [where[s].pop(0) for s in phase.sections if where.get(s)]
        if len(members) < 2:
            continue
        shares = {i: share_of_array(out[i]) for i in members}
        total = sum(s for s, _ in shares.values())
        if total <= 1.0:
            continue
        for i in members:
            p = out[i]
            others = listed([out[j].workload for j in islice((j for j in members if j != i), MOST)], len(members) - 1)
            mine, part = shares[i]
            note = (
                f"runs at once with {others}: alone it would use {mine:.0%} of the {part} ceiling, "
                f"together they ask {total:.0%}; each gets its share, {mine / total:.0%} here"
            )
            scale = 1.0 / total
            term = PredictedTerm(name=NAME, mb_s=p.mb_s * scale, iops=p.iops * scale, note=note)
            out[i] = p.model_copy(
                update={
                    "mb_s": term.mb_s,
                    "iops": term.iops,
                    "binding": NAME,
                    "runner_up": p.binding,
                    "headroom": total,
                    "terms": [term, *p.terms],
                    "mb_s_low": p.mb_s_low * scale,
                    "mb_s_high": p.mb_s_high * scale,
                }
            )
    return out


def flow_paced(
    preds: Sequence[WorkloadPrediction], phases: Sequence[Phase], workloads: Sequence[Workload]
) -> list[WorkloadPrediction]:
    """`preds` with the sections of a phase that carry fio's flow= paced to their weights.

    fio (flow.c) holds back a job whose share of the group's requests exceeds its share of the
    group's weights, so each job issues requests in proportion to its weight (a section's clones
    each carry it); each flow_id is a group of its own. One request of section i uses u_i / IOPS_i of the shared parts' time, u_i
    being the share it uses alone (share_of_array); the group runs as fast as those times allow
    in total, and no section faster than it runs alone.
    """
    out = list(preds)
    weight = {w.name: w.flow * w.numjobs for w in workloads if w.flow}
    group = {w.name: w.flow_id for w in workloads if w.flow}
    numjobs: dict[str, int] = {}
    for w in workloads:
        numjobs.setdefault(w.name, w.numjobs)
    # Each (phase, flow group)'s sections, gathered in one pass: a file of thousands of sections
    # would otherwise look each one up in every phase.
    phase_of: dict[str, list[int]] = {}
    for k, phase in enumerate(phases):
        for name in dict.fromkeys(phase.sections):
            phase_of.setdefault(name, []).append(k)
    buckets: dict[tuple[int, int], list[int]] = {}
    for i, p in enumerate(out):
        if p.workload in group:
            for k in phase_of.get(p.workload, []):
                buckets.setdefault((k, group[p.workload]), []).append(i)
    for key in sorted(buckets):
        members = buckets[key]
        if len(members) < 2:
            continue
        cost = sum(
            weight[out[i].workload] * share_of_array(out[i])[0] / out[i].iops for i in members if out[i].iops > 0
        )
        k = min([1 / cost if cost > 0 else float("inf")] + [out[i].iops / weight[out[i].workload] for i in members])
        for i in members:
            p = out[i]
            iops = k * weight[p.workload]
            if p.iops <= 0 or iops >= p.iops * (1 - 1e-9):
                continue
            scale = iops / p.iops
            first = members[:MOST]
            note = (
                f"flow={weight[p.workload] // max(1, numjobs.get(p.workload, 1))}: "
                f"fio keeps the requests of {listed([out[j].workload for j in first], len(members))} in the ratio "
                f"{listed([str(weight[out[j].workload]) for j in first], len(members), ':')}; "
                f"this one gets {iops:,.0f} IOPS"
            )
            term = PredictedTerm(name="flow", mb_s=p.mb_s * scale, iops=iops, note=note)
            out[i] = p.model_copy(
                update={
                    "mb_s": term.mb_s,
                    "iops": iops,
                    "binding": "flow",
                    "runner_up": p.binding,
                    "headroom": 1 / scale,
                    "terms": [term, *p.terms],
                    "mb_s_low": p.mb_s_low * scale,
                    "mb_s_high": p.mb_s_high * scale,
                }
            )
    return out


def below_rate_min(preds: Sequence[WorkloadPrediction], workloads: Sequence[Workload]) -> list[WorkloadPrediction]:
    """fio's rate_min: a job that cannot keep it is ended with an error; say so where the figure is below it."""
    floor = {w.name: (w.rate_min_bytes_s, w.numjobs) for w in workloads if w.rate_min_bytes_s}
    out = []
    for p in preds:
        if p.workload in floor:
            least, jobs = floor[p.workload]
            each = p.mb_s * 1e6 / jobs
            if each < least:
                p = p.model_copy(
                    update={
                        "shaping": [
                            *p.shaping,
                            (
                                f"rate_min {least:,} bytes/s: each job is predicted at {each:,.0f} bytes/s, below it, so fio "
                                "would end the job with an error"
                            ),
                        ]
                    }
                )
        out.append(p)
    return out


def predict_job_file(plan: Plan, result: PlanResult, job: JobFile, mode: Mode = "normal") -> list[WorkloadPrediction]:
    """Every section of a job file as fio runs them: alone, then sharing the array with those beside it
    (flow weights first, then the shared parts' capacity)."""
    alone = predict_shaped(plan, result, job.workloads, mode=mode)
    return below_rate_min(share(flow_paced(alone, job.phases, job.workloads), job.phases), job.workloads)
