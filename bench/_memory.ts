/**
 * Peak resident memory of this process, from Linux's /proc/self: the
 * kernel's high-water mark (VmHWM) can be reset to the current size by
 * writing "5" to /proc/self/clear_refs, so the growth during an operation is
 * its peak minus the size before it. Works under Deno (`--allow-all`) and
 * Node.
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";

/** VmRSS and VmHWM of this process, in bytes, from the text of /proc/self/status. */
export function parseStatus(text: string): { rss: number; peak: number } {
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(text);
    if (match === null) throw new Error(`No "${name}" line in /proc/self/status`);
    return Number(match[1]) * 1024;
  };
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

/**
 * Runs `operation` and returns its result and this process's peak RSS growth
 * during it, in bytes (peak after, minus the size before).
 */
export async function peakGrowth<T>(operation: () => Promise<T>): Promise<{
  value: T;
  growth: number;
}> {
  writeFileSync("/proc/self/clear_refs", "5");
  const before = parseStatus(readFileSync("/proc/self/status", "utf8")).rss;
  const value = await operation();
  const { peak } = parseStatus(readFileSync("/proc/self/status", "utf8"));
  return { value, growth: Math.max(0, peak - before) };
}
