/**
 * `bench/results/latest.svg`, written as plain SVG (no charting dependency):
 * a bar per compared row on a log axis centred on 1 (the baseline) with its
 * goal marked, a bar per absolute-goal row (memory) with its goal line, and
 * the growth curve (time on log axes with a line of linear growth, peak
 * memory against the memory goal). Pure: results in, SVG text out.
 *
 * @module
 */
import type { CaseResult, GrowthPoint } from "./_case.ts";
import { type BenchResults, formatNumber } from "./_results.ts";

const WIDTH = 980;
const LABEL = 230;
const PLOT = 520;
const ROW = 22;
const PAD = 16;
/** The memory goal drawn on the growth curve's memory chart, in MiB. */
const MEMORY_GOAL_MIB = 64;
const COLORS = { met: "#2e7d32", missed: "#c62828", none: "#607d8b", skipped: "#bdbdbd" };
const SMALL = { "font-size": 10 };

type Attributes = Record<string, string | number>;

/** `text` safe inside an SVG text node or attribute value. */
export function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** One element: numbers rounded to 0.1, values escaped; a body makes it a text element. */
function el(name: string, attributes: Attributes, body?: string): string {
  const attrs = Object.entries(attributes).map(([key, value]) =>
    ` ${key}="${typeof value === "number" ? Math.round(value * 10) / 10 : escapeXml(value)}"`
  ).join("");
  return body === undefined
    ? `<${name}${attrs}/>`
    : `<${name}${attrs}>${escapeXml(body)}</${name}>`;
}

const text = (x: number, y: number, body: string, attributes: Attributes = {}): string =>
  el("text", { x, y, ...attributes }, body);

const line = (x1: number, y1: number, x2: number, y2: number, attributes: Attributes): string =>
  el("line", { x1, y1, x2, y2, ...attributes });

const goalMark = (x: number, y: number): string =>
  line(x, y + 1, x, y + ROW - 1, { stroke: "#000", "stroke-width": 2, "stroke-dasharray": "3,2" });

function color(row: CaseResult): string {
  if (row.skipped !== undefined) return COLORS.skipped;
  return row.met === null ? COLORS.none : row.met ? COLORS.met : COLORS.missed;
}

/** A log scale mapping [lo, hi] onto [a, b] (values outside are clamped). */
function logScale(lo: number, hi: number, a: number, b: number): (v: number) => number {
  const l = Math.log(lo), h = Math.log(hi);
  return (v) => a + ((Math.log(Math.min(hi, Math.max(lo, v))) - l) / (h - l)) * (b - a);
}

/** 1, 2 and 5 times the powers of ten within [lo, hi], for the ticks of a log axis. */
export function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = Number((m * 10 ** e).toPrecision(2));
      if (v >= lo && v <= hi) ticks.push(v);
    }
  }
  return ticks;
}

const sizeLabel = (bytes: number): string =>
  bytes >= 2 ** 30
    ? `${bytes / 2 ** 30}G`
    : bytes >= 2 ** 20
    ? `${bytes / 2 ** 20}M`
    : `${bytes / 1024}K`;

/** The ratio panel: one diverging bar per row, from 1 to its ratio. */
function ratioPanel(rows: CaseResult[], top: number): { svg: string[]; height: number } {
  const values = rows.flatMap((r) => [r.ratio, r.goal].filter((v): v is number => v !== null));
  const lo = Math.min(0.1, ...values) / 1.25, hi = Math.max(2, ...values) * 1.25;
  const x = logScale(lo, hi, LABEL, LABEL + PLOT);
  const plotTop = top + 28, bottom = plotTop + rows.length * ROW;
  const svg = [
    text(
      PAD,
      top + 14,
      "Ratio to the baseline or peer (log scale; 1 = the baseline; dashed = goal; dot = " +
        "best ratio; green met, red missed, grey no goal)",
      { "font-weight": "bold" },
    ),
  ];
  for (const t of logTicks(lo, hi)) {
    svg.push(
      line(x(t), plotTop, x(t), bottom, { stroke: t === 1 ? "#000" : "#e0e0e0" }),
      text(x(t), bottom + 14, String(t), { "text-anchor": "middle", ...SMALL }),
    );
  }
  rows.forEach((row, i) => {
    const y = plotTop + i * ROW;
    svg.push(text(PAD, y + 15, row.id));
    if (row.ratio === null) {
      const why = `skipped: ${row.skipped ?? "no ratio"}`.slice(0, 90);
      svg.push(text(x(1) + 6, y + 15, why, { fill: "#757575", "font-size": 11 }));
      return;
    }
    const a = x(Math.min(1, row.ratio)), b = x(Math.max(1, row.ratio));
    const label = `${formatNumber(row.ratio)}x (${formatNumber(row.median)} ${row.unit})`;
    svg.push(
      el("rect", { x: a, y: y + 4, width: Math.max(1, b - a), height: ROW - 8, fill: color(row) }),
      text(LABEL + PLOT + 8, y + 15, label, { "font-size": 11 }),
    );
    if (row.goal !== null) svg.push(goalMark(x(row.goal), y));
    if (row.ratio_best !== undefined) {
      svg.push(el("circle", { cx: x(row.ratio_best), cy: y + ROW / 2, r: 3, fill: "#000" }));
    }
  });
  return { svg, height: 28 + rows.length * ROW + 24 };
}

/** The absolute panel: bars of the median from 0, with the goal marked (memory rows). */
function absolutePanel(rows: CaseResult[], top: number): { svg: string[]; height: number } {
  const max = Math.max(1, ...rows.flatMap((r) => [r.median ?? 0, r.goal ?? 0])) * 1.1;
  const x = (v: number) => LABEL + (Math.max(0, v) / max) * PLOT;
  const plotTop = top + 28;
  const svg = [text(PAD, top + 14, "Absolute goals (dashed = goal)", { "font-weight": "bold" })];
  rows.forEach((row, i) => {
    const y = plotTop + i * ROW;
    svg.push(text(PAD, y + 15, row.id));
    if (row.median === null) {
      const why = `skipped: ${row.skipped ?? "not measured"}`.slice(0, 90);
      svg.push(text(LABEL + 6, y + 15, why, { fill: "#757575", "font-size": 11 }));
      return;
    }
    svg.push(
      el("rect", {
        x: LABEL,
        y: y + 4,
        width: Math.max(1, x(row.median) - LABEL),
        height: ROW - 8,
        fill: color(row),
      }),
      text(LABEL + PLOT + 8, y + 15, `${formatNumber(row.median)} ${row.unit}`, {
        "font-size": 11,
      }),
    );
    if (row.goal !== null) svg.push(goalMark(x(row.goal), y));
  });
  return { svg, height: 28 + rows.length * ROW + 12 };
}

interface Box {
  left: number;
  top: number;
  w: number;
  h: number;
}

/**
 * One chart of `value` against bytes (log x), in `box`: log y with a dashed
 * line of linear growth through the largest point, or linear y from 0 with
 * a dashed goal line.
 */
function curve(
  points: GrowthPoint[],
  value: (p: GrowthPoint) => number,
  title: string,
  box: Box,
  yAxis: "log" | { goal: number },
): string[] {
  const { left, top, w, h } = box;
  const plotLeft = left + 40, plotTop = top + 20, bottom = top + h;
  const xs = points.map((p) => p.bytes), ys = points.map((p) => Math.max(value(p), 0.01));
  const x = logScale(Math.min(...xs), Math.max(...xs), plotLeft, left + w);
  const svg = [
    text(left, top + 12, title, { "font-weight": "bold", "font-size": 12 }),
    el("rect", {
      x: plotLeft,
      y: plotTop,
      width: w - 40,
      height: h - 20,
      fill: "none",
      stroke: "#9e9e9e",
    }),
    ...xs.map((b) => text(x(b), bottom + 14, sizeLabel(b), { "text-anchor": "middle", ...SMALL })),
  ];
  let y: (v: number) => number;
  if (yAxis === "log") {
    const ylo = Math.min(...ys) / 1.5, yhi = Math.max(...ys) * 1.5;
    y = logScale(ylo, yhi, bottom, plotTop);
    for (const t of logTicks(ylo, yhi)) {
      svg.push(text(left + 36, y(t) + 4, String(t), { "text-anchor": "end", ...SMALL }));
    }
    // Linear growth through the largest point, drawn where it stays above the axis.
    const last = points.at(-1)!;
    const linear = (b: number) => (value(last) * b) / last.bytes;
    const from = Math.max(points[0]!.bytes, (ylo * last.bytes) / value(last));
    svg.push(line(x(from), y(linear(from)), x(last.bytes), y(linear(last.bytes)), {
      stroke: "#9e9e9e",
      "stroke-dasharray": "4,3",
    }));
  } else {
    const yhi = Math.max(yAxis.goal, ...ys) * 1.1;
    y = (v) => bottom - (Math.max(0, v) / yhi) * (h - 20);
    for (const t of [0, yhi / 4, yhi / 2, (3 * yhi) / 4]) {
      svg.push(text(left + 36, y(t) + 4, formatNumber(t), { "text-anchor": "end", ...SMALL }));
    }
    svg.push(
      line(plotLeft, y(yAxis.goal), left + w, y(yAxis.goal), {
        stroke: "#000",
        "stroke-dasharray": "3,2",
      }),
      text(left + w - 4, y(yAxis.goal) - 4, `goal ${yAxis.goal}`, {
        "text-anchor": "end",
        ...SMALL,
      }),
    );
  }
  const at = (p: GrowthPoint) => [x(p.bytes), y(Math.max(value(p), 0.01))] as const;
  const d = points.map((p, i) => {
    const [px, py] = at(p);
    return `${i === 0 ? "M" : "L"}${Math.round(px * 10) / 10},${Math.round(py * 10) / 10}`;
  }).join(" ");
  svg.push(el("path", { d, fill: "none", stroke: "#1565c0", "stroke-width": 2 }));
  for (const p of points) {
    const [cx, cy] = at(p);
    svg.push(el("circle", { cx, cy, r: 3, fill: "#1565c0" }));
  }
  return svg;
}

/** The whole picture for `results`, as an SVG document. */
export function renderSvg(results: BenchResults): string {
  const compared = results.cases.filter((r) =>
    r.goal_of === "ratio" || (r.goal === null && r.baseline !== null)
  );
  const absolute = results.cases.filter((r) => !compared.includes(r) && r.points === undefined);
  const growth = results.cases.find((r) => r.points !== undefined && r.points.length > 1);
  const title = `shellseam benchmarks, ${results.date}${results.quick ? " (--quick)" : ""}`;
  const parts = [text(PAD, PAD + 6, title, { "font-size": 15, "font-weight": "bold" })];
  let y = PAD + 16;
  const ratios = ratioPanel(compared, y);
  parts.push(...ratios.svg);
  y += ratios.height;
  if (absolute.length > 0) {
    const panel = absolutePanel(absolute, y);
    parts.push(...panel.svg);
    y += panel.height;
  }
  if (growth?.points !== undefined) {
    const heading = `Growth (growth-slope): log-log slope ${formatNumber(growth.median)}`;
    parts.push(text(PAD, y + 14, heading, { "font-weight": "bold" }));
    const w = (WIDTH - 3 * PAD) / 2, h = 170;
    parts.push(
      ...curve(
        growth.points,
        (p) => p.ms,
        "run() time, ms, against stdout bytes (dashed: linear)",
        { left: PAD, top: y + 24, w, h },
        "log",
      ),
      ...curve(
        growth.points,
        (p) => p.peak_rss_growth_mib,
        "peak RSS growth, MiB, against stdout bytes",
        { left: 2 * PAD + w, top: y + 24, w, h },
        { goal: MEMORY_GOAL_MIB },
      ),
    );
    y += 24 + h + 24;
  }
  const height = Math.ceil(y + PAD);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" ` +
    `viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    el("rect", { width: WIDTH, height, fill: "#fff" }),
    ...parts,
    "</svg>",
    "",
  ].join("\n");
}
