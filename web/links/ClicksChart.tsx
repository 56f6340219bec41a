import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

type Point = { day: string; count: number };

/** A day (seconds at UTC midnight) as "Nov 22": the series is in UTC days, so is the label. */
const dayLabel = (sec: number) => new Date(sec * 1000).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });

/**
 * The x-axis ticks: counted back from the last point (today) in even steps, so today always
 * has its label; uPlot's own time ticks fall on round dates and often skip it. About one
 * label per 70 px.
 */
export function dayTicks(xs: number[], width: number) {
  if (!xs.length) return [];
  const room = Math.max(2, Math.floor(width / 70));
  const step = Math.max(1, Math.ceil(xs.length / room));
  const ticks: number[] = [];
  for (let i = xs.length - 1; i >= 0; i -= step) ticks.unshift(xs[i]!);
  return ticks;
}

function cssVar(name: string, fallback: string) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/**
 * Clicks per day as a small uPlot line chart. The chart is decorative for assistive
 * technology: the same numbers are in the table next to it.
 */
export function ClicksChart({ series }: { series: Point[] }) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = series.map((p) => Date.parse(`${p.day}T00:00:00Z`) / 1000);
    const ys = series.map((p) => p.count);
    const stroke = cssVar("--primary", "#4338ca");
    const text = cssVar("--muted", "#5b6170");
    const grid = cssVar("--border", "#d9dce5");
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const plot = new uPlot(
      {
        width: Math.max(240, el.clientWidth),
        height: 180,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        // Room on the right for today's label, which sits on the last point.
        padding: [12, 28, 0, 0],
        axes: [
          { ...axis, splits: (u) => dayTicks(xs, u.bbox.width / devicePixelRatio), values: (_u, ticks) => ticks.map(dayLabel) },
          { ...axis, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000, 10000] },
        ],
        series: [{}, { label: "Clicks", stroke, width: 2, fill: `${stroke}22`, points: { show: series.length <= 31 } }],
      },
      [xs, ys],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(240, el.clientWidth), height: 180 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series]);

  return <div ref={box} className="clicks-chart" aria-hidden="true" />;
}
