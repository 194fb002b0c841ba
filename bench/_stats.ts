/**
 * The statistics of the benchmarks: quantiles of samples, the ratio of a
 * subject to its baseline, and a least-squares line. Pure functions only.
 *
 * @module
 */

/** Median, p10 and p90 of a set of samples, and how many there were. */
export interface Summary {
  /** The 50th percentile. */
  median: number;
  /** The 10th percentile. */
  p10: number;
  /** The 90th percentile. */
  p90: number;
  /** How many samples. */
  n: number;
}

/**
 * The `q` quantile (0 to 1) of `samples`, interpolated linearly between the
 * two nearest ranks (the "R-7" rule of R and NumPy's default). Throws on an
 * empty list or a `q` outside 0..1.
 */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new RangeError("Cannot take a quantile of no samples");
  if (!(q >= 0 && q <= 1)) throw new RangeError(`Quantile must be within 0..1; got ${q}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = q * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** Median, p10, p90 and count of `samples` (at least one). */
export function summarize(samples: readonly number[]): Summary {
  return {
    median: quantile(samples, 0.5),
    p10: quantile(samples, 0.1),
    p90: quantile(samples, 0.9),
    n: samples.length,
  };
}

/** `subject / baseline` of two medians; undefined when the baseline is not positive. */
export function ratio(subject: number, baseline: number): number | undefined {
  return baseline > 0 && Number.isFinite(subject) ? subject / baseline : undefined;
}

/**
 * Whether `value` meets `goal`: at most the goal when lower is better, at
 * least it when higher is better.
 */
export function meetsGoal(value: number, goal: number, better: "lower" | "higher"): boolean {
  return better === "lower" ? value <= goal : value >= goal;
}

/** A least-squares line `y = intercept + slope * x`, and how well it fits (r²). */
export interface LineFit {
  /** dy/dx. */
  slope: number;
  /** y at x = 0. */
  intercept: number;
  /** Coefficient of determination: 1 is a perfect fit. */
  r2: number;
}

/** The least-squares line through the points (xs[i], ys[i]); at least two distinct xs. */
export function fitLine(xs: readonly number[], ys: readonly number[]): LineFit {
  if (xs.length !== ys.length || xs.length < 2) {
    throw new RangeError(`Need two or more (x, y) pairs; got ${xs.length} xs and ${ys.length} ys`);
  }
  const n = xs.length;
  const meanX = xs.reduce((a, b) => a + b, 0) / n;
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0, sxy = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - meanX, dy = ys[i]! - meanY;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (sxx === 0) throw new RangeError("Need two or more distinct x values to fit a line");
  const slope = sxy / sxx;
  return { slope, intercept: meanY - slope * meanX, r2: syy === 0 ? 1 : (sxy * sxy) / (sxx * syy) };
}

/** The slope of log(y) against log(x): 1 is linear growth, 0 constant. Positive values only. */
export function logLogSlope(xs: readonly number[], ys: readonly number[]): number {
  if ([...xs, ...ys].some((v) => !(v > 0))) {
    throw new RangeError("A log-log slope needs positive values only");
  }
  return fitLine(xs.map(Math.log), ys.map(Math.log)).slope;
}
