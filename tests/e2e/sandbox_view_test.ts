// One view of the machine under both backends: the same probe commands,
// as root and as nobody, must end the same way under bwrap and Landlock, or
// differ only where the backend names the gap.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { randomUUID } from "node:crypto";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import { HIDDEN_DIRS_GAP } from "../../sandbox/backends/landlock/_landlock.ts";
import type { SandboxBackendName } from "../../sandbox/mod.ts";
import {
  closeServer,
  listener,
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  tempWorkspace,
  type Workspace,
} from "../sandbox/_fixtures.ts";
import { type ProbeOutcome, type ViewFixtures, type ViewTable, viewTable } from "./_view_probes.ts";

const statuses = await probeHere();
const NOBODY = 65534;
const deno = findDeno(process.env.PATH);
const missing = ["socat", "ipcmk"].find((tool) => findOnPath(tool, process.env.PATH) === null);
const skipTools = missing === undefined ? false : `"${missing}" is not installed here; install it`;
const skipNobody = !("Deno" in globalThis)
  ? "runs a Deno script over the TypeScript sources, which only a Deno checkout has"
  : process.getuid?.() !== 0 || findOnPath("setpriv", process.env.PATH) === null
  ? "needs root and util-linux setpriv to run the executor as nobody"
  : "reason" in deno
  ? deno.reason
  : false;

const ok: ProbeOutcome = { ok: true, denial: "none" };
const filesystem: ProbeOutcome = { ok: false, denial: "filesystem" };
const network: ProbeOutcome = { ok: false, denial: "network" };
const refused: ProbeOutcome = { ok: false, denial: "none" };

/** The one view, probe by probe (workspace-write, network denied). */
const EXPECTED: Record<string, ProbeOutcome> = {
  "read host /tmp": ok,
  "read own spill file": ok,
  "write $TMPDIR": ok,
  "$TMPDIR kept": ok,
  "write $TMPDIR under read-only": ok,
  "write /tmp": filesystem,
  "write /dev/shm": filesystem,
  "write outside": filesystem,
  "listen on 127.0.0.1": network,
  "connect out": network,
  "connect abstract socket": network,
  // Refused by the seccomp filter under both; EACCES names no rule, so not classed.
  "System V IPC": refused,
  // Hidden: an empty folder in its place.
  "read another executor's spill file": refused,
};

/** A probe may differ from the one view only where the backend names this gap. */
const ALLOWED_GAPS: Record<string, { gap: string; outcome: ProbeOutcome }> = {
  "read another executor's spill file": { gap: HIDDEN_DIRS_GAP, outcome: ok },
};

/** Host-side fixtures for the probes: a /tmp file, listeners, names. */
async function withFixtures(
  workspace: Workspace,
  body: (fixtures: ViewFixtures) => Promise<void>,
): Promise<void> {
  const name = `shellseam-view-${randomUUID()}`;
  const hostTmpFile = join("/tmp", `${name}-host`);
  writeFileSync(hostTmpFile, "host\n", { mode: 0o644 });
  const { port, accepted, server } = await listener();
  const abstract = `shellseam-view-${randomUUID()}`;
  let abstractAccepted = 0;
  const abstractServer = createServer((socket) => {
    abstractAccepted++;
    socket.destroy();
  });
  await new Promise<void>((done) => abstractServer.listen(`\0${abstract}`, done));
  const outside = join(workspace.base, "outside");
  try {
    await body({ workspace: workspace.root, hostTmpFile, outside, name, port, abstract });
    assert.equal(accepted(), 0, "the TCP listener saw a connection");
    assert.equal(abstractAccepted, 0, "the abstract socket saw a connection");
    assert.equal(existsSync(outside), false, "a write outside went through");
    assert.equal(existsSync(join("/tmp", name)), false, "a write to /tmp went through");
    assert.equal(existsSync(join("/dev/shm", name)), false, "a write to /dev/shm went through");
  } finally {
    rmSync(hostTmpFile, { force: true });
    rmSync(join("/tmp", name), { force: true });
    rmSync(join("/dev/shm", name), { force: true });
    await closeServer(server);
    await closeServer(abstractServer);
  }
}

/** Asserts `table` is the one view, or differs only by a named gap. */
function assertOneView(table: ViewTable): void {
  const seen: Record<string, ProbeOutcome> = {};
  for (const [probe, expected] of Object.entries(EXPECTED)) {
    const outcome = table.outcomes[probe];
    const allowed = ALLOWED_GAPS[probe];
    const gapNamed = allowed !== undefined && table.gaps.includes(allowed.gap);
    seen[probe] = gapNamed && outcome?.ok === allowed.outcome.ok ? expected : outcome!;
  }
  assert.deepEqual(seen, EXPECTED, JSON.stringify(table.stderr, null, 1));
}

/** Gives `path` and everything beneath it to nobody. */
function giveToNobody(path: string): void {
  chownSync(path, NOBODY, NOBODY);
  for (const name of readdirSync(path, { recursive: true, encoding: "utf8" })) {
    chownSync(join(path, name), NOBODY, NOBODY);
  }
}

for (const backend of SANDBOX_BACKENDS) {
  describe(`one view of the machine over ${backend}`, {
    skip: skipUnless(statuses, backend) || skipTools,
  }, () => {
    it("as root: every probe ends as the one view says", async () => {
      using workspace = tempWorkspace();
      await withFixtures(workspace, async (fixtures) => {
        assertOneView(await viewTable(backend, fixtures));
      });
    });

    it("as nobody: every probe ends as the one view says, or the gap is named", {
      skip: skipNobody,
    }, async () => {
      using workspace = tempWorkspace();
      const home = join(workspace.base, "home");
      mkdirSync(home);
      giveToNobody(workspace.base);
      await withFixtures(workspace, async (fixtures) => {
        assertOneView(await asNobody(backend, fixtures, workspace.base, home));
      });
    });
  });
}

/** Runs the probes in a Deno process of nobody's. */
async function asNobody(
  backend: SandboxBackendName,
  fixtures: ViewFixtures,
  cwd: string,
  home: string,
): Promise<ViewTable> {
  assert.ok(!("reason" in deno));
  const script = fileURLToPath(new URL("./_view_probes_main.ts", import.meta.url));
  await using runner = new LocalBashExecutor({ cwd });
  const result = await runner.run(runner.resolve({
    command: `exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups ` +
      `"$DENO" run --no-config --no-lock --allow-all "$SCRIPT" "$BACKEND" "$FIXTURES"`,
    env: {
      DENO: deno.path,
      SCRIPT: script,
      BACKEND: backend,
      FIXTURES: JSON.stringify(fixtures),
      HOME: home,
      DENO_DIR: join(home, "deno-dir"),
      TMPDIR: home,
    },
    timeoutMs: 120_000,
  }));
  assert.equal(result.exitCode, 0, result.stderr.text);
  return JSON.parse(result.stdout.text) as ViewTable;
}
