// A host on "macOS", for darwin_simulation_test.ts: the platform reported as
// darwin (so the library reads no /proc; under Deno it runs without
// --allow-all, which refuses /proc anyway), run with a PATH that has no
// setsid and a fake macOS `ps`. It runs the bash tool (a plain command, then
// one that leaves a child in a session of its own with its environment), and
// an executor call of the same, prints what they gave as one JSON line,
// starts a background command that leaves such a child, and waits to be
// killed. Arguments: the digits of <token> and of the background command's.
import process from "node:process";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { LocalBashExecutor, platformFacts, runtime } from "../../local/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import { createBashTools } from "../../tool/mod.ts";

// Without their `313.`, so that this host's own command line carries neither.
const [token, lasting] = process.argv.slice(2).map((digits) => `313.${digits}`) as [string, string];
const escaping = (token: string) =>
  `perl -MPOSIX -e 'POSIX::setsid() >= 0 or die; exec @ARGV or die' sleep ${token} ` +
  ">/dev/null 2>&1 & sleep 0.5; echo started";
const escape = escaping(token);
const executor = new LocalBashExecutor({
  cwd: realpathSync(tmpdir()),
  runtime: { ...runtime, platform: platformFacts("darwin", false) },
});
const tasks = new TaskRegistry();
const { bash } = createBashTools({
  executor,
  tasks,
  owner: taskOwner("mac"),
  workdir: realpathSync(tmpdir()),
});
const texts = [
  (await bash.execute({ command: "echo hi", description: "Echo" })).text,
  (await bash.execute({ command: escape, description: "Escape" })).text,
];
const result = await executor.run(executor.resolve({ command: escape }));
process.stdout.write(
  JSON.stringify({
    strategy: executor.config.sessionStrategy,
    texts,
    stdout: result.stdout.text,
    strays: result.strays,
  }) + "\n",
);
// Left running for the host's death: the watchdog must end it and its escapee.
await executor.start(executor.resolve({ command: `${escaping(lasting)}; sleep ${lasting}` }));
setInterval(() => {}, 60_000);
