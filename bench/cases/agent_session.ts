/**
 * `agent-session`: 42 commands typical of an agent's transcript (git
 * status, log and diff, rg, cat, head and sed, a `sed -i` edit, python3
 * and node one-liners, a failing command, a 200 KB output, two commands
 * with `&` children), run in a clone of this repository with an npm
 * package beside it, one session per arm, arms interleaved. Each arm's
 * output of every command is checked against raw `bash -c`'s, so an arm
 * that loses output cannot win.
 *
 * @module
 */
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LocalBashExecutor } from "../../local/mod.ts";
import type { BashExecutor } from "../../seam/mod.ts";
import { type SandboxBackendName, SandboxBashExecutor } from "../../sandbox/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import { createBashTools } from "../../tool/mod.ts";
import {
  type BenchCase,
  type BenchContext,
  type CaseResult,
  row,
  type RowHeader,
  skippedRow,
} from "../_case.ts";
import { interleave, interleaveValues } from "../_interleave.ts";
import { type Outcome, pacedSession, session, toolOutcome } from "../_outcome.ts";
import { codexBinary } from "../_node.ts";
import { rawSpawn, rounds, unavailable } from "./_spawn.ts";
import { bareBwrapWrite, protectedMounts } from "./sandbox_walk.ts";

/** The session: what an agent's transcript runs, in order (the repository is left as found). */
export const SESSION: readonly string[] = [
  "git status --short",
  "git log --oneline -n 10",
  "git diff --stat HEAD~3",
  "ls",
  "ls -la sandbox/protected",
  "cat deno.json",
  "head -60 README.md",
  "sed -n 1,80p sandbox/protected/_walk.ts",
  "rg -n 'export function' engine --sort path | head -40",
  "rg -l 'ProtectedPaths' --sort path",
  "grep -rn 'class ' sandbox/protected | sort",
  "wc -l sandbox/protected/*.ts",
  "find sandbox -name '*.ts' | sort | head -80",
  "cat sandbox/protected/mod.ts",
  "git log -n 3 --stat",
  "git show --stat HEAD",
  "rg -n 'TODO|FIXME' --sort path | head -20",
  "python3 -c 'import json; print(json.dumps({\"sum\": sum(range(10**5))}))'",
  "node -e 'console.log([1, 2, 3].map((x) => x * 2).join(\",\"))'",
  "printf 'const a = 1;\\nconst b = 2;\\n' > scratch.ts && cat scratch.ts",
  "sed -i 's/const b = 2/const b = 3/' scratch.ts && cat scratch.ts",
  "git status --short",
  "diff <(printf 'const a = 1;\\n') <(head -1 scratch.ts) && echo same",
  "ls no-such-file",
  "seq 1 30000",
  "sleep 0.05 & sleep 0.05 & wait; echo both done",
  "(echo one; sleep 0.05) & wait; echo waited",
  "head -c 2000 sandbox/_confiner.ts",
  "tail -30 sandbox/protected/_sweep.ts",
  "rg -c 'import' sandbox/protected --sort path",
  "git blame -L 1,10 sandbox/protected/_walk.ts | cut -c1-8 | sort -u | wc -l",
  "cat node_modules/left-pad/package.json",
  'node -e \'console.log(require("./node_modules/left-pad")("7", 3, "0"))\'',
  "python3 -c 'import os; print(sorted(os.listdir(\"sandbox/protected\"))[:5])'",
  "grep -c '' README.md",
  "awk 'NR<=5' deno.json",
  "git diff",
  "git rev-parse --abbrev-ref HEAD",
  "env | grep -c '^PATH='",
  "test -d .git && echo repo",
  "rm scratch.ts && git status --short",
  "echo done",
];

/**
 * A clone of this repository (made once, in the cache) with an npm package
 * beside it in `node_modules/`; returns its path.
 */
async function clonedRepository(context: BenchContext): Promise<string> {
  const path = join(context.cacheDir, "agent-repo");
  if (!existsSync(join(path, ".git"))) {
    const source = new URL("../..", import.meta.url).pathname;
    const { code } = await rawSpawn("git", ["clone", "--quiet", "--local", source, path]);
    if (code !== 0) throw new Error(`git clone of ${source} failed with exit code ${code}`);
  }
  const pkg = join(path, "node_modules", "left-pad");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "package.json"), '{ "name": "left-pad", "version": "1.3.0" }\n');
  writeFileSync(
    join(pkg, "index.js"),
    "module.exports = (s, n, c) => String(s).padStart(n, c);\n",
  );
  // What a session stopped midway left (the edit's scratch file) would change every output.
  rmSync(join(path, "scratch.ts"), { force: true });
  return realpathSync(path);
}

/** `program args` in `cwd` (with `env` added), spawned raw; resolves with its outcome. */
async function rawCommand(
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Outcome> {
  const { code, stdout } = await new Deno.Command(program, {
    args,
    cwd,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, stdout: new TextDecoder().decode(stdout) };
}

/** The median of a session's samples, `ms`, per command, in words. */
function perCommand(ms: readonly number[]): string {
  const median = [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
  return `${(median / SESSION.length).toFixed(1)} ms a command`;
}

/** The bash tool over `executor`, one command at a time. */
function toolRunner(executor: BashExecutor, tasks: TaskRegistry) {
  const { bash } = createBashTools({ executor, tasks, owner: taskOwner("bench") });
  return async (command: string): Promise<Outcome> => {
    const result = await bash.execute({ command, description: "agent session" });
    return toolOutcome(result.text);
  };
}

/**
 * The pause before each command of the paced session: an agent's turn
 * between its commands (seconds of a model's reply), shortened to keep the
 * bench short; long enough for a standby to be set up ahead (see
 * `sandbox/_standby.ts`).
 */
const PAUSE_MS = 250;

const HEADERS = {
  local: {
    id: "agent-session-local",
    what:
      `the bash tool over LocalBashExecutor: a session of ${SESSION.length} agent commands in a clone of this repository`,
    baseline: "the same commands, each a raw bash -c",
    unit: "ms",
    goal: 1.1,
    better: "lower",
  },
  bwrap: {
    id: "agent-session-bwrap",
    what: `the bash tool over bwrap (workspace-write, network deny): the same session`,
    baseline: "the same commands, each through a bare bwrap with the same mounts",
    unit: "ms",
    goal: 1.15,
    better: "lower",
  },
  bwrapPaced: {
    id: "agent-session-bwrap-paced",
    what: `the bash tool over bwrap (workspace-write, network deny): the same session, ` +
      `${PAUSE_MS} ms between commands (an agent's turn, untimed)`,
    baseline: "the same commands, each through a bare bwrap with the same mounts, the same pauses",
    unit: "ms",
    goal: 1.15,
    better: "lower",
  },
  landlock: {
    id: "agent-session-landlock",
    what: `the bash tool over Landlock (workspace-write, network deny): the same session`,
    baseline: "the same commands, each through a bare bwrap with the same mounts",
    unit: "ms",
    goal: 1.3,
    better: "lower",
  },
  codex: {
    id: "agent-session-vs-codex",
    what: `the bash tool over bwrap (workspace-write, network deny): the same session`,
    baseline:
      "the same commands, each through codex sandbox (@openai/codex, workspace-write, network denied)",
    unit: "ms",
    goal: 0.5,
    better: "lower",
  },
  srt: {
    id: "agent-session-vs-srt",
    what: `the bash tool over bwrap (workspace-write, network deny), under Node: the same session`,
    baseline:
      "the same commands, each through sandbox-runtime in the same Node process (@anthropic-ai/sandbox-runtime, workspace writable, network denied)",
    unit: "ms",
    goal: 0.5,
    better: "lower",
  },
} satisfies Record<string, RowHeader>;

/** A sandboxed executor on `backend` in `workspace`, or why it cannot run here. */
async function sandboxedIn(
  workspace: string,
  backend: SandboxBackendName,
): Promise<SandboxBashExecutor | { unavailable: string }> {
  const executor = new SandboxBashExecutor({
    workspaceRoot: workspace,
    backends: [backend],
    defaultMode: "workspace-write",
    network: "deny",
  });
  const [status] = await executor.probeBackends();
  if (status?.works) return executor;
  await executor[Symbol.asyncDispose]();
  return { unavailable: `the ${backend} backend does not work here: ${status?.reason}` };
}

/**
 * The session through the bash tool over bwrap and through sandbox-runtime,
 * both in one Node process (`bench/node/runner.ts`), as a row.
 */
async function srtSession(
  context: BenchContext,
  repo: string,
  floor: readonly Outcome[],
): Promise<CaseResult> {
  const node = await context.node();
  if ("unavailable" in node) return skippedRow(HEADERS.srt, node.unavailable);
  // On a file: the floor's outputs are over what one argument may hold.
  const floorFile = join(context.cacheDir, "agent-session-floor.json");
  writeFileSync(floorFile, JSON.stringify(floor));
  const answer = await node.run({
    kind: "srt-session",
    workspace: repo,
    commands: SESSION,
    floorFile,
    ...rounds(context, { warmup: 1, iterations: 3 }, { warmup: 0, iterations: 1 }),
  });
  const { ours, srt } = answer.samples;
  return ours === undefined || srt === undefined
    ? skippedRow(HEADERS.srt, answer.unavailable?.srt ?? "sandbox-runtime gave no samples")
    : row(HEADERS.srt, ours, srt);
}

/**
 * The session over bwrap and over a bare bwrap, `PAUSE_MS` before each
 * command, as a row: with the time an agent's turn gives, a call runs in a
 * standby whose sandbox was set up ahead. `bwrap` is the bwrap arm's
 * executor, when there is one.
 */
async function pacedSamples(
  arms: Record<string, unknown>,
  skipped: Record<string, string>,
  bwrap: SandboxBashExecutor | undefined,
  tasks: TaskRegistry,
  repo: string,
  floor: readonly Outcome[],
  context: BenchContext,
): Promise<CaseResult> {
  if (arms.bwrap === undefined || arms.bare === undefined || bwrap === undefined) {
    return skippedRow(HEADERS.bwrapPaced, skipped.bwrap ?? "no bwrap arm here");
  }
  const mounts = protectedMounts(repo);
  const samples = await interleaveValues(
    {
      bwrap: pacedSession(
        "the paced bash tool over bwrap",
        SESSION,
        toolRunner(bwrap, tasks),
        floor,
        PAUSE_MS,
      ),
      bare: pacedSession(
        "the paced bare bwrap",
        SESSION,
        (command) => rawCommand("bwrap", bareBwrapWrite(repo, mounts, command), repo),
        floor,
        PAUSE_MS,
      ),
    },
    rounds(context, { warmup: 1, iterations: 3 }, { warmup: 0, iterations: 1 }),
  );
  return row(HEADERS.bwrapPaced, samples.bwrap!, samples.bare!, {
    note: `bwrap: ${perCommand(samples.bwrap!)}; bare: ${
      perCommand(samples.bare!)
    } (pauses left out)`,
  });
}

/**
 * `codex sandbox` in the mode of our arms: the working folder writable, the
 * network denied (its default mode is read-only, where the session's edit fails).
 */
const CODEX_WRITE: readonly string[] = ["sandbox", "-c", 'sandbox_mode="workspace-write"', "--"];

/** `agent-session`: the session over each arm against its floor, in one interleaved run. */
export const agentSession: BenchCase = {
  ids: Object.values(HEADERS).map((header) => header.id),
  async run(context) {
    const repo = await clonedRepository(context);
    const raw = (command: string) => rawCommand("bash", ["-c", command], repo);
    const floor: Outcome[] = [];
    for (const command of SESSION) floor.push(await raw(command));
    await using tasks = new TaskRegistry();
    await using local = new LocalBashExecutor({ cwd: repo });
    const arms: Record<string, () => Promise<void>> = {
      raw: session("raw bash -c", SESSION, raw, floor),
      local: session("the bash tool over local", SESSION, toolRunner(local, tasks), floor),
    };
    const skipped: Record<string, string> = {};
    const bwrapMissing = await unavailable("bwrap");
    const executors: SandboxBashExecutor[] = [];
    try {
      for (const backend of ["bwrap", "landlock"] as const) {
        const executor = bwrapMissing === undefined
          ? await sandboxedIn(repo, backend)
          : { unavailable: bwrapMissing };
        if ("unavailable" in executor) skipped[backend] = executor.unavailable;
        else {
          executors.push(executor);
          arms[backend] = session(
            `the bash tool over ${backend}`,
            SESSION,
            toolRunner(executor, tasks),
            floor,
          );
        }
      }
      if (bwrapMissing === undefined) {
        const mounts = protectedMounts(repo);
        arms.bare = session(
          "bare bwrap",
          SESSION,
          (command) => rawCommand("bwrap", bareBwrapWrite(repo, mounts, command), repo),
          floor,
        );
      }
      // The peers (codex among them) are installed with the Node side: before looking for it.
      const node = await context.node();
      const codex = codexBinary();
      if (codex === undefined) {
        skipped.codex = "unavailable" in node
          ? node.unavailable
          : "@openai/codex is not installed in bench/node (npm ci there)";
      } else {
        const home = join(context.cacheDir, "codex-home");
        mkdirSync(home, { recursive: true });
        arms.codex = session(
          "codex sandbox",
          SESSION,
          (command) =>
            rawCommand(codex, CODEX_WRITE.concat("bash", "-c", command), repo, {
              CODEX_HOME: home,
            }),
          floor,
        );
      }
      const samples = await interleave(
        arms,
        rounds(context, { warmup: 1, iterations: 5 }, { warmup: 0, iterations: 1 }),
      );
      const against = (
        header: RowHeader,
        arm: string,
        base: string,
      ) =>
        samples[arm] === undefined || samples[base] === undefined
          ? skippedRow(header, skipped[arm] ?? skipped.bwrap ?? `no ${base} arm here`)
          : row(header, samples[arm]!, samples[base]!, {
            note: `${arm}: ${perCommand(samples[arm]!)}; ${base}: ${perCommand(samples[base]!)}`,
          });
      const paced = await pacedSamples(arms, skipped, executors[0], tasks, repo, floor, context);
      const srt = await srtSession(context, repo, floor);
      return [
        srt,
        against(HEADERS.local, "local", "raw"),
        against(HEADERS.bwrap, "bwrap", "bare"),
        paced,
        against(HEADERS.landlock, "landlock", "bare"),
        samples.codex === undefined
          ? skippedRow(HEADERS.codex, skipped.codex ?? skipped.bwrap ?? "no codex arm here")
          : against(HEADERS.codex, "bwrap", "codex"),
      ];
    } finally {
      for (const executor of executors) await executor[Symbol.asyncDispose]();
    }
  },
};
