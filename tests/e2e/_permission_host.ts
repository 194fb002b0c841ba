// Runs `echo hi` through the local executor and prints what happened as one
// JSON line, so a test can run it under a given set of Deno permissions.
// Arguments NAME=value are set in the environment first.
import process from "node:process";
import { LocalBashExecutor } from "../../local/mod.ts";

try {
  for (const pair of process.argv.slice(2)) {
    const at = pair.indexOf("=");
    process.env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  await using executor = new LocalBashExecutor();
  const result = await executor.run(executor.resolve({ command: "echo hi" }));
  console.log(JSON.stringify({ stdout: result.stdout.text }));
} catch (error) {
  console.log(JSON.stringify({ name: (error as Error).name, message: (error as Error).message }));
}
