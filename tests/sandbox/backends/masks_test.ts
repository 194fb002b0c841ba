import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import process from "node:process";
import { BashSpawnError } from "../../../seam/mod.ts";
import {
  expandHome,
  makeMaskFile,
  outermost,
  secretMasks,
  socketMasks,
} from "../../../sandbox/backends/_masks.ts";
import { closeServer, tempWorkspace } from "../_fixtures.ts";

describe("expandHome", () => {
  it("replaces a leading ~ only", () => {
    assert.equal(expandHome("~", "/h"), "/h");
    assert.equal(expandHome("~/.ssh", "/h"), "/h/.ssh");
    assert.equal(expandHome("/srv/~/x", "/h"), "/srv/~/x");
  });
});

describe("secretMasks", () => {
  it("masks existing denied paths whole, skips missing ones, and follows symlinks", () => {
    using workspace = tempWorkspace();
    const home = join(workspace.base, "home");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".netrc"), "x");
    mkdirSync(join(workspace.base, "real-aws"));
    symlinkSync(join(workspace.base, "real-aws"), join(home, ".aws"));
    const masks = secretMasks(["~/.ssh", "~/.netrc", "~/.aws", "~/.kube"], [], home, []);
    assert.deepEqual(masks, [
      { path: join(home, ".ssh"), directory: true, kind: "secret" },
      { path: join(home, ".netrc"), directory: false, kind: "secret" },
      { path: join(workspace.base, "real-aws"), directory: true, kind: "secret" },
    ]);
  });

  it("masks a denied path beneath a symlinked folder, and skips one whose folder is missing", () => {
    using workspace = tempWorkspace();
    const home = join(workspace.base, "home");
    mkdirSync(join(workspace.base, "cfg", "gh"), { recursive: true });
    mkdirSync(home);
    symlinkSync("../cfg", join(home, ".config"));
    const masks = secretMasks(
      ["~/.config/gh", "~/.config/hub", "~/.cargo/credentials"],
      [],
      home,
      [],
    );
    assert.deepEqual(masks, [{
      path: join(workspace.base, "cfg", "gh"),
      directory: true,
      kind: "secret",
    }]);
  });

  it("masks a folder entry by entry down to an allowed path, and never the kept roots", () => {
    using workspace = tempWorkspace();
    const home = join(workspace.base, "home");
    mkdirSync(join(home, ".ssh", "keys"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id"), "k");
    writeFileSync(join(home, ".ssh", "known_hosts"), "h");
    writeFileSync(join(home, ".ssh", "keys", "a"), "a");
    writeFileSync(join(home, ".ssh", "keys", "b"), "b");
    const masks = secretMasks(["~/.ssh"], ["~/.ssh/keys/a", "~/.ssh/known_hosts"], home, []);
    assert.deepEqual(masks.map((mask) => mask.path).sort(), [
      join(home, ".ssh", "id"),
      join(home, ".ssh", "keys", "b"),
    ]);
    // A secret inside a workspace, or inside an allowed folder, stays denied.
    assert.deepEqual(
      secretMasks(["~/.ssh/id"], ["~"], home, [home]).map((mask) => mask.path),
      [join(home, ".ssh", "id")],
    );
    // A workspace inside a denied folder stays reachable (the policy grants it).
    assert.deepEqual(
      secretMasks(["~"], [], home, [join(home, ".ssh", "keys")]).map((mask) => mask.path).sort(),
      [join(home, ".ssh", "id"), join(home, ".ssh", "known_hosts")],
    );
  });

  it("refuses to run when a folder to carve cannot be listed", {
    skip: process.getuid?.() === 0 ? "root lists any folder" : false,
  }, () => {
    using workspace = tempWorkspace();
    const home = join(workspace.base, "home");
    mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o100 });
    assert.throws(() => secretMasks(["~/.ssh"], ["~/.ssh/x"], home, []), BashSpawnError);
  });
});

describe("outermost", () => {
  it("drops duplicates and masks beneath another", () => {
    const mask = (path: string) => ({ path, directory: true, kind: "secret" as const });
    assert.deepEqual(outermost([mask("/h/.config"), mask("/h/.config/gh"), mask("/h/.config")]), [
      mask("/h/.config"),
    ]);
  });
});

describe("socketMasks", () => {
  it("masks the sockets bound at launch except the allowed ones", async () => {
    using workspace = tempWorkspace();
    const paths = ["a.sock", "b.sock"].map((name) => join(workspace.base, name));
    const servers = await Promise.all(paths.map(async (path) => {
      const server = createServer();
      await new Promise<void>((done) => server.listen(path, done));
      return server;
    }));
    try {
      const masks = socketMasks([paths[0]!], "/nonexistent-home")
        .filter((mask) => mask.path.startsWith(workspace.base));
      assert.deepEqual(masks, [{ path: paths[1]!, directory: false, kind: "socket" }]);
    } finally {
      await Promise.all(servers.map(closeServer));
    }
  });

  it("keeps every socket below an allowed folder, and only those", async () => {
    using workspace = tempWorkspace();
    mkdirSync(join(workspace.base, "run", "app"), { recursive: true });
    const paths = ["run/app/a.sock", "run/b.sock", "c.sock"].map((name) =>
      join(workspace.base, name)
    );
    const servers = await Promise.all(paths.map(async (path) => {
      const server = createServer();
      await new Promise<void>((done) => server.listen(path, done));
      return server;
    }));
    try {
      const masks = socketMasks([join(workspace.base, "run")], "/nonexistent-home")
        .filter((mask) => mask.path.startsWith(workspace.base));
      assert.deepEqual(masks, [{ path: paths[2]!, directory: false, kind: "socket" }]);
    } finally {
      await Promise.all(servers.map(closeServer));
    }
  });
});

describe("makeMaskFile", () => {
  it("makes an empty mode-000 file once, reuses it, and refuses anything else in its place", () => {
    using workspace = tempWorkspace();
    const file = makeMaskFile(workspace.base);
    assert.equal(statSync(file).size, 0);
    assert.equal(statSync(file).mode & 0o777, 0);
    assert.equal(makeMaskFile(workspace.base), file);
    assert.deepEqual(readdirSync(workspace.base).sort(), ["mask", "ws"]);
    rmSync(file);
    writeFileSync(file, "planted");
    assert.throws(() => makeMaskFile(workspace.base), BashSpawnError);
  });
});
