/**
 * The seccomp filters of an executor's bwrap launches as files of its
 * private folder, which the wrapper and the standby open as fd 3 for
 * bwrap's `--seccomp 3`. A filter piped from memory (`exec 3< <(printf
 * ...)`) cost a fork of bash at every launch: about 7% of a warm call's
 * CPU, host and children, on 2 busy cores.
 *
 * No confined command can write the private folder (a test tries):
 * 1. The executor makes it 0700 (`mkdtemp`), and refuses a spill folder
 *    in a writable root.
 * 2. bwrap binds the root read-only, and binds the private folder back
 *    read-only where a writable root or a hidden folder holds it (see
 *    `bwrapArgs`). Only the commands' TMPDIR in it is writable, a mount of
 *    its own, so nothing renamed from there lands beside the filters.
 * 3. Landlock is passed over for every call once a root granted so far
 *    holds its launcher's folder, which lies in the private folder.
 *
 * An unconfined command of the user can write it, so each launch reads the
 * file first and writes it again when it is gone or holds other bytes; its
 * generation changes then, and a standby that opened the file before runs
 * no launch. What stays is the same user racing that read, who could as
 * well have written into the pipe the filter used to come on (through
 * `/proc/PID/fd`).
 *
 * @module
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { BashSpawnError } from "../../../seam/mod.ts";
import { messageOf } from "../../../seam/message.ts";
import { commandFilters, type SocketRule } from "../mod.ts";

/** A filter's file, as a launch opens it. */
export interface FilterFile {
  /** Its absolute path (the wrapper opens a path, and pipes anything else as `printf` escapes). */
  path: string;
  /** How many times it was written: a standby that opened an older one runs no launch. */
  generation: number;
}

/**
 * The filter of each socket rule as a file of `dir` (the executor's private
 * folder), written on first use and again whenever a launch finds it gone
 * or changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { SeccompFilterFiles } from "./_filter_files.ts";
 *
 * const dir = mkdtempSync(join(tmpdir(), "filters-"));
 * const filter = new Uint8Array([6, 0, 0, 0, 0, 0, 255, 127]);
 * const files = new SeccompFilterFiles(dir, { none: filter, unix: filter, inet: filter, any: filter });
 * const first = files.current("none");
 * assert.deepEqual([...readFileSync(first.path)], [...filter]);
 * writeFileSync(first.path, "changed");
 * const again = files.current("none");
 * assert.deepEqual([...readFileSync(again.path)], [...filter]);
 * assert.equal(again.generation, first.generation + 1);
 * ```
 */
export class SeccompFilterFiles {
  readonly #dir: string;
  readonly #filters: Readonly<Record<SocketRule, Uint8Array>>;
  readonly #generations = new Map<SocketRule, number>();

  /** `dir` must be absolute and writable by no confined command; `filters` are each rule's bytes. */
  constructor(dir: string, filters: Readonly<Record<SocketRule, Uint8Array>>) {
    this.#dir = dir;
    this.#filters = filters;
  }

  /**
   * The file of `rule`'s filter, holding exactly its bytes as this call
   * returns: read, and written again (whole, under a name of its own, then
   * renamed into place) when it is missing or holds anything else. Throws
   * `BashSpawnError` when it can be neither read nor written.
   */
  current(rule: SocketRule): FilterFile {
    const path = join(this.#dir, `seccomp-${rule}.bpf`);
    const bytes = this.#filters[rule];
    const generation = this.#generations.get(rule);
    if (generation !== undefined && holds(path, bytes)) return { path, generation };
    const draft = `${path}-${crypto.randomUUID()}`;
    try {
      writeFileSync(draft, bytes, { flag: "wx", mode: 0o600 });
      renameSync(draft, path);
    } catch (error) {
      // A write that failed part way (a full file system) leaves no draft behind.
      try {
        rmSync(draft, { force: true });
      } catch {
        // Left for disposal to remove with the private folder.
      }
      throw new BashSpawnError(
        `Cannot write the seccomp filter into "${path}" (${
          messageOf(error)
        }), so nothing was run; fix that (free space on its file system, say) and call again`,
        { cause: error },
      );
    }
    const next = (generation ?? 0) + 1;
    this.#generations.set(rule, next);
    return { path, generation: next };
  }
}

/**
 * The filters for `arch` as files of `dir` (see {@linkcode SeccompFilterFiles}),
 * or undefined on an architecture with none.
 */
export function seccompFilterFiles(dir: string, arch: string): SeccompFilterFiles | undefined {
  const filters = commandFilters(arch);
  return filters === undefined ? undefined : new SeccompFilterFiles(dir, filters);
}

/**
 * True when `path` is a regular file (not a symlink) that holds exactly
 * `bytes`; false when it differs or cannot be read. Opened without blocking:
 * a FIFO put in its place would hold the host's read.
 */
function holds(path: string, bytes: Uint8Array): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size !== bytes.length) return false;
    // One byte more than the filter: a file that grew since its size was read differs.
    const found = new Uint8Array(bytes.length + 1);
    const read = readSync(fd, found, 0, found.length, 0);
    return read === bytes.length && bytes.every((byte, index) => byte === found[index]);
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
