// A host process for the host-death tests: it starts commands through an
// executor, prints its private folder as one JSON line, and waits to be
// killed. Arguments: <executor: local | bwrap | landlock> <token> [hook],
// where "hook" makes it call killOnSignals().
import process from "node:process";
import { tmpdir } from "node:os";
import { LocalBashExecutor } from "../../local/mod.ts";
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

const [kind, token, hook] = process.argv.slice(2);
const executor = kind === "local" ? new LocalHost() : new SandboxHost({
  workspaceRoot: tmpdir(),
  backends: [kind === "landlock" ? "landlock" : "bwrap"],
});
if (hook === "hook") executor.killOnSignals();
await executor.start(executor.resolve({ command: `sleep ${token} & sleep ${token}` }));
const running = executor.run(executor.resolve({ command: `sleep ${token}` }));
process.stdout.write(JSON.stringify({ folder: await executor.folder() }) + "\n");
await running;
