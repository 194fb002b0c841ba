import { SshBashExecutor } from "../../remote/mod.ts";
import { runtime } from "../../runtime/mod.ts";
import { type BenchCase, row, type RowHeader, skippedRow } from "../_case.ts";
import { interleave } from "../_interleave.ts";
import { sshdMissing, startSshd } from "../../tests/remote/_sshd.ts";
import { rounds } from "./_spawn.ts";

const HEADER: RowHeader = {
  id: "ssh-run-true",
  what: 'SshBashExecutor run("true") over its multiplexed connection to a throwaway sshd on ' +
    "127.0.0.1 (bootstrap, framing, census, output collection)",
  baseline: "bare ssh -o ControlPath=... host true over the same master connection",
  unit: "ms",
  goal: null,
  better: "lower",
};

/** Runs the bare `ssh` invocation once and checks that it succeeded. */
async function bareSsh(program: string, args: string[]): Promise<void> {
  const child = await runtime.spawn({
    program,
    args,
    cwd: "/",
    env: {},
    stdin: "null",
    session: "detached",
  });
  const [, stderr, exit] = await Promise.all([
    new Response(child.stdout).arrayBuffer(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (exit.code !== 0) throw new Error(`bare ssh failed: ${stderr}`);
}

/**
 * `ssh-run-true`: what the SSH executor adds to a command over a bare `ssh`
 * through the same master connection (both pay the channel's opening).
 */
export const sshRunTrue: BenchCase = {
  ids: [HEADER.id],
  async run(context) {
    if (sshdMissing !== false) return [skippedRow(HEADER, sshdMissing)];
    const sshd = await startSshd();
    try {
      await using executor = new SshBashExecutor({ ...sshd.config, cwd: "/tmp" });
      const spec = executor.resolve({ command: "true" });
      await executor.run(spec); // opens the master connection
      // The bare ssh, without the setsid the executor starts it through (it needs no session).
      const command = executor.transport.command("true");
      const [program, ...args] = command.session === "setsid-binary"
        ? command.args
        : [command.program, ...command.args];
      const samples = await interleave({
        ours: () => executor.run(spec),
        raw: () => bareSsh(program!, args),
      }, rounds(context, { warmup: 3, iterations: 30 }, { warmup: 1, iterations: 3 }));
      return [row(HEADER, samples.ours ?? [], samples.raw ?? [])];
    } finally {
      await sshd.dispose();
    }
  },
};
