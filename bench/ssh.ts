/**
 * `deno run --allow-all bench/ssh.ts`: the SSH executor's `run("true")`
 * against a bare `ssh -o ControlPath=... host true` over the same master
 * connection, against a throwaway sshd on 127.0.0.1 (as the tests start
 * it). The difference is what the executor adds per command: its bootstrap
 * (setsid, the census, the wait status), framing and output collection.
 * Prints a table and writes `bench/results/ssh.json`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { SshBashExecutor } from "../remote/mod.ts";
import { sshdMissing, startSshd } from "../tests/remote/_sshd.ts";

const RUNS = 40;

/** One row of the table. */
export interface SshRow {
  case: string;
  msPerOp: number;
  ratioToBare: number;
}

async function timePerOp(count: number, op: () => Promise<unknown>): Promise<number> {
  await op(); // warm up
  const start = performance.now();
  for (let i = 0; i < count; i++) await op();
  return (performance.now() - start) / count;
}

/** Measures both cases over one sshd and one master connection. */
export async function measureSsh(): Promise<SshRow[]> {
  const sshd = await startSshd();
  try {
    await using executor = new SshBashExecutor({ ...sshd.config, cwd: "/tmp" });
    const spec = executor.resolve({ command: "true" });
    await executor.run(spec); // opens the master
    const { program, args } = executor.transport.command("true");
    const bare = await timePerOp(RUNS, () => {
      const child = spawnSync(program, args);
      if (child.status !== 0) throw new Error(`bare ssh failed: ${child.stderr}`);
      return Promise.resolve();
    });
    const run = await timePerOp(RUNS, () => executor.run(spec));
    return [
      { case: "bare ssh -o ControlPath=... host true", msPerOp: bare, ratioToBare: 1 },
      { case: 'SshBashExecutor run("true")', msPerOp: run, ratioToBare: run / bare },
    ];
  } finally {
    await sshd.dispose();
  }
}

if (import.meta.main) {
  if (sshdMissing !== false) {
    console.log(`Skipped: ${sshdMissing}`);
  } else {
    const rows = await measureSsh();
    console.table(rows.map((row) => ({
      case: row.case,
      "ms/op": row.msPerOp.toFixed(2),
      "x bare": row.ratioToBare.toFixed(2),
    })));
    mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
    writeFileSync(
      new URL("./results/ssh.json", import.meta.url),
      JSON.stringify({ date: new Date().toISOString(), runs: RUNS, rows }, null, 2) + "\n",
    );
  }
}
