"""The report's measured points as fio users read them: the compared figure named (fio's steady
window, or the whole run), fio's whole-run figure beside it, the window's spread (sigma, lowest and
highest sample), completion latency (mean, p50, p99, p99.9), and IOPS against latency along a
queue-depth or numjobs sweep, as fio-plot draws it."""

from __future__ import annotations

from html import escape
from typing import Any

from app.shared.curves import Curve, Measured, latency_text, spread_texts

# Predicted in the palette's colour of its curve, measured in this one's (Okabe and Ito's
# vermillion and bluish green are read apart by every common colour-vision deficiency).
MEASURED_COLOURS = ("#D55E00", "#009E73", "#CC79A7", "#E69F00")


def measured_colour(i: int) -> str:
    return MEASURED_COLOURS[i % len(MEASURED_COLOURS)]


def doc_points(doc: dict[str, Any], cs: list[Curve]) -> list[tuple[str, str, str, Measured]]:
    """(section, point, metric, figures) of each measured point: validate's own list when the page
    has one (its workloads, with a plan or none), else the curves' measured points."""
    if doc.get("points") is not None:
        return [(p["section"], "", p["metric"], Measured(**p["measured"])) for p in doc["points"]]
    return [(c.name, f"{c.x_key}={c.x_text(p.x)}", c.metric, p.measured) for c in cs for p in c.points if p.measured]


def points_table(points: list[tuple[str, str, str, Measured]]) -> str:
    """A row per measured point: the figure compared, the whole run, the window's spread, latency."""
    head = ("section", "point", "compared", "fio's whole run", "steady window spread")
    head += ("latency mean", "p50", "p99", "p99.9")
    rows = []
    for section, point, metric, m in points:
        named, whole, spread = spread_texts(m, metric)
        cells = (
            section,
            point,
            named,
            whole or "the same (no steady window)",
            spread.removeprefix("window ").replace("the last window fio judged (not steady):", "not steady:"),
            latency_text(m.lat_mean_us),
            latency_text(m.lat_p50_us),
            latency_text(m.lat_p99_us),
            latency_text(m.lat_p99_9_us),
        )
        rows.append("<tr>" + "".join(f"<td>{escape(x)}</td>" for x in cells) + "</tr>")
    if not rows:
        return ""
    return (
        "<h2>Measured points: spread and latency</h2>"
        "<p>Compared: fio's steady-state window's mean where fio found the job steady, else the whole run's. "
        "Latency: fio's completion latency (clat) over the whole run.</p>"
        '<table class="points"><thead><tr>'
        + "".join(f"<th>{escape(h)}</th>" for h in head)
        + "</tr></thead><tbody>"
        + "\n".join(rows)
        + "</tbody></table>"
    )


def _ran(c: Curve) -> list[tuple[int, Measured]]:
    return [(p.x, p.measured) for p in c.points if p.measured is not None and p.measured.lat_mean_us is not None]


def latency_charts(cs: list[Curve], start: int) -> tuple[list[dict[str, Any]], str]:
    """IOPS against latency for each curve swept over iodepth or numjobs with two or more measured
    points: mean and p99 completion latency, one point per swept value."""
    charts: list[dict[str, Any]] = []
    html = ""
    for c in cs:
        ran = _ran(c)
        if c.x_key not in ("iodepth", "numjobs") or len(ran) < 2:
            continue
        chart_id = f"chart-{start + len(charts)}"
        sets = []
        for n, (what, key) in enumerate((("mean", "lat_mean_us"), ("p99", "lat_p99_us"))):
            sets.append(
                {
                    "label": f"{c.name}: {what} latency",
                    "kind": f"latency-{what}",
                    "type": "scatter",
                    "showLine": True,
                    "borderColor": measured_colour(n),
                    "backgroundColor": measured_colour(n),
                    "pointStyle": "circle" if n == 0 else "rect",
                    "pointRadius": 5,
                    "data": [
                        {"x": m.iops, "y": getattr(m, key) / 1000, "swept": f"{c.x_key}={x}"}
                        for x, m in ran
                        if getattr(m, key) is not None
                    ],
                }
            )
        charts.append({"id": chart_id, "kind": "latency", "x_key": c.x_key, "datasets": sets})
        html += (
            f"<h2>{escape(c.name)}: IOPS against latency, along {escape(c.x_key)}</h2>"
            f'<div class="chart"><canvas id="{chart_id}" role="img" '
            f'aria-label="{escape(c.name)} IOPS against latency"></canvas></div>'
        )
    return charts, html


LATENCY_SCRIPT = """
function latencyChart(c) {
  new Chart(document.getElementById(c.id), {
    data: { datasets: c.datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      scales: { x: { type: 'linear', beginAtZero: true, title: { display: true, text: 'IOPS' } },
                y: { beginAtZero: true, title: { display: true, text: 'completion latency (msec)' } } },
      plugins: { legend: { labels: { usePointStyle: true } },
                 tooltip: { callbacks: { label: (ctx) => ctx.dataset.label + ' at ' + ctx.raw.swept + ': '
                   + ctx.parsed.x.toLocaleString() + ' IOPS, ' + ctx.parsed.y.toLocaleString() + ' msec' } } }
    }
  });
}
"""


def notes_html(doc: dict[str, Any]) -> str:
    """What validate (or compare) said under its table (why a figure differs, what stopped), as on the terminal."""
    notes = doc.get("notes") or []
    if not notes:
        return ""
    said_by = escape(doc.get("said_by", "validate"))
    return f'<h2>What {said_by} said</h2><ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>"
