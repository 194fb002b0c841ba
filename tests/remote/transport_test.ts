// The ssh transport's look at its control socket: a look that fails for
// another reason than "not there" is a typed error before any ssh starts,
// never taken for a socket not there yet (which would wait out the connect
// timeout, or start a master whose socket cannot be made).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BashSpawnError } from "../../seam/mod.ts";
import { SshTransport } from "../../remote/mod.ts";

describe("the ssh transport's control socket", () => {
  it("fails typed, naming the socket and why, when its private folder is not a folder", async () => {
    const base = mkdtempSync(join(tmpdir(), "shellseam-transport-"));
    try {
      const dir = join(base, "private");
      writeFileSync(dir, "a file where the private folder should be\n");
      const transport = new SshTransport({
        // Never run: the look at the socket comes first.
        ssh: join(base, "no-ssh-here"),
        host: "build-1",
        hostKeyChecking: "strict",
        configFile: null,
        options: [],
        connectTimeoutSeconds: 30,
        maxChannels: 10,
        dir,
        keepDir: true,
      });
      try {
        await assert.rejects(transport.connect(), (error: unknown) => {
          assert.ok(error instanceof BashSpawnError, String(error));
          assert.match(error.message, /control socket ".*\/private\/control" \(.*ENOTDIR/);
          return true;
        });
      } finally {
        await transport.close();
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
