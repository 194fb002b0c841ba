// A host process for the SSH host-death tests: it starts commands through an
// SshBashExecutor, prints its control socket and private folder as one JSON
// line, and waits to be killed. Arguments: <config as JSON> <token> [mode], where
// mode "hook" makes it call killOnSignals() first.
import process from "node:process";
import { dirname } from "node:path";
import { SshBashExecutor } from "../../remote/mod.ts";

const [config, token, mode] = process.argv.slice(2);
const executor = new SshBashExecutor({ ...JSON.parse(config!), cwd: "/tmp" });
if (mode === "hook") executor.killOnSignals();
await executor.start(executor.resolve({ command: `sleep ${token} & sleep ${token}` }));
const running = executor.run(executor.resolve({ command: `sleep ${token}` }));
const { controlPath } = executor.transport;
process.stdout.write(JSON.stringify({ controlPath, folder: dirname(controlPath) }) + "\n");
await running;
