// The remote filesystem view that the sandbox plans its masks over: parsed from the probe's
// records, and refusing (never guessing "missing") when asked about a path it was not told of.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseView } from "../../remote/_view.ts";
import { BashSpawnError } from "../../seam/mod.ts";
import { secretMasks } from "../../sandbox/_reusable.ts";

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
