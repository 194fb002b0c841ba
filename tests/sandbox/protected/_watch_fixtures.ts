/**
 * What the folder-watch tests share: a tree of nested repositories, a walk
 * memory with a watch, one call's protected paths, and counting looks.
 *
 * @module
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_PROTECTED_PATHS } from "../../../sandbox/mod.ts";
import {
  FolderListings,
  FolderWatch,
  ProtectedPaths,
  WalkMemory,
} from "../../../sandbox/protected/mod.ts";
import { type FolderEvents, openInotify } from "../../../sandbox/protected/_inotify.ts";
import { tempWorkspace, type Workspace } from "../_fixtures.ts";

/** Long enough for a folder's times to count as settled: only then is a listing kept. */
export const settled = (): Promise<unknown> => new Promise((done) => setTimeout(done, 1100));

/** Why this runtime has no watch, or false (Deno with FFI: it has one). */
export const noWatch: string | false = (() => {
  const events = openInotify();
  if (typeof events === "string") return events;
  events.close();
  return false;
})();
export const skip: string | false = noWatch === false ? false : `no folder watch here: ${noWatch}`;

/** Packages of folders 4 deep (`packages/pN/src/a/b`), each a nested repository; the deep folders. */
export function tree(root: string, packages: number): string[] {
  mkdirSync(join(root, ".git"));
  const deep: string[] = [];
  for (let p = 0; p < packages; p++) {
    const pkg = join(root, "packages", `p${p}`);
    mkdirSync(join(pkg, ".git"), { recursive: true });
    const folder = join(pkg, "src", "a", "b");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "f.ts"), "export {};\n");
    deep.push(folder);
  }
  return deep;
}

/**
 * A walk memory with a folder watch (`open` gives its events; `limit` bounds
 * it; `mountTable` reads the mount table: by default the table as it was when
 * the memory was made, since a mount made elsewhere by a test running beside
 * this one (the spill tests mount a tmpfs) would drop every watch mid-case).
 */
export function watched(
  open?: () => FolderEvents | string,
  limit?: number,
  mountTable: () => string = tableAsNow(),
): WalkMemory {
  return new WalkMemory(new FolderListings(undefined, new FolderWatch(open, limit, mountTable)));
}

/** A reader of the mount table that gives it as it is now, whatever happens later. */
function tableAsNow(): () => string {
  const table = readFileSync("/proc/self/mountinfo", "utf8");
  return () => table;
}

/** One call's protected paths in `workspace`, remembering in `memory`. */
export function call(workspace: Workspace, memory: WalkMemory): ProtectedPaths {
  return new ProtectedPaths(
    [workspace.root],
    [...DEFAULT_PROTECTED_PATHS],
    () => join(workspace.base, "quarantine"),
    [],
    memory,
  );
}

/**
 * A workspace holding `tree(root, packages)`, settled, with a watched walk
 * memory over it (`open`, `limit` and `mountTable` as for `watched`) that one call has
 * settled; disposing closes the memory and removes the workspace.
 */
export async function watchedTree(
  packages: number,
  open?: () => FolderEvents | string,
  limit?: number,
  mountTable?: () => string,
): Promise<{ workspace: Workspace; deep: string[]; memory: WalkMemory } & Disposable> {
  const workspace = tempWorkspace();
  const deep = tree(workspace.root, packages);
  await settled();
  const memory = watched(open, limit, mountTable);
  call(workspace, memory).settle();
  return {
    workspace,
    deep,
    memory,
    [Symbol.dispose]: () => {
      memory.close();
      workspace[Symbol.dispose]();
    },
  };
}

/** How many folders `memory`'s walks looked at (`lstat`) while `run` ran. */
export function looksDuring<T>(memory: WalkMemory, run: () => T): { value: T; looks: number } {
  const before = memory.listings.looks;
  const value = run();
  return { value, looks: memory.listings.looks - before };
}
