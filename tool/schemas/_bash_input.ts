import type { SandboxMode } from "../../seam/mod.ts";
import { terminalCells } from "./_task_inputs.ts";
import { describeMode } from "./_modes.ts";
import type { JsonSchemaProperty, ObjectJsonSchema } from "./_json_schema.ts";
import { NON_BLANK_PATTERN, type ValidateOptions } from "./_validate.ts";

/**
 * What shapes the `bash` input schema: the executor's default sandbox mode
 * (`undefined` for an executor that does not sandbox), whether background
 * runs are offered, and the executor's time limits when known.
 *
 * @example
 * ```ts
 * import type { BashSchemaOptions } from "./_bash_input.ts";
 *
 * import assert from "node:assert/strict";
 *
 * const options: BashSchemaOptions = {
 *   escalationModes: ["workspace-write"],
 *   runInBackground: true,
 * };
 * assert.deepEqual(options.escalationModes, ["workspace-write"]);
 * ```
 */
export interface BashSchemaOptions {
  /**
   * The modes a call may ask for with `sandbox_permissions`: those wider than
   * the executor's default, and only when a person can approve them (empty
   * otherwise, and then the field is not offered).
   */
  escalationModes: readonly SandboxMode[];
  /** Offer `run_in_background`. */
  runInBackground: boolean;
  /** Offer `terminal` (a background command in a pseudo-terminal, typed into with `task_input`). */
  terminal?: boolean;
  /**
   * The executor's time limits in milliseconds: the default, and the most a
   * call may ask for (`undefined` when it sets none). Named in the
   * `timeout_ms` description; `maxMs` becomes its `maximum`.
   */
  timeouts?: { defaultMs: number; maxMs: number | undefined };
}

/**
 * Builds the `bash` tool's input schema. `command` and `description` are
 * required; `timeout_ms` (at most `timeouts.maxMs` when given) and `workdir`
 * are optional; `run_in_background` appears when background runs are
 * offered; `sandbox_permissions` (the `escalationModes`) and `justification`
 * appear only when there is a mode to offer (a sandboxing executor with a
 * wider mode, and an approver to ask). There is never an `env`, `stdin` or `stdoutMaxBytes`
 * field.
 *
 * @example
 * ```ts
 * import { bashInputSchema } from "./_bash_input.ts";
 * import assert from "node:assert/strict";
 *
 * const plain = bashInputSchema({ escalationModes: [], runInBackground: true });
 * assert.deepEqual(Object.keys(plain.properties), [
 *   "command", "description", "timeout_ms", "workdir", "run_in_background",
 * ]);
 * const sandboxed = bashInputSchema({
 *   escalationModes: ["workspace-write", "danger-full-access"],
 *   runInBackground: false,
 *   timeouts: { defaultMs: 120_000, maxMs: 600_000 },
 * });
 * assert.deepEqual(sandboxed.properties.sandbox_permissions?.enum, [
 *   "workspace-write", "danger-full-access",
 * ]);
 * assert.equal(sandboxed.properties.timeout_ms?.maximum, 600_000);
 * ```
 */
export function bashInputSchema(options: BashSchemaOptions): ObjectJsonSchema {
  const properties: Record<string, JsonSchemaProperty> = {
    command: {
      type: "string",
      pattern: NON_BLANK_PATTERN,
      description:
        "The bash command to run. It runs as `bash -c <command>` in a fresh non-interactive shell with no terminal and empty stdin; chain dependent steps with &&.",
    },
    description: {
      type: "string",
      pattern: NON_BLANK_PATTERN,
      description:
        'What the command does, in 5-10 words of active voice, such as "Run the unit tests". Shown to the user.',
    },
    timeout_ms: timeoutProperty(options),
    workdir: {
      type: "string",
      pattern: NON_BLANK_PATTERN,
      description:
        "Directory to run in. A relative path resolves against the session's working directory, which is the default. Use it instead of cd.",
    },
  };
  if (options.runInBackground) {
    properties.run_in_background = {
      type: "boolean",
      description:
        "Start the command and reply at once with its task id, for servers, watchers and long builds. No time limit applies; read its output with task_output and stop it with task_kill.",
    };
  }
  if (options.terminal === true) {
    properties.terminal = {
      type: "boolean",
      description:
        "Run the command in the background in a terminal (24 rows by 80 columns unless rows and cols say) and reply with its task id and first screen. Use it for programs that need a terminal or ask questions: REPLs (python3, node, psql), debuggers, prompts (y/N, npm init), full-screen programs (vi, less, top). Type into it with task_input; no time limit applies.",
    };
    properties.rows = terminalCells("With terminal: true, the terminal's rows (default 24).");
    properties.cols = terminalCells(
      "With terminal: true, the terminal's columns (default 80); more for wide tables.",
    );
  }
  const wider = options.escalationModes;
  if (wider.length > 0) {
    properties.sandbox_permissions = {
      type: "string",
      enum: [...wider],
      description: `Run this one command under a wider sandbox mode: ${
        wider.map(describeMode).join(" or ")
      }. A person approves or rejects the call, so give a justification too. Use it only after the sandbox blocked a command that needs that access.`,
    };
    properties.justification = {
      type: "string",
      pattern: NON_BLANK_PATTERN,
      description:
        "Required with sandbox_permissions: one sentence for the person who approves, saying why this command needs that access.",
    };
  }
  return {
    type: "object",
    properties,
    required: ["command", "description"],
    additionalProperties: false,
  };
}

function timeoutProperty(options: BashSchemaOptions): JsonSchemaProperty {
  const { timeouts, runInBackground } = options;
  const sentences = [
    "Time limit in milliseconds. When it runs out the command is stopped and the result says [timed out after N ms].",
  ];
  if (!timeouts) {
    sentences.push("The executor sets the default and may cap it.");
  } else {
    sentences.push(`Defaults to ${timeouts.defaultMs}.`);
    if (timeouts.maxMs !== undefined) sentences.push(`At most ${timeouts.maxMs}.`);
  }
  if (runInBackground) {
    sentences.push("Not allowed with run_in_background, which suits longer work.");
  }
  const property: JsonSchemaProperty = {
    type: "integer",
    minimum: 1,
    description: sentences.join(" "),
  };
  if (timeouts?.maxMs !== undefined) property.maximum = timeouts.maxMs;
  return property;
}

/** Fields the `bash` tool never takes, each with what to do instead. */
const NEVER_ACCEPTED: Readonly<Record<string, string>> = {
  env: "set variables inside the command instead (FOO=bar cmd, or export FOO=bar && cmd)",
  stdin: "feed input inside the command instead (a heredoc, or printf '...' | cmd)",
  stdoutMaxBytes: "long output is truncated and saved to a file named in the result",
  cwd: "use workdir",
  timeout: "use timeout_ms, in milliseconds",
};

/**
 * What `bash` refuses beyond its schema: fields it never takes (each with a
 * hint saying what to do instead), and pairs that do not go together.
 *
 * @example
 * ```ts
 * import { BASH_CHECKS, bashInputSchema, validateToolArguments } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const schema = bashInputSchema({ escalationModes: [], runInBackground: true });
 * const check = validateToolArguments("bash", schema, { command: "ls", description: "List", cwd: "/" }, BASH_CHECKS);
 * assert.equal(check.ok, false);
 * assert.match(check.ok ? "" : check.message, /cwd.*use workdir/);
 * ```
 */
export const BASH_CHECKS: ValidateOptions = {
  hints: NEVER_ACCEPTED,
  refine: (value) => {
    const problems: string[] = [];
    if (value.terminal === true && value.timeout_ms !== undefined) {
      problems.push(
        "timeout_ms does not apply with terminal: a terminal's command runs until it exits or task_kill stops it; drop one of the two",
      );
    }
    if (value.terminal !== true && (value.rows !== undefined || value.cols !== undefined)) {
      problems.push(
        "rows and cols are the size of a terminal: add terminal: true, or drop them",
      );
    }
    if (value.terminal === true && value.run_in_background === false) {
      problems.push(
        "terminal runs the command in the background: drop run_in_background: false",
      );
    }
    if (value.run_in_background === true && value.timeout_ms !== undefined) {
      problems.push(
        "timeout_ms does not apply with run_in_background: a background command runs until it exits or task_kill stops it; drop one of the two",
      );
    }
    if ((value.sandbox_permissions === undefined) !== (value.justification === undefined)) {
      problems.push(
        "sandbox_permissions and justification go together: give both to ask for wider access, or neither",
      );
    }
    return problems;
  },
};
