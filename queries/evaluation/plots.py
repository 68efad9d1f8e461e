"""The evaluation pages' plots, drawn here as SVG: no script, so they hold under the portal's
Content-Security-Policy; colours come from classes (static/css/app.css), so they follow the
theme; a viewBox lets them shrink to a phone's width."""

from __future__ import annotations

import math

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from queries.evaluation.metrics import HEADLINE
from queries.pipeline import stages

WIDTH = 640
LABEL_WIDTH = 230
BAR_HEIGHT = 16
ROW_GAP = 10
PLOT_WIDTH = WIDTH - LABEL_WIDTH - 60


def _svg(height: int, title: str, body: list[str], plot_id: str) -> SafeString:
    return mark_safe(
        f'<svg class="plot" id="{plot_id}" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-labelledby="{plot_id}-title" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{plot_id}-title">{escape(title)}</title>{"".join(body)}</svg>'
    )


def _text(x: float, y: float, text: str, cls: str = "plot-label", anchor: str = "start") -> str:
    return (
        f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{escape(text)}</text>'
    )


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}" if value in (0, 1) else f"{value:.1%}"


def metric_bars(series: list[tuple[str, dict]], plot_id: str = "plot-metrics") -> SafeString:
    """Return horizontal bars of the headline metrics (0 to 100 %), one bar per series (an
    evaluation's headline), side by side per metric."""
    rows = [(key, label) for key, label in HEADLINE if any(h.get(key) for _, h in series)]
    group = len(series) * BAR_HEIGHT + ROW_GAP
    height = max(len(rows), 1) * group + 30
    body = []
    for row, (key, label) in enumerate(rows):
        top = row * group + 8
        body.append(
            _text(LABEL_WIDTH - 8, top + BAR_HEIGHT * len(series) / 2 + 4, label, anchor="end")
        )
        for index, (name, headline) in enumerate(series):
            value = (headline.get(key) or {}).get("share")
            y = top + index * BAR_HEIGHT
            width = PLOT_WIDTH * (value or 0)
            body.append(
                f'<rect class="plot-bar plot-series-{index}" x="{LABEL_WIDTH}" y="{y}" '
                f'width="{width:.1f}" height="{BAR_HEIGHT - 3}"><title>{escape(name)}: '
                f"{escape(label)} {_percent(value)}</title></rect>"
            )
            body.append(
                _text(LABEL_WIDTH + width + 4, y + BAR_HEIGHT - 5, _percent(value), "plot-value")
            )
    axis_y = height - 18
    body.append(
        f'<line class="plot-axis" x1="{LABEL_WIDTH}" y1="{axis_y}" x2="{LABEL_WIDTH + PLOT_WIDTH}" y2="{axis_y}"/>'
    )
    for tick in (0, 0.5, 1):
        x = LABEL_WIDTH + PLOT_WIDTH * tick
        body.append(_text(x, axis_y + 14, f"{tick:.0%}", "plot-tick", "middle"))
    if len(series) > 1:
        # A legend: which colour is which evaluation.
        for index, (name, _) in enumerate(series):
            y, x = axis_y + 4, 8 + index * 90
            body.append(
                f'<rect class="plot-key plot-key-{index}" x="{x}" y="{y}" width="10" height="10"/>'
            )
            body.append(_text(x + 14, y + 9, name, "plot-tick"))
    return _svg(height, "Headline metrics", body, plot_id)


def _log_x(ms: float, top: float) -> float:
    """Return a millisecond value's x on the log scale from 1 ms to `top`."""
    return LABEL_WIDTH + PLOT_WIDTH * math.log10(max(ms, 1.0)) / math.log10(max(top, 10.0))


def latency_strips(rows: list[dict], latency: dict, plot_id: str = "plot-latency") -> SafeString:
    """Return each stage's milliseconds per question as dots on one line, with its p50 and p95
    marked, on a log scale shared by the stages (a slow first run must not squash the rest)."""
    measured = [stage for stage in stages.STAGES if stage in latency]
    values = [ms for row in rows for ms in (row.get("stage_ms") or {}).values()]
    top = max(values, default=10.0)
    height = max(len(measured), 1) * (BAR_HEIGHT + ROW_GAP) + 34
    body = []
    for row, stage in enumerate(measured):
        y = row * (BAR_HEIGHT + ROW_GAP) + 8 + BAR_HEIGHT / 2
        body.append(_text(LABEL_WIDTH - 8, y + 4, stage, anchor="end"))
        body.append(
            f'<line class="plot-track" x1="{LABEL_WIDTH}" y1="{y}" x2="{LABEL_WIDTH + PLOT_WIDTH}" y2="{y}"/>'
        )
        for values_of in rows:
            ms = (values_of.get("stage_ms") or {}).get(stage)
            if ms is not None:
                body.append(f'<circle class="plot-dot" cx="{_log_x(ms, top):.1f}" cy="{y}" r="3"/>')
        for mark in ("p50", "p95"):
            x = _log_x(latency[stage][mark], top)
            body.append(
                f'<line class="plot-{mark}" x1="{x:.1f}" y1="{y - 8}" x2="{x:.1f}" y2="{y + 8}">'
                f"<title>{stage} {mark} {latency[stage][mark]} ms</title></line>"
            )
        p50, p95 = latency[stage]["p50"], latency[stage]["p95"]
        body.append(_text(WIDTH - 2, y + 4, f"{p50:.0f}/{p95:.0f}", "plot-value", "end"))
    axis_y = height - 18
    body.append(
        f'<line class="plot-axis" x1="{LABEL_WIDTH}" y1="{axis_y}" x2="{LABEL_WIDTH + PLOT_WIDTH}" y2="{axis_y}"/>'
    )
    tick = 1.0
    while tick <= top:
        label = f"{tick:.0f} ms" if tick < 1000 else f"{tick / 1000:.0f} s"
        body.append(_text(_log_x(tick, top), axis_y + 14, label, "plot-tick", "middle"))
        tick *= 10
    return _svg(
        height, "Milliseconds per stage (log scale): each question, p50 and p95", body, plot_id
    )


def verdict_bar(verdicts: dict[str, int], plot_id: str) -> SafeString:
    """Return one stacked bar of the verdicts (verified, unverified, not found)."""
    total = sum(verdicts.values()) or 1
    body, x = [], 0.0
    for verdict, count in verdicts.items():
        width = WIDTH * count / total
        if count:
            body.append(
                f'<rect class="plot-verdict-{verdict}" x="{x:.1f}" y="0" width="{width:.1f}" height="22">'
                f"<title>{verdict} {count}</title></rect>"
            )
            if width > 60:
                body.append(_text(x + 6, 15, f"{verdict} {count}", "plot-inbar"))
        x += width
    return _svg(24, "Verdicts", body, plot_id)
