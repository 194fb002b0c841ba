// Runs the SSH executor under the Deno permissions it is given, for the permissions test:
// argv is the executor config as JSON and a workspace folder on the remote host; it runs a
// command, a background process it kills, and a confined command, then prints one JSON line:
// what they gave, or the error's name and message.
import process from "node:process";
import { SshBashExecutor } from "../../remote/mod.ts";

const [config, workspace] = process.argv.slice(2);
try {
  await using executor = new SshBashExecutor({ ...JSON.parse(config!), cwd: workspace });
  const run = await executor.run(executor.resolve({ command: "echo ran; exit 3" }));
  // A process that left the command's session and dropped its marker keeps the channel open:
  // its ssh client is ended.
  const escaped = await executor.run(executor.resolve({
    command: "env -u SHELLSEAM_WATCHDOG setsid sleep 2 & echo left",
  }));
  const task = await executor.start(executor.resolve({ command: "sleep 30" }));
  const killed = await task.kill();
  const confined = await executor.run(executor.resolve({
    command: "echo in > inside.txt; echo out > /etc/shellseam-perm-test",
    sandboxPolicy: { mode: "workspace-write", workspaceRoot: workspace!, network: "deny" },
    limits: { cpuSeconds: 60 },
  }));
  process.stdout.write(
    JSON.stringify({
      session: executor.transport.command("true").session,
      stdout: run.stdout.text,
      exitCode: run.exitCode,
      killed,
      escaped: escaped.stdout.text,
      confined: {
        exitCode: confined.exitCode,
        denial: confined.sandbox?.denial ?? null,
        stderr: confined.stderr.text,
      },
    }) + "\n",
  );
} catch (error) {
  const { name, message } = error as Error;
  process.stdout.write(JSON.stringify({ name, message }) + "\n");
}
