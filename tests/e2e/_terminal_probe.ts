// A terminal as the user who runs this script (the terminal e2e runs it as
// nobody): for each executor given (local, bwrap, landlock), a prompt answered, a
// resize seen by the program, and after a kill none of its processes alive.
// Prints one JSON line per executor. Arguments: <workspace> <executor...>.
import process from "node:process";
import { LocalBashExecutor } from "../../local/mod.ts";
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import type { BashExecutor } from "../../seam/mod.ts";
import { alive, processTree, TerminalWatch } from "../_terminal.ts";

const [workspace, ...kinds] = process.argv.slice(2) as [string, ...string[]];
for (const kind of kinds) {
  const executor: BashExecutor & AsyncDisposable = kind === "local"
    ? new LocalBashExecutor()
    : new SandboxBashExecutor({
      workspaceRoot: workspace,
      backends: [kind === "landlock" ? "landlock" : "bwrap"],
      defaultMode: "workspace-write",
    });
  try {
    const running = await executor.start({
      command: "trap 'echo cols=$(tput cols)' WINCH; id -un; [ -t 0 ] && echo tty; " +
        "read -p 'go? ' a; echo got=$a; while :; do sleep 0.05; done",
      terminal: { rows: 24, cols: 80 },
      workdir: workspace,
    });
    const watch = new TerminalWatch(running);
    await watch.until(/go\? /);
    await running.write("y\r");
    await watch.until(/got=y/);
    const tree = processTree(running.pid);
    await running.resize(30, 123);
    await watch.until(/cols=123/);
    await running.kill();
    process.stdout.write(
      `${JSON.stringify({ kind, text: watch.text, tree: tree.length, alive: alive(tree) })}\n`,
    );
  } finally {
    await executor[Symbol.asyncDispose]();
  }
}
