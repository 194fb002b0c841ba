/**
 * What a command of the agent session left, as each arm sees it, and how an
 * arm's outcome is checked against the floor's. Runs under Deno and, by type
 * stripping, under Node (bench/node/runner.ts): erasable TypeScript only.
 *
 * @module
 */
import { readFileSync } from "node:fs";

/** A command's outcome as an arm saw it: exit code and what it wrote to stdout. */
export interface Outcome {
  code: number;
  stdout: string;
}

/**
 * What the bash tool's text says of a command: its exit code, and its
 * stdout (read back from the spill file when the text was truncated).
 */
export function toolOutcome(text: string): Outcome {
  const code = Number(/\[exit code: (\d+)\]\s*$/.exec(text)?.[1] ?? 0);
  const spilled = /\[output truncated: \d+ bytes omitted; full output: (.+)\]/.exec(text)?.[1];
  if (spilled !== undefined) return { code, stdout: readFileSync(spilled, "utf8") };
  const body = text.replace(/\n?\[exit code: \d+\]\s*$/, "").replace(/\n?\[stderr\]\n[\s\S]*$/, "");
  return { code, stdout: body === "(no output)" ? "" : body };
}

/** Whether `got` says what the floor's `want` said (the tool trims one trailing newline). */
export function sameOutcome(got: Outcome, want: Outcome): boolean {
  return got.code === want.code && got.stdout.trimEnd() === want.stdout.trimEnd();
}

/**
 * A session of `run` over every command of `commands`, each outcome checked
 * against `floor`'s (the same command's under raw `bash -c`); `arm` names
 * the arm in the error of an outcome that differs.
 */
export function session(
  arm: string,
  commands: readonly string[],
  run: (command: string) => Promise<Outcome>,
  floor: readonly Outcome[],
): () => Promise<void> {
  const paced = pacedSession(arm, commands, run, floor, 0);
  return async () => {
    await paced();
  };
}

/**
 * `session`, with `pauseMs` before every command (an agent's turn between
 * its commands, untimed): resolves with the milliseconds the commands took,
 * the pauses left out.
 */
export function pacedSession(
  arm: string,
  commands: readonly string[],
  run: (command: string) => Promise<Outcome>,
  floor: readonly Outcome[],
  pauseMs: number,
): () => Promise<number> {
  return async () => {
    let ms = 0;
    for (const [at, command] of commands.entries()) {
      if (pauseMs > 0) await new Promise((done) => setTimeout(done, pauseMs));
      const start = performance.now();
      const got = await run(command);
      ms += performance.now() - start;
      const want = floor[at];
      if (want === undefined || !sameOutcome(got, want)) {
        throw new Error(
          `agent-session: ${arm} lost the output of ${
            JSON.stringify(command)
          }: exit ${got.code}, ` +
            `${JSON.stringify(got.stdout.slice(0, 200))}; raw bash -c: exit ${want?.code}, ` +
            `${JSON.stringify(want?.stdout.slice(0, 200))}`,
        );
      }
    }
    return ms;
  };
}
