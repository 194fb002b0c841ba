/**
 * Whether what the executor runs unconfined (a backend's probe, a
 * launcher's self-check, the programs in front of a call's launch) lies
 * where a confined command could replace it: in the workspace or a
 * writable root. A command could otherwise swap one (a `perl` in the
 * workspace's `node_modules/.bin`, first on the search path as `npm run`
 * puts it), and the next launch or probe would run it unconfined. The
 * probes and each call's choice of backend ask the same question here,
 * each before it runs anything.
 *
 * @module
 */
import { delimiter } from "node:path";
import { canonicalPath, exposedLocation } from "../engine/mod.ts";
import type { SandboxPolicy } from "../seam/mod.ts";
import type { ConfinedPolicy } from "./backends/mod.ts";
import { markGranted } from "./protected/mod.ts";

/** What runs, or is read, before the confinement applies. */
export interface Unconfined {
  /** The programs run (the setsid binary, the backend's runners, a probe's program). */
  programs: readonly string[];
  /**
   * The folders in which the host finds its own tools, which it runs
   * unconfined while commands run and after them (the executor's `toolPath`).
   */
  toolFolders: readonly string[];
  /** The folders those programs read or bind (the commands' TMPDIR, the launcher's folder). */
  folders: readonly { name: string; path: string }[];
}

/** The folders of an executor's `toolPath` (where the host found its own tools), for {@linkcode Unconfined}. */
export function toolFoldersOf(toolPath: string): string[] {
  return toolPath.split(delimiter).filter((folder) => folder !== "");
}

/** Why something run before the confinement cannot be trusted, and what to do. */
export interface Exposure {
  /** Names the program or folder, where its resolution passes, and the root holding it. */
  reason: string;
  /** What to do, for an error that has no other backend to offer. */
  remedy: string;
}

/**
 * The first of `unconfined` that any location of whose resolution lies in
 * one of `roots` (canonical), with why; undefined when none does.
 */
export function exposureOf(
  unconfined: Unconfined,
  roots: readonly string[],
): Exposure | undefined {
  const exposedAt = (path: string) => exposedLocation(path, roots);
  const where = (at: { location: string; root: string }) =>
    `"${at.location}" lies in the writable root "${at.root}"`;
  for (const program of unconfined.programs) {
    const at = exposedAt(program);
    if (at === undefined) continue;
    const remedy = `install "${program}" elsewhere (or take its folder off the search path) ` +
      "or narrow the writable roots";
    return {
      reason: `"${program}" runs before the sandbox applies, and ${where(at)}, where a ` +
        `confined command could replace it; ${remedy}`,
      remedy,
    };
  }
  for (const folder of unconfined.toolFolders) {
    const at = exposedAt(folder);
    if (at === undefined) continue;
    const remedy = `take "${folder}" off PATH or narrow the writable roots`;
    return {
      reason: `"${folder}" holds programs the host runs unconfined (its watchdog's, a ` +
        `terminal's resize) and ${where(at)}, where a confined command could plant one of ` +
        `its own; ${remedy}`,
      remedy,
    };
  }
  for (const folder of unconfined.folders) {
    const at = exposedAt(folder.path);
    if (at === undefined) continue;
    const remedy = "set TMPDIR of this process to a folder outside the writable roots (the " +
      "executor's private folder is made there) or narrow the writable roots";
    return {
      reason: `${folder.name} "${folder.path}" is read before the sandbox applies, and ` +
        `${where(at)}, where a confined command could plant what is read there; ${remedy}`,
      remedy,
    };
  }
  return undefined;
}

/** At most this many answers are kept (one a backend and set of roots); past it, all are dropped. */
const MAX_KEPT = 256;

/**
 * {@linkcode exposureOf} for the calls of one executor, each answer "none"
 * kept for the same question (the same programs, folders and roots): each
 * call asks it again, and it costs a `readlink` for every component of
 * every path (3% of the host's CPU a warm bwrap call). A confined command
 * writes in its roots alone, so what lay outside every one of the roots
 * asked about stays so while they are the same; a root granted since makes
 * another question, answered anew (the roots given are every one granted
 * so far, with the call's own). An exposure found is never kept: it is
 * looked at again at each call.
 *
 * @example
 * ```ts
 * import { ExposureChecks } from "./_exposure.ts";
 * import assert from "node:assert/strict";
 *
 * const checks = new ExposureChecks();
 * const unconfined = { programs: ["/usr/bin/env"], toolFolders: [], folders: [] };
 * assert.equal(checks.exposure(unconfined, ["/srv/ws"]), undefined);
 * // A root that holds the program: asked anew, and found.
 * assert.match(checks.exposure(unconfined, ["/srv/ws", "/usr"])?.reason ?? "", /lies in/);
 * ```
 */
export class ExposureChecks {
  readonly #clear = new Set<string>();

  /** What {@linkcode exposureOf} says of `unconfined` and `roots` (canonical). */
  exposure(unconfined: Unconfined, roots: readonly string[]): Exposure | undefined {
    const key = JSON.stringify([
      unconfined.programs,
      unconfined.toolFolders,
      unconfined.folders,
      [...roots].sort(),
    ]);
    if (this.#clear.has(key)) return undefined;
    const exposure = exposureOf(unconfined, roots);
    if (exposure !== undefined) return exposure;
    if (this.#clear.size >= MAX_KEPT) this.#clear.clear();
    this.#clear.add(key);
    return undefined;
  }
}

/**
 * Every root an executor's confined commands could have written so far: the
 * workspace and writable roots of its default policy (in any mode: an
 * earlier executor's commands may have written them), and those of each
 * `workspace-write` call it planned. A program that lies in one may have
 * been replaced, whichever call's roots are current. Each is counted for the
 * process too (`markGranted`), where a commit checks its `git`.
 */
export class GrantedRoots {
  readonly #roots = new Set<string>();

  /** Starts from the default policy's roots (canonical). */
  constructor(defaultPolicy: Readonly<SandboxPolicy>) {
    this.#add(defaultPolicy);
  }

  /**
   * Adds the roots of a call's confined `policy` when it grants writes: made
   * canonical by the confinement already, so taken as given (no path is
   * resolved again on a call's way).
   */
  grant(policy: Readonly<Pick<ConfinedPolicy, "mode" | "workspaceRoot" | "writableRoots">>): void {
    if (policy.mode !== "workspace-write") return;
    const roots = [policy.workspaceRoot, ...policy.writableRoots];
    for (const root of roots) this.#roots.add(root);
    markGranted(roots);
  }

  /** How many roots were granted so far: it only grows, so it tells whether any was since. */
  get size(): number {
    return this.#roots.size;
  }

  /** The roots granted so far, with `also` (a call's own). */
  with(also: readonly string[] = []): string[] {
    return [...new Set([...this.#roots, ...also])];
  }

  #add(policy: Readonly<SandboxPolicy>): void {
    const roots = [policy.workspaceRoot, ...(policy.writableRoots ?? [])].map(canonicalPath);
    for (const root of roots) this.#roots.add(root);
    markGranted(roots);
  }
}
