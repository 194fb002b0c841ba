// An agent whose environment points the dynamic loader into its workspace:
// run as a script (as root or as nobody) by sandbox_loader_env_test.ts, it
// sets LD_LIBRARY_PATH and LD_PRELOAD in its own environment before it
// makes the executor (so this Deno process itself loads nothing planted),
// then runs one confined command and prints what it saw as JSON.
import process from "node:process";
import { type SandboxBackendName, SandboxBashExecutor } from "../../sandbox/mod.ts";

const [backend, workspace, libDir, preload] = process.argv.slice(2) as [
  SandboxBackendName,
  string,
  string,
  string,
];
process.env.LD_LIBRARY_PATH = libDir;
process.env.LD_PRELOAD = preload;
await using executor = new SandboxBashExecutor({
  workspaceRoot: workspace,
  defaultMode: "workspace-write",
  backends: [backend],
});
const results = [];
// Twice: the second launch comes after a command that could have planted.
for (let call = 0; call < 2; call++) {
  const result = await executor.run(executor.resolve({
    command: 'printf "%s|%s" "$LD_LIBRARY_PATH" "$LD_PRELOAD"',
  }));
  results.push({
    exitCode: result.exitCode,
    stdout: result.stdout.text,
    stderr: result.stderr.text,
    backend: result.sandbox?.backend,
  });
}
process.stdout.write(JSON.stringify(results));
