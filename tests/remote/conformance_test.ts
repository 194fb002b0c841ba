// The conformance suite against the SSH executor, over a real sshd on 127.0.0.1. The remote
// host is this machine, so the suite's default census of /proc finds leftovers there.
import { after, before, describe } from "node:test";
import { SshBashExecutor } from "../../remote/mod.ts";
import { describeBashExecutorConformance } from "../../testing/mod.ts";
import { sshdMissing, startSshd, type TestSshd } from "./_sshd.ts";

let sshd: TestSshd | undefined;

describe("over a real sshd", () => {
  before(async () => {
    if (sshdMissing === false) sshd = await startSshd();
  });
  after(() => sshd?.dispose());
  describeBashExecutorConformance(
    "SshBashExecutor",
    (options) => new SshBashExecutor({ ...sshd!.config, cwd: "/tmp", ...options }),
    {
      skip: sshdMissing,
    },
  );
});
