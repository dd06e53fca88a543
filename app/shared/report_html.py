"""The scaling report as one HTML file a user can mail: the plan, a chart per section with the
predicted curve as a line, the measured points, the knee marked, and the table of every point.

The charts use Chart.js (MIT, vendored beside this module with its license, inlined into the
page): a 200 KB file with no dependencies of its own, kept up by an active project, that draws
on a canvas and so prints to PDF as it shows; the page needs no network to open.
"""

from __future__ import annotations

import json
from html import escape
from importlib.resources import files
from typing import Any

from app.shared.curves import Curve, curve_notes, figure, from_doc
from app.shared.report_points import (
    LATENCY_SCRIPT,
    doc_points,
    latency_charts,
    measured_colour,
    notes_html,
    points_table,
)

# Colour-blind-safe palette (Okabe and Ito): one colour per curve of a chart.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")


def chart_js() -> str:
    """The vendored Chart.js, without its source-map comment (the map is not shipped)."""
    text = files("app.shared").joinpath("vendor/chart.umd.min.js").read_text(encoding="utf-8")
    return "\n".join(ln for ln in text.splitlines() if not ln.startswith("//# sourceMappingURL"))


def _datasets(cs: list[Curve]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, c in enumerate(cs):
        colour = PALETTE[i % len(PALETTE)]
        name = c.label or c.section
        if not any(p.binding for p in c.points):
            # measured without a plan: no model's curve to draw
            out += _measured_and_knee(c, name, measured_colour(i))
            continue
        out.append(
            {
                "label": f"{name}: predicted",
                "kind": "predicted",
                "type": "line",
                "borderColor": colour,
                "backgroundColor": colour,
                "showLine": True,
                "borderWidth": 2,
                "pointStyle": ["crossRot" if p.outside else "circle" for p in c.points],
                "pointRadius": [6 if p.outside else 3 for p in c.points],
                "data": [{"x": p.x, "y": c.y(p)} for p in c.points],
            }
        )
        out += _measured_and_knee(c, name, measured_colour(i))
    return out


def _measured_and_knee(c: Curve, name: str, colour: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen = [p for p in c.points if p.measured is not None]
    if seen:
        out.append(
            {
                "label": f"{name}: measured",
                "kind": "measured",
                "type": "scatter",
                "borderColor": colour,
                "backgroundColor": colour,
                "pointStyle": "rectRot",
                "pointRadius": 6,
                "data": [{"x": p.x, "y": c.y(p, measured=True)} for p in seen],
            }
        )
    k = c.knee
    if k:
        out.append(
            {
                "label": f"{name}: knee ({k.knee_cause.split(':')[0]})",
                "kind": "knee",
                "type": "scatter",
                "borderColor": "#000000",
                "backgroundColor": "rgba(0,0,0,0)",
                "pointStyle": "triangle",
                "pointRadius": 11,
                "borderWidth": 2,
                # a measured-only curve's knee sits on what was measured
                "data": [{"x": k.x, "y": c.y(k) if k.binding else c.y(k, measured=True)}],
            }
        )
    return out


def _table(cs: list[Curve]) -> str:
    head = ("section", "point", "predicted", "measured", "diff", "CPU s/GB", "CPU s/1000 I/O", "limited by", "note")
    rows = []
    for c in cs:
        for p in c.points:
            m = p.measured
            mv = c.y(p, measured=True)
            pred = c.y(p)
            diff = f"{(mv - pred) / pred * 100:+.0f} %" if mv is not None and pred else ""
            note = "; ".join(
                x
                for x in (
                    f"knee: {p.knee_cause}" if p.knee else "",
                    "outside the model (under its chart, why)" if p.outside else "",
                    "" if m is None or m.status == "done" else m.status,
                )
                if x
            )
            cells = (
                c.name,
                f"{c.x_key}={c.x_text(p.x)}",
                f"{figure(pred, c.metric)} {c.metric}" if pred else "",
                f"{figure(mv, c.metric)} {c.metric}" if mv is not None else "",
                diff,
                f"{m.cpu_s_per_gb:.3f}" if m and m.cpu_s_per_gb is not None else "",
                f"{m.cpu_s_per_k_ios:.4f}" if m and m.cpu_s_per_k_ios is not None else "",
                p.binding,
                note,
            )
            cls = ' class="knee"' if p.knee else ""
            rows.append(f"<tr{cls}>" + "".join(f"<td>{escape(x)}</td>" for x in cells) + "</tr>")
    return (
        "<table><thead><tr>"
        + "".join(f"<th>{h}</th>" for h in head)
        + "</tr></thead><tbody>"
        + "\n".join(rows)
        + "</tbody></table>"
    )


CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 70em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.5em; }
.chart { position: relative; height: 22em; margin-bottom: 1em; break-inside: avoid; }
.chart.bars { height: 16em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border-bottom: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; white-space: nowrap; }
td:nth-child(9) { white-space: normal; }
td:first-child, td:nth-child(8), td:nth-child(9), th { text-align: left; }
tr.knee td { font-weight: bold; }
ul.notes li { margin: 0.2em 0; }
@media print { body { margin: 0; } .chart { height: 18em; } }
"""

SCRIPT = """
const charts = JSON.parse(document.getElementById('podplan-data').textContent);
for (const c of charts) {
  if (c.kind === 'latency') { latencyChart(c); continue; }
  if (c.kind === 'bar') {
    new Chart(document.getElementById(c.id), {
      type: 'bar', data: { labels: c.labels, datasets: c.datasets },
      options: { animation: false, responsive: true, maintainAspectRatio: false,
                 scales: { y: { beginAtZero: true, title: { display: true, text: c.metric } } } }
    });
    continue;
  }
  new Chart(document.getElementById(c.id), {
    data: { datasets: c.datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: {
        x: { type: 'logarithmic', title: { display: true, text: c.x_key },
             afterBuildTicks: (axis) => { axis.ticks = c.ticks.map((v) => ({ value: v })); },
             ticks: { autoSkip: false, callback: (v) => c.tick_text[c.ticks.indexOf(v)] } },
        y: { beginAtZero: true, title: { display: true, text: c.metric } }
      },
      plugins: { legend: { labels: { usePointStyle: true } },
                 tooltip: { callbacks: { label: (ctx) => ctx.dataset.label + ': ' + ctx.parsed.y.toLocaleString() } } }
    }
  });
}
window.addEventListener('beforeprint', () => { for (const id in Chart.instances) Chart.instances[id].resize(); });
"""


def _bar_charts(doc: dict[str, Any], start: int) -> tuple[list[dict[str, Any]], str]:
    """Measured beside predicted per workload (one chart per unit), and the per-disk baseline."""
    charts: list[dict[str, Any]] = []
    html = ""
    by_metric: dict[str, list[dict[str, Any]]] = {}
    for b in doc.get("bars", []):
        by_metric.setdefault(b["metric"], []).append(b)
    if by_metric:
        html += "<h2>Measured beside predicted</h2>"
    for metric, bars in by_metric.items():
        chart_id = f"chart-{start + len(charts)}"
        sets = [
            {
                "label": "measured",
                "kind": "measured",
                "type": "bar",
                "backgroundColor": PALETTE[0],
                "data": [b["measured"] for b in bars],
            }
        ]
        if any(b.get("predicted") is not None for b in bars):
            sets.append(
                {
                    "label": "predicted",
                    "kind": "predicted",
                    "type": "bar",
                    "backgroundColor": PALETTE[1],
                    "data": [b.get("predicted") for b in bars],
                }
            )
        charts.append(
            {"id": chart_id, "kind": "bar", "metric": metric, "labels": [b["workload"] for b in bars], "datasets": sets}
        )
        html += (
            f'<div class="chart bars"><canvas id="{chart_id}" role="img" aria-label="{escape(metric)}"></canvas></div>'
        )
    disks = doc.get("baseline", [])
    if disks:
        chart_id = f"chart-{start + len(charts)}"
        slow = [d for d in disks if d["slow"]]
        charts.append(
            {
                "id": chart_id,
                "kind": "bar",
                "metric": "outer MB/s",
                "labels": [d["device"] for d in disks],
                "datasets": [
                    {
                        "label": "sequential read, outer zone (MB/s); red: slow",
                        "kind": "baseline",
                        "type": "bar",
                        "data": [d["outer_mb_s"] for d in disks],
                        "backgroundColor": ["#D55E00" if d["slow"] else PALETTE[0] for d in disks],
                    }
                ],
            }
        )
        html += (
            f'<h2>Per-disk baseline (read-only)</h2><div class="chart bars"><canvas id="{chart_id}" '
            f'role="img" aria-label="per-disk baseline"></canvas></div><p>'
            + (
                escape(
                    "slow, more than 20 % below the median: "
                    + ", ".join(f"{d['device']} ({', '.join(d['slow'])})" for d in slow)
                )
                if slow
                else "no disk more than 20 % below the median"
            )
            + "</p>"
        )
    return charts, html


def script_json(value: Any) -> str:
    """JSON to put inside a <script> element. `<`, `>` and `&` only occur inside its strings, so
    they are written as \\u escapes, which JSON.parse reads back: a section named `<!--<script>`
    or `</script>` would otherwise end the element early or switch the parser into a state where
    it never ends, and the page would draw nothing."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def curves_intro(cs: list[Curve]) -> str:
    """How to read the charts: only what they draw (a measured-only page has no predicted line)."""
    said = []
    if any(p.binding for c in cs for p in c.points):
        outside = " (a cross marks a point outside the model)" if any(p.outside for c in cs for p in c.points) else ""
        said.append(f"Predicted: the line{outside}.")
    if any(p.measured for c in cs for p in c.points):
        said.append("Measured: diamonds, in a colour of their own.")
    if any(c.knee for c in cs):
        said.append("Knee: the triangle, past which the rest of the sweep gains under 10 %.")
    return f"<p>{' '.join(said)}</p>" if said else ""


def cost_html(doc: dict[str, Any]) -> str:
    """The plan's cost table (a row per figure its prices and watts give), or '' when the plan has none."""
    cost = doc.get("cost")
    if not cost:
        return ""
    rows = "".join(f"<tr><td>{escape(what)}</td><td>{escape(value)}</td></tr>" for what, value in cost["rows"])
    return f'<h2>{escape(cost["title"])}</h2><table class="cost"><tbody>{rows}</tbody></table>'


def _health_html(doc: dict[str, Any]) -> str:
    """A line per disk of validate --baseline's SMART read: its verdict, or why there is none."""
    lines = []
    for d in doc.get("health", []):
        if not d["smart"]:
            lines.append(f"{d['device']}: no SMART ({d['why_not']})")
            continue
        said = [] if d["passed"] is None else ["PASSED" if d["passed"] else "FAILED"]
        said += [f"{d['power_on_hours']:,} h"] if d["power_on_hours"] is not None else []
        said += [f"{d['temperature_c']} °C"] if d["temperature_c"] is not None else []
        lines.append(f"{d['device']}: " + ", ".join(said + d["failing"] + d["watch"]))
    if not lines:
        return ""
    return "<h2>SMART health</h2><ul>" + "".join(f"<li>{escape(x)}</li>" for x in lines) + "</ul>"


def render(doc: dict[str, Any]) -> str:
    """The page for a `curves_doc`."""
    title, summary, axes, cs = from_doc(doc)
    charts, sections = [], []
    by_chart: dict[tuple[str, str], list[Curve]] = {}
    for c in cs:
        by_chart.setdefault((c.section, c.metric), []).append(c)
    for n, ((section, metric), group_list) in enumerate(by_chart.items()):
        xs = sorted({p.x for c in group_list for p in c.points})
        chart_id = f"chart-{n}"
        charts.append(
            {
                "id": chart_id,
                "x_key": group_list[0].x_key,
                "metric": metric,
                "ticks": xs,
                "tick_text": [group_list[0].x_text(x) for x in xs],
                "datasets": _datasets(group_list),
            }
        )
        notes = "".join(f"<li>{escape(x.lstrip('* '))}</li>" for x in curve_notes(group_list))
        sections.append(
            f"<h2>{escape(section)} ({escape(metric)})</h2>"
            f'<div class="chart"><canvas id="{chart_id}" role="img" '
            f'aria-label="{escape(section)} scaling"></canvas></div>'
            + (f'<ul class="notes">{notes}</ul>' if notes else "")
        )
    bar_charts, bars_html = _bar_charts(doc, len(charts))
    charts += bar_charts
    lat_charts, lat_html = latency_charts(cs, len(charts))
    charts += lat_charts
    swept = ", ".join(f"{a['key']} = {', '.join(str(v) for v in a['values'])}" for a in axes)
    data = script_json(charts)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>{CSS}</style></head><body>
<h1>{escape(title)}</h1>
<ul>{"".join(f"<li>{escape(s)}</li>" for s in summary)}{f"<li>swept: {escape(swept)}</li>" if axes else ""}</ul>
{cost_html(doc)}{bars_html}{notes_html(doc)}{_health_html(doc)}
{curves_intro(cs) + "".join(sections) + lat_html + "<h2>Every point</h2>" + _table(cs) if cs else ""}
{points_table(doc_points(doc, cs))}
<script>{chart_js()}</script>
<script type="application/json" id="podplan-data">{data}</script>
<script>{LATENCY_SCRIPT}{SCRIPT}</script>
</body></html>
"""
