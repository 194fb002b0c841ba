// A host for the thread escape test, run as another user: it makes an
// executor (local, bwrap or landlock over <workspace root>, workspace-write),
// runs the command in $ESCAPE_COMMAND once in the root (not an argument: the
// test finds the command's processes by a token in their command lines),
// prints the result as one JSON line, and disposes of the executor only when
// its stdin ends, so the test can look at the process table while the
// executor still lives (disposal would kill what the call left). Arguments:
// <executor> <workspace root>.
import process from "node:process";
import { LocalBashExecutor } from "../../local/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";

const [kind, root] = process.argv.slice(2);
const command = process.env.ESCAPE_COMMAND;
if (kind === undefined || root === undefined || command === undefined) {
  throw new Error(
    "usage: ESCAPE_COMMAND=<command> _thread_escape_host.ts <local|bwrap|landlock> <workspace root>",
  );
}
await using executor = kind === "local"
  ? new LocalBashExecutor({ cwd: root })
  : new SandboxBashExecutor({
    workspaceRoot: root,
    backends: [kind === "landlock" ? "landlock" : "bwrap"],
    defaultMode: "workspace-write",
  });
const result = await executor.run(executor.resolve({ command, workdir: root }));
process.stdout.write(JSON.stringify(result) + "\n");
for await (const _ of process.stdin) {
  // Waits for the end of stdin.
}
