// A host process for the host-death tests: it starts commands through an
// executor, prints its private folder as one JSON line, and waits to be
// killed. Arguments: <executor: local | portable | bwrap | landlock> <token> [mode],
// where "portable" is the local executor on the path macOS takes (no /proc:
// the portable watchdog, every census through ps),
// where mode "hook" makes it call killOnSignals(), "return" makes it run one
// short command and end its script without disposing of the executor, and
// "escape" adds a command whose child leaves the session (setsid), and
// "cgroup" gives every command a process limit (a cgroup where one can be made),
// "terminal" adds a command in a terminal (script, and a shell in a session of
// its own that ignores SIGHUP).
// A sandboxing host runs one command first, so a standby waits (where
// cgroups hold its limits); mode "standby" then only waits, its standby unused.
import process from "node:process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { LocalBashExecutor, platformFacts, runtime } from "../../local/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";

class LocalHost extends LocalBashExecutor {
  folder(): Promise<string> {
    return this.privateDir();
  }
}

class SandboxHost extends SandboxBashExecutor {
  folder(): Promise<string> {
    return this.privateDir();
  }
}

const [kind, token, mode] = process.argv.slice(2);
const executor = kind === "local"
  ? new LocalHost(mode === "cgroup" ? { limits: { processes: 64 } } : {})
  : kind === "portable"
  ? new LocalHost({ runtime: { ...runtime, platform: platformFacts("linux", false) } })
  : new SandboxHost({
    // This file's folder, where its commands (read-only) write nothing: not the
    // temporary folder, which holds the executor's private folder, and no root
    // of a Landlock call may hold that, read-only or not.
    workspaceRoot: dirname(fileURLToPath(import.meta.url)),
    backends: [kind === "landlock" ? "landlock" : "bwrap"],
  });
if (kind !== "local" && kind !== "portable") {
  await executor.run(executor.resolve({ command: "true" }));
}
if (mode === "return") {
  await executor.run(executor.resolve({ command: "true" }));
  process.stdout.write(JSON.stringify({ folder: await executor.folder() }) + "\n");
} else if (mode === "standby") {
  process.stdout.write(JSON.stringify({ folder: await executor.folder() }) + "\n");
  setInterval(() => {}, 60_000);
} else {
  if (mode === "hook") executor.killOnSignals();
  await startAndWait();
}

async function startAndWait(): Promise<void> {
  await executor.start(executor.resolve({ command: `sleep ${token} & sleep ${token}` }));
  if (mode === "escape") {
    // Still running when the host dies (the sweep after a command that ended would kill the escapee).
    await executor.start(executor.resolve({
      command: `setsid sleep ${token} >/dev/null 2>&1 & sleep ${token}`,
    }));
  }
  if (mode === "terminal") {
    await executor.start(executor.resolve({
      command: `trap '' HUP; sleep ${token}`,
      terminal: { rows: 24, cols: 80 },
    }));
  }
  const running = executor.run(executor.resolve({ command: `sleep ${token}` }));
  process.stdout.write(JSON.stringify({ folder: await executor.folder() }) + "\n");
  await running;
}
