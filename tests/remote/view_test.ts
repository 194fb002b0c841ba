// The remote filesystem view that the sandbox plans its masks over: parsed from the probe's
// records, and refusing (never guessing "missing") when asked about a path it was not told of;
// and the probe itself, run here by bash as the remote host runs it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseView, viewProbe } from "../../remote/_view.ts";
import { BashSpawnError } from "../../seam/mod.ts";
import { secretMasks } from "../../sandbox/backends/mod.ts";

const record = (...words: string[]): string => words.map((word) => `${word}\0`).join("");

describe("parseView", () => {
  const output = record("H", "/home/agent") +
    record("F", "~/.ssh", "/home/agent/.ssh", "d") +
    record("F", "~/.ssh/keys", "/data/keys", "d") +
    record("F", "~/.netrc", "", "-") +
    record("D", "/home/agent/.ssh") +
    record("L", "/home/agent/.ssh", "id_ed25519", "/home/agent/.ssh/id_ed25519", "f") +
    record("L", "/home/agent/.ssh", "keys", "/data/keys", "d");
  const view = parseView("build-1", output);

  it("reads the home, canonical paths (with ~ expanded by the remote home) and listings", () => {
    assert.equal(view.home, "/home/agent");
    assert.equal(view.realpath("/home/agent/.ssh/keys"), "/data/keys");
    assert.equal(view.realpath("/home/agent/.netrc"), undefined);
    assert.deepEqual(view.fs.list("/home/agent/.ssh"), ["id_ed25519", "keys"]);
    assert.equal(view.fs.isDirectory("/data/keys"), true);
  });

  it("lets secretMasks plan over it as over the local filesystem", () => {
    const masks = secretMasks(["~/.ssh", "~/.netrc"], ["~/.ssh/keys"], view.home, [], view.fs);
    // ~/.ssh/keys names /data/keys, which is not beneath ~/.ssh: the folder is masked whole.
    assert.deepEqual(masks, [{ path: "/home/agent/.ssh", directory: true, kind: "secret" }]);
  });

  it("refuses a path it has no facts about, rather than call it missing", () => {
    assert.throws(() => view.realpath("/home/agent/.aws"), BashSpawnError);
    assert.throws(() => view.fs.list("/data/keys"), BashSpawnError);
  });

  it("refuses output that is not the probe's", () => {
    assert.throws(
      () => parseView("build-1", "bash: realpath: command not found\n"),
      BashSpawnError,
    );
    assert.throws(() => parseView("build-1", record("H", "/h") + record("Q", "x")), BashSpawnError);
  });
});

describe("viewProbe", () => {
  // It ran a realpath process for every path a policy names, most of which do not exist (the
  // default denyRead and protected paths): about 40 processes before each confined command.
  it("runs realpath only for the paths that exist, and names the others missing", () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-view-probe-"));
    try {
      const home = join(dir, "home");
      mkdirSync(join(home, ".ssh"), { recursive: true });
      symlinkSync(join(home, ".ssh"), join(home, ".gnupg"));
      symlinkSync(join(dir, "nowhere"), join(home, ".npmrc"));
      symlinkSync(".pypirc", join(home, ".pypirc"));
      mkdirSync(join(dir, "folder"));
      // A realpath that writes down each path it is asked about, then runs the real one.
      const bin = join(dir, "bin");
      mkdirSync(bin);
      writeFileSync(
        join(bin, "realpath"),
        `#!/bin/bash\nprintf '%s\\n' "\${@: -1}" >>${dir}/asked\nexec /usr/bin/realpath "$@"\n`,
      );
      chmodSync(join(bin, "realpath"), 0o755);
      const paths = ["~/.ssh", "~/.gnupg", "~/.npmrc", "~/.pypirc", "~/.aws", "/no/such/path"];
      const argv = viewProbe("/bin/bash", join(dir, "folder"), paths.map((path) => ["deny", path]));
      const probe = spawnSync(argv[0]!, argv.slice(1), {
        env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home },
        encoding: "utf8",
      });
      assert.equal(probe.status, 0, probe.stderr);
      const view = parseView("build-1", probe.stdout);
      assert.deepEqual(readFileSync(join(dir, "asked"), "utf8").split("\n").filter(Boolean), [
        join(home, ".ssh"),
        join(home, ".gnupg"),
      ]);
      assert.equal(view.realpath(join(home, ".gnupg")), join(home, ".ssh"));
      for (const missing of ["~/.npmrc", "~/.pypirc", "~/.aws", "/no/such/path"]) {
        const path = missing.replace("~", home);
        assert.equal(view.realpath(path), undefined, missing);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
