/**
 * Real pipes for the output of Node children. Node's `stdio: "pipe"` is a
 * socketpair, and a socket is not a pipe: `/dev/stdout` and `/dev/stderr`
 * fail to open (ENXIO), so `echo x > /dev/stderr` breaks. Node cannot call
 * pipe(2), so named pipes stand in: one `mkfifo` call makes a batch in a
 * private 0700 directory (removed at exit, or by the next process when this
 * one was killed), and each is unlinked as soon as both ends are open.
 * Where `mkfifo` cannot run, `takePipes()` resolves to null and the caller
 * falls back to Node's sockets; a transient fault (too many open files)
 * rejects that call only and changes nothing for later ones. `mkfifo` runs
 * outside any sandbox, so it is looked up once, on PATH as it is at the
 * first batch, and run by that path from then on: a folder of PATH that a
 * confined command may write (a workspace's `node_modules/.bin`, which `npm
 * run` puts first) is not searched again when it may hold one planted
 * there. It is a host tool (see `engine/_host_tools.ts`): the sandbox keeps
 * the folder it was found in out of every call's writable roots.
 *
 * stdin stays a socket: a named pipe whose writer has closed makes a later
 * `open("/dev/stdin")` block forever (an anonymous pipe reads EOF), which is
 * worse than failing with ENXIO. (bash also sources `~/.bashrc` when stdin is
 * a socket, unless run with `--norc`.)
 *
 * @module
 */
import {
  accessSync,
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import process from "node:process";
import { childProcess } from "./_child_process.ts";

/** Both ends of one pipe, as open file descriptors. */
export interface PipeFds {
  /** The end this process keeps (non-blocking). */
  parent: number;
  /** The end the child inherits (blocking); close it once the child has it. */
  child: number;
}

// Each batch costs a spawn of mkfifo, which under Node forks this whole
// process on its main thread: one per 64 commands (it was one per 16).
const BATCH = 128;
const LOW_WATER = 16;

let dir: string | undefined;
/** The `mkfifo` found at the first batch; null when none was. */
let mkfifo: string | null | undefined;
const free: string[] = [];
let serial = 0;
let refilling: Promise<void> | undefined;
let unavailable = false;

/**
 * Errors that say this process is short of something for now (descriptors,
 * memory, processes): they fail the call at hand and change nothing after it.
 */
const TRANSIENT = new Set(["EMFILE", "ENFILE", "EAGAIN", "ENOMEM"]);

function isTransient(error: unknown): boolean {
  return TRANSIENT.has(String((error as { code?: unknown } | null)?.code));
}

/**
 * Makes a batch of named pipes. Where they cannot be made at all (no
 * `mkfifo`, a temporary folder that refuses them) the runtime falls back to
 * sockets for good; a transient fault (EMFILE, ...) rejects and is tried
 * again by the next call.
 */
function makeBatch(): Promise<void> {
  refilling ??= (async () => {
    try {
      if (dir === undefined) {
        const prefix = `shellseam-fifo-${pidNamespace()}-`;
        removeOrphans(prefix);
        dir = mkdtempSync(join(tmpdir(), `${prefix}${process.pid}-`));
        const made = dir;
        process.once("exit", () => rmSync(made, { recursive: true, force: true }));
      }
      mkfifo ??= programOnPath("mkfifo", process.env.PATH ?? "/usr/bin:/bin");
      const program = mkfifo;
      if (program === null) {
        unavailable = true;
        return;
      }
      const paths = Array.from({ length: BATCH }, () => join(dir as string, String(serial++)));
      const ok = await new Promise<boolean>((resolve, reject) => {
        // A helper of the runtime, not of any command: it inherits nothing.
        const child = childProcess().spawn(program, ["-m", "600", "--", ...paths], {
          stdio: "ignore",
          env: {},
        });
        child.once("error", (error) => isTransient(error) ? reject(error) : resolve(false));
        child.once("exit", (code) => resolve(code === 0));
      });
      if (ok) free.push(...paths);
      else unavailable = true;
    } catch (error) {
      if (isTransient(error)) throw error;
      unavailable = true;
    } finally {
      refilling = undefined;
    }
  })();
  return refilling;
}

/** The first executable file `name` in an absolute folder of `path`, else null. */
function programOnPath(name: string, path: string): string | null {
  for (const folder of path.split(delimiter)) {
    if (!isAbsolute(folder)) continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not there, or not ours to run: the next folder.
    }
  }
  return null;
}

// The pid namespace tags the directories, so a pid is only ever judged in
// the namespace it belongs to.
function pidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";
  } catch {
    return "0";
  }
}

// A process ended by a signal never runs its 'exit' handler, so the next one
// removes the directories whose owner is gone.
function removeOrphans(prefix: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(prefix)) continue;
    const owner = Number(name.slice(prefix.length).split("-")[0]);
    if (!Number.isInteger(owner) || owner <= 0 || isAlive(owner)) continue;
    try {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    } catch {
      // Another user's directory, or one removed meanwhile: not ours to clean.
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Opens `count` pipes the child writes and this process reads. Resolves to
 * null when named pipes are unavailable here.
 */
export async function takePipes(count: number): Promise<PipeFds[] | null> {
  while (!unavailable && free.length < count) {
    const joined = refilling !== undefined;
    try {
      await makeBatch();
    } catch (error) {
      // A refill started before this call (in the background, while no descriptor was free, say)
      // failed: its fault may be gone by now, so this call makes a batch of its own.
      if (!joined) throw error;
      await makeBatch();
    }
  }
  if (unavailable) return null;
  const paths = free.splice(0, count);
  // A failed refill in the background is retried by a later call.
  if (free.length < LOW_WATER) makeBatch().catch(() => {});
  const opened: number[] = [];
  try {
    return paths.map((path) => {
      try {
        // The reader opens first, so the writer's blocking open returns at once.
        const parent = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
        opened.push(parent);
        const child = openSync(path, constants.O_WRONLY);
        opened.push(child);
        return { parent, child };
      } finally {
        unlinkSync(path);
      }
    });
  } catch (error) {
    for (const fd of opened) closeSync(fd);
    throw error;
  }
}
