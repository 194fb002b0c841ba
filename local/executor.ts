import { buildEngine, EngineBashExecutor, type LocalBashExecutorConfig } from "../engine/mod.ts";
import { unconfined } from "./_unconfined.ts";

/**
 * Runs bash commands on this machine: `bash -c <command>`, non-login, one
 * fresh shell per call, each in a new session and process group, with a
 * scrubbed environment, bounded output (head + tail in memory, the whole
 * stream in a spill file), wall and idle clocks, abort, and a sweep that
 * leaves no process of a command behind (except one that called setsid
 * itself: a documented gap that the sandbox's pid namespace closes). A
 * watchdog process per executor kills every command, and removes the
 * private folder, when this process dies, however it dies.
 *
 * It is the engine with a confiner that confines nothing (its methods are
 * {@linkcode EngineBashExecutor}'s); `SandboxBashExecutor` is the same
 * engine with the sandbox's.
 *
 * @example Run a command, on Deno and Node 24 (`await using`)
 * ```ts
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * const result = await executor.run({ command: "echo hi; echo oops >&2; exit 3" });
 * assert.equal(result.stdout.text, "hi\n");
 * assert.equal(result.stderr.text, "oops\n");
 * assert.equal(result.exitCode, 3);
 * ```
 *
 * @example Start a background command and read its output, on Deno and Node 24 (`await using`)
 * ```ts
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor();
 * const process = await executor.start({ command: "cat", keepStdinOpen: true });
 * await process.write("ping\n");
 * await process.closeStdin();
 * await process.done;
 * assert.equal(process.readOutput().stdout.text, "ping\n");
 * assert.equal(process.status, "completed");
 * ```
 */
export class LocalBashExecutor extends EngineBashExecutor {
  /**
   * Validates the config (throws `BashConfigError` naming the field) and resolves bash once.
   *
   * @example A confined policy is refused, on Deno and Node 24 (`await using`)
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import { BashConfigError } from "@shellseam/bash/seam";
   * import assert from "node:assert/strict";
   *
   * assert.throws(() => new LocalBashExecutor({ killGraceMs: -1 }), BashConfigError);
   * await using executor = new LocalBashExecutor();
   * const confined = { mode: "read-only", workspaceRoot: "/tmp", network: "deny" } as const;
   * assert.throws(() => executor.resolve({ command: "ls", sandboxPolicy: confined }), BashConfigError);
   * ```
   */
  constructor(config: LocalBashExecutorConfig = {}) {
    super();
    buildEngine(this, config, unconfined);
  }
}
