// Nothing outlives the host: a real host process (Deno, or Node against the
// built package) starts commands, is killed with each signal, and then no
// process carrying the commands' marker may be left, nor its private folder.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { LocalBashExecutor } from "../../local/mod.ts";
import { cgroupSupport } from "../../engine/_cgroup_support.ts";
import { sweepStaleCgroups } from "../../engine/_cgroup_sweep.ts";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  assertNoneLeft,
  marker,
  processesWith,
  until,
  waitForSleep,
  watchdogOf,
} from "../local/_helpers.ts";
import { probeHere, skipUnless, standbys } from "../sandbox/_fixtures.ts";

// .ts under Deno, .js once compiled for the Node leg.
const EXT = import.meta.url.slice(import.meta.url.lastIndexOf("."));
const HOST = fileURLToPath(new URL(`./_host${EXT}`, import.meta.url));
const onDeno = "Deno" in globalThis;
const probes = await probeHere();

/**
 * How long the watchdog may take, from its host's exit, to end what the host
 * left and remove its folders: a deadline for a failure, not a pace (each
 * wait ends the moment its condition holds), loose for a loaded machine.
 */
const WATCHDOG_MS = 30_000;

type Signal = "SIGKILL" | "SIGTERM" | "SIGINT" | "SIGHUP";
const NUMBERS: Record<Signal, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

interface Host {
  pid: number;
  folder: string;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

/** Starts the host and waits until its three `sleep` commands run (unless it is to return). */
async function startHost(
  kind: string,
  token: string,
  mode?: "hook" | "return" | "escape" | "cgroup" | "standby" | "terminal",
): Promise<Host> {
  const args = [...(onDeno ? ["run", "-A"] : []), HOST, kind, token, ...(mode ? [mode] : [])];
  // A process group of its own, as a job in a terminal has, for the Ctrl-C case.
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((done) =>
    child.once("exit", (code, signal) => done({ code, signal }))
  );
  let text = "";
  for await (const chunk of child.stdout) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  assert.ok(text.includes("\n"), `the host printed no folder: ${JSON.stringify(text)}`);
  const { folder } = JSON.parse(text) as { folder: string };
  if (mode !== "return" && mode !== "standby") {
    await waitForSleep(token, mode === "escape" ? 5 : mode === "terminal" ? 4 : 3);
  }
  assert.ok(child.pid !== undefined);
  return { pid: child.pid, folder, exited };
}

/** Waits (see `WATCHDOG_MS`) for `path` to be gone. */
async function assertRemoved(path: string): Promise<void> {
  await until(() => !existsSync(path), `"${path}" to be removed`, WATCHDOG_MS);
}

const CASES: { signal: Signal; group?: boolean }[] = [
  { signal: "SIGKILL" },
  { signal: "SIGTERM" },
  { signal: "SIGINT" },
  { signal: "SIGHUP" },
  // Ctrl-C in the host's terminal: SIGINT to its whole process group.
  { signal: "SIGINT", group: true },
];

describe(`a ${onDeno ? "Deno" : "Node"} host that dies`, () => {
  for (const { signal, group } of CASES) {
    const how = group ? `${signal} to its process group` : signal;
    it(`by ${how} leaves no command running and no private folder`, async () => {
      const token = marker();
      const host = await startHost("local", token);
      process.kill(group ? -host.pid : host.pid, signal);
      const exit = await host.exited;
      assert.equal(exit.signal, signal, `the host ended by ${JSON.stringify(exit)}`);
      await assertNoneLeft(token, WATCHDOG_MS);
      await assertRemoved(host.folder);
    });
  }

  it("by SIGKILL leaves no process that left its command's session either", async () => {
    const token = marker();
    const host = await startHost("local", token, "escape");
    process.kill(host.pid, "SIGKILL");
    await host.exited;
    await assertNoneLeft(token, WATCHDOG_MS);
    await assertRemoved(host.folder);
  });

  it("by SIGKILL leaves nothing of a command in a terminal (script, and its session that ignores SIGHUP)", async () => {
    const token = marker();
    const host = await startHost("local", token, "terminal");
    process.kill(host.pid, "SIGKILL");
    await host.exited;
    await assertNoneLeft(token, WATCHDOG_MS);
    await assertRemoved(host.folder);
  });

  const cgroups = cgroupSupport().processes;
  it("on the portable path (no /proc, ps) by SIGKILL leaves no command, no escapee and no private folder", async () => {
    const token = marker();
    const host = await startHost("portable", token, "escape");
    process.kill(host.pid, "SIGKILL");
    await host.exited;
    await assertNoneLeft(token, WATCHDOG_MS);
    await assertRemoved(host.folder);
  });

  it("by SIGKILL leaves none of its commands' cgroups", {
    skip: "unavailable" in cgroups ? `no cgroup here: ${cgroups.unavailable}` : false,
  }, async () => {
    const token = marker();
    const host = await startHost("local", token, "cgroup");
    const dir = (cgroups as { dir: string }).dir;
    const mine = (): string[] =>
      readdirSync(dir).filter((name) => name.startsWith(`shellseam-exec-${host.pid}-`));
    try {
      assert.equal(mine().length, 1, "the host's commands are in its cgroup folder");
      process.kill(host.pid, "SIGKILL");
      await host.exited;
      await assertNoneLeft(token, WATCHDOG_MS);
      await until(() => mine().length === 0, () => `the watchdog to remove ${mine()}`, WATCHDOG_MS);
    } finally {
      // Whatever happened: the host is dead, so its folder is stale.
      for (const pid of processesWith(token)) process.kill(pid, "SIGKILL");
      await sweepStaleCgroups(dir, (pid) => process.kill(pid, "SIGKILL"));
    }
  });

  for (const backend of ["bwrap", "landlock"] as const) {
    const skip = skipUnless(probes, backend);
    it(`by SIGKILL leaves no command of the ${backend} backend running`, { skip }, async () => {
      const token = marker();
      const host = await startHost(backend, token);
      process.kill(host.pid, "SIGKILL");
      await host.exited;
      await assertNoneLeft(token, WATCHDOG_MS);
      await assertRemoved(host.folder);
    });
  }

  for (const backend of ["bwrap", "landlock"] as const) {
    it(`by SIGKILL leaves no ${backend} standby waiting`, {
      skip: skipUnless(probes, backend) ||
        ("unavailable" in cgroups
          ? `no cgroup here (standbys hold cgroups): ${cgroups.unavailable}`
          : false),
    }, async () => {
      const host = await startHost(backend, marker(), "standby");
      try {
        await standbyOf(backend, host.pid);
      } finally {
        // Killed whether a standby was found or not: a failed wait leaves no host running.
        process.kill(host.pid, "SIGKILL");
      }
      await host.exited;
      await assertNoStandby(backend, host.pid);
      await assertRemoved(host.folder);
    });
  }
});

/** The `backend` standbys of `host`'s executors (their cgroup folders carry its pid). */
const standbysOf = (backend: "bwrap" | "landlock", host: number): number[] =>
  standbys(backend, host);

/** Waits until a standby of `host` waits. */
async function standbyOf(backend: "bwrap" | "landlock", host: number): Promise<void> {
  await until(() => standbysOf(backend, host).length > 0, `a ${backend} standby to start`);
}

/** Fails unless no standby of `host` is left (see `WATCHDOG_MS`). */
async function assertNoStandby(backend: "bwrap" | "landlock", host: number): Promise<void> {
  await until(
    () => standbysOf(backend, host).length === 0,
    () => `the standbys ${standbysOf(backend, host)} of host ${host} to end`,
    WATCHDOG_MS,
  );
}

describe(`a ${onDeno ? "Deno" : "Node"} host that called killOnSignals()`, () => {
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    it(`disposes on ${signal} and exits with 128 + ${NUMBERS[signal]}`, async () => {
      const token = marker();
      const host = await startHost("local", token, "hook");
      process.kill(host.pid, signal);
      const exit = await host.exited;
      assert.deepEqual(exit, { code: 128 + NUMBERS[signal], signal: null });
      // Disposal awaited every exit, so nothing is left at the moment the host ends.
      assert.deepEqual(processesWith(token), []);
      assert.ok(!existsSync(host.folder), `"${host.folder}" was left behind`);
    });
  }
});

describe(`a ${onDeno ? "Deno" : "Node"} host that forgets to dispose`, () => {
  it("still exits when its script ends, and its private folder goes with it", async () => {
    const host = await startHost("local", marker(), "return");
    assert.deepEqual(await host.exited, { code: 0, signal: null });
    await assertRemoved(host.folder);
  });

  for (const backend of ["bwrap", "landlock"] as const) {
    it(`still exits when a ${backend} standby waits, and the standby goes with it`, {
      skip: skipUnless(probes, backend),
    }, async () => {
      const host = await startHost(backend, marker(), "return");
      assert.deepEqual(await host.exited, { code: 0, signal: null });
      await assertRemoved(host.folder);
      await assertNoStandby(backend, host.pid);
    });
  }
});

describe("a private folder whose host and watchdog both died", () => {
  it("is removed by the next executor that starts", async () => {
    const token = marker();
    const host = await startHost("local", token);
    const watchdog = watchdogOf(host.pid);
    process.kill(watchdog, "SIGKILL");
    // Dead (a zombie until the host, its parent, goes) before the host dies.
    await until(
      () => !processesWith("shellseam-watchdog").includes(watchdog),
      `watchdog ${watchdog} to die`,
    );
    process.kill(host.pid, "SIGKILL");
    await host.exited;
    // No watchdog of the host is left to clean up: its commands are orphans
    // now (the test ends them), and its folder waits for the next executor
    // (any that starts on this machine from now on).
    for (const pid of processesWith(token)) process.kill(pid, "SIGKILL");
    await using executor = new LocalBashExecutor();
    await executor.run(executor.resolve({ command: "true" }));
    await assertRemoved(host.folder);
  });
});
