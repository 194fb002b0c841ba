// The same probe commands under one backend, as the user running this module:
// called by sandbox_view_test.ts for root, and by _view_probes_main.ts (run
// as nobody) for nobody.
import type { BashSandboxInfo } from "../../seam/mod.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { type SandboxBackendName, SandboxBashExecutor } from "../../sandbox/mod.ts";

/** What the host prepared for the probes. */
export interface ViewFixtures {
  /** The workspace root. */
  workspace: string;
  /** A file in the host's /tmp, readable by the probing user. */
  hostTmpFile: string;
  /** A path beside the workspace that must not be created. */
  outside: string;
  /** A fresh name for files the probes try to create in /tmp and /dev/shm. */
  name: string;
  /** A port on 127.0.0.1 with a listener. */
  port: number;
  /** The name of an abstract Unix socket with a listener. */
  abstract: string;
}

/** How one probe ended: whether it worked, and the sandbox's verdict. */
export interface ProbeOutcome {
  ok: boolean;
  denial: BashSandboxInfo["denial"] | "none";
}

/** The probes, by name, and each outcome; plus the gaps the backend named. */
export interface ViewTable {
  outcomes: Record<string, ProbeOutcome>;
  gaps: string[];
  stderr: Record<string, string>;
}

/** Runs every probe under `backend` (workspace-write, network denied). */
export async function viewTable(
  backend: SandboxBackendName,
  fixtures: ViewFixtures,
): Promise<ViewTable> {
  await using executor = new SandboxBashExecutor({
    workspaceRoot: fixtures.workspace,
    defaultMode: "workspace-write",
    backends: [backend],
  });
  // Another executor of the same user, whose spill file is another session's output.
  await using other = new LocalBashExecutor();
  const big = "head -c 100000 /dev/zero";
  const othersSpill = (await other.run(other.resolve({ command: big, stdoutMaxBytes: 100 })))
    .stdout.spillPath;
  const ownSpill = (await executor.run(executor.resolve({ command: big, stdoutMaxBytes: 100 })))
    .stdout.spillPath;
  if (othersSpill === undefined || ownSpill === undefined) throw new Error("no spill file");
  const probes: Record<string, string> = {
    "read host /tmp": `cat '${fixtures.hostTmpFile}'`,
    "read own spill file": `test "$(wc -c < '${ownSpill}')" = 100000`,
    "write $TMPDIR": `echo x > "$TMPDIR/${fixtures.name}" && test -n "$TMPDIR"`,
    "$TMPDIR kept": `test "$(cat "$TMPDIR/${fixtures.name}")" = x`,
    "write /tmp": `echo x > '/tmp/${fixtures.name}'`,
    "write /dev/shm": `echo x > '/dev/shm/${fixtures.name}'`,
    "write outside": `echo x > '${fixtures.outside}'`,
    "listen on 127.0.0.1": "timeout 2 socat TCP-LISTEN:0,bind=127.0.0.1 /dev/null",
    "connect out": `exec 3<>/dev/tcp/127.0.0.1/${fixtures.port}`,
    "connect abstract socket": `socat -u ABSTRACT-CONNECT:${fixtures.abstract} /dev/null`,
    "System V IPC": "ipcmk -M 4096",
    "read another executor's spill file": `cat '${othersSpill}' > /dev/null`,
  };
  // TMPDIR is writable in every confined mode, and the same folder in each.
  const readOnly = new Set(["write $TMPDIR under read-only"]);
  probes["write $TMPDIR under read-only"] =
    `echo y > "$TMPDIR/${fixtures.name}.ro" && test "$(cat "$TMPDIR/${fixtures.name}")" = x`;
  const table: ViewTable = { outcomes: {}, gaps: [], stderr: {} };
  for (const [name, command] of Object.entries(probes)) {
    const result = await executor.run(executor.resolve({
      command,
      ...(readOnly.has(name)
        ? {
          sandboxPolicy: { mode: "read-only", workspaceRoot: fixtures.workspace, network: "deny" },
        }
        : {}),
    }));
    table.outcomes[name] = { ok: result.exitCode === 0, denial: result.sandbox?.denial ?? "none" };
    table.stderr[name] = result.stderr.text;
    table.gaps = [...new Set([...table.gaps, ...result.sandbox?.enforcement?.gaps ?? []])];
  }
  return table;
}
