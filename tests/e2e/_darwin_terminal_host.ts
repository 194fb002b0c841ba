// A host on "macOS" with terminals, for darwin_simulation_test.ts: the
// platform reported as darwin (no /proc read; under Deno it runs without
// --allow-all, which refuses /proc anyway), run with a PATH whose `script`,
// `stty` and `ps` are stand-ins for macOS's (see _macos_bin.ts). Through the
// real terminal code of the local executor, and with a folder (its second
// argument) of the Seatbelt sandbox too, over a stand-in of `sandbox-exec`
// (bubblewrap, see ../sandbox/_seatbelt_fakes.ts), it answers a y/N prompt,
// adds 1+1 in python3's REPL, resizes (`stty size` before and after), stops
// a sleep with Ctrl-C and kills a command whose child ignores the kill, then
// prints what each gave as one JSON line, by executor. Every command carries
// <token> (its first argument, without its `313.`) on a command line, for
// the census of the test.
import process from "node:process";
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { LocalBashExecutor, platformFacts, runtime } from "../../local/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import type { BashExecutor, BashProcess } from "../../seam/mod.ts";
import { TerminalWatch } from "../_terminal.ts";
import { ENFORCING } from "../sandbox/_seatbelt_fakes.ts";

const [digits, folder] = process.argv.slice(2) as [string, string | undefined];
const token = `313.${digits}`;
const size = { rows: 30, cols: 100 };
const mac = { ...runtime, platform: platformFacts("darwin", false) };

/** What a terminal command showed, and how it ended. */
interface Seen {
  text: string;
  exitCode: number | null;
  status: string;
}

/** The five terminal sessions on `executor`, by name. */
async function sessions(executor: BashExecutor): Promise<Record<string, Seen>> {
  const start = async (command: string) => {
    const process = await executor.start({ command: `: ${token}; ${command}`, terminal: size });
    return { process, watch: new TerminalWatch(process) };
  };
  const seen: Record<string, Seen> = {};
  const record = async (
    name: string,
    { process, watch }: { process: BashProcess; watch: TerminalWatch },
  ) => {
    await process.done;
    await watch.ended;
    seen[name] = { text: watch.text, exitCode: process.exitCode, status: process.status };
  };

  const prompt = await start(
    "read -p 'Continue? [y/N] ' answer; echo \"answer=$answer script=${SCRIPT-unset}\"",
  );
  await prompt.watch.until(/Continue\? \[y\/N\] $/);
  await prompt.process.write("y\r");
  await record("prompt", prompt);

  const python = await start(`exec python3 -q -i -c '' ${token}`);
  await python.watch.until(/>>> $/);
  await python.process.write("1+1\r");
  const after = (await python.watch.until(/\r\n2\r\n>>> $/)).length;
  await python.process.write("exit()\r");
  await python.watch.until(/exit\(\)/, 10_000, after);
  await record("python", python);

  const resize = await start("stty size; echo ready; read line; stty size");
  await resize.watch.until(/ready\r\n/);
  await resize.process.resize(40, 132);
  await resize.process.write("\r");
  await record("resize", resize);

  const interrupt = await start(`bash -c 'echo ready; exec sleep 30 ${token}'; echo status=$?`);
  await interrupt.watch.until(/ready/);
  await interrupt.process.write("\x03");
  await record("interrupt", interrupt);

  const killed = await start(
    `(trap '' HUP TERM INT; exec sleep 60 ${token}) & echo started; sleep 60`,
  );
  await killed.watch.until(/started/);
  await killed.process.kill();
  await record("killed", killed);
  return seen;
}

const seen: Record<string, Record<string, Seen>> = {};
{
  await using local = new LocalBashExecutor({ cwd: realpathSync(tmpdir()), runtime: mac });
  seen.local = await sessions(local);
}
if (folder !== undefined) {
  const root = join(folder, "root");
  const bin = join(folder, "fake-bin");
  mkdirSync(root);
  mkdirSync(bin);
  writeFileSync(join(bin, "sandbox-exec"), `#!/bin/sh\n${ENFORCING}\n`);
  chmodSync(join(bin, "sandbox-exec"), 0o755);
  await using seatbelt = new SandboxBashExecutor({
    workspaceRoot: root,
    defaultMode: "workspace-write",
    backends: ["seatbelt"],
    searchPath: bin,
    probeTimeoutMs: 60_000,
    runtime: mac,
  });
  seen.seatbelt = await sessions(seatbelt);
}
process.stdout.write(JSON.stringify(seen) + "\n");
