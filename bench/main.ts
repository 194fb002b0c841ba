/**
 * `deno task bench`: spawn latency and output throughput of the local
 * executor as ratios against a raw `Deno.Command` spawn, measured in one
 * run, with a small heap and again with about 1 GB more heap (an agent
 * harness holds large heaps, and fork-based spawns slow down with them).
 * Prints a table and writes `bench/results/latest.json`.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { LocalBashExecutor } from "../local/mod.ts";

const SPAWNS = 40;
const THROUGHPUT_BYTES = 200_000_000;

interface Row {
  case: string;
  heap: "small" | "+1 GB";
  msPerOp: number;
  ratioToRaw: number;
}

async function timePerOp(count: number, op: () => Promise<unknown>): Promise<number> {
  await op(); // warm up
  const start = performance.now();
  for (let i = 0; i < count; i++) await op();
  return (performance.now() - start) / count;
}

function rawSpawn(args: string[], detached: boolean): Promise<unknown> {
  const child = new Deno.Command("bash", {
    args,
    detached,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return child.output();
}

async function measure(heap: Row["heap"]): Promise<Row[]> {
  const raw = await timePerOp(SPAWNS, () => rawSpawn(["-c", "true"], false));
  const rows: Row[] = [{
    case: "raw Deno.Command bash -c true",
    heap,
    msPerOp: raw,
    ratioToRaw: 1,
  }];
  const add = (name: string, ms: number, base: number) =>
    rows.push({ case: name, heap, msPerOp: ms, ratioToRaw: ms / base });

  add(
    "raw Deno.Command, detached: true",
    await timePerOp(SPAWNS, () => rawSpawn(["-c", "true"], true)),
    raw,
  );
  for (const sessionStrategy of ["setsid-binary", "detached"] as const) {
    await using executor = new LocalBashExecutor({ sessionStrategy });
    const spec = executor.resolve({ command: "true" });
    add(
      `LocalBashExecutor run("true"), ${sessionStrategy}`,
      await timePerOp(SPAWNS, () => executor.run(spec)),
      raw,
    );
  }

  const command = `head -c ${THROUGHPUT_BYTES} /dev/zero`;
  const rawBulk = await timePerOp(2, () => rawSpawn(["-c", command], false));
  add(`raw Deno.Command ${THROUGHPUT_BYTES / 1e6} MB stdout`, rawBulk, rawBulk);
  await using executor = new LocalBashExecutor();
  const spec = executor.resolve({ command });
  add(
    `LocalBashExecutor ${THROUGHPUT_BYTES / 1e6} MB stdout (64 MiB spill)`,
    await timePerOp(2, () => executor.run(spec)),
    rawBulk,
  );
  return rows;
}

function growHeap(bytes: number): unknown[] {
  const keep: unknown[] = [];
  const chunk = 1_000_000;
  for (let held = 0; held < bytes; held += chunk * 8) {
    keep.push(Array.from({ length: chunk }, (_, i) => i + 0.5));
  }
  return keep;
}

const rows = await measure("small");
const ballast = growHeap(1_000_000_000);
rows.push(...await measure("+1 GB"));
console.log(`(heap ballast: ${ballast.length} arrays)`);

console.table(rows.map((row) => ({
  case: row.case,
  heap: row.heap,
  "ms/op": row.msPerOp.toFixed(2),
  "x raw": row.ratioToRaw.toFixed(2),
})));

mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL("./results/latest.json", import.meta.url),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      deno: Deno.version.deno,
      spawnsPerCase: SPAWNS,
      throughputBytes: THROUGHPUT_BYTES,
      rows,
    },
    null,
    2,
  ) + "\n",
);
