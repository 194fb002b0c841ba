/**
 * Real pipes for Node children. Node's `stdio: "pipe"` is a socketpair, and
 * a socket is not a pipe: `/dev/stdout`, `/dev/stderr` and `/dev/stdin` fail
 * to open (ENXIO), and bash sources `~/.bashrc` when its stdin is a socket
 * (it believes rshd started it). Node cannot call pipe(2), so named pipes
 * stand in: one `mkfifo` call makes a batch in a private 0700 directory, and
 * each is unlinked as soon as both ends are open, which leaves an anonymous
 * pipe. Where `mkfifo` cannot run, `take()` returns null and the caller falls
 * back to Node's sockets.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** Both ends of one pipe, as open file descriptors. */
export interface PipeFds {
  /** The end this process keeps (non-blocking). */
  parent: number;
  /** The end the child inherits (blocking); close it once the child has it. */
  child: number;
}

const BATCH = 32;
const LOW_WATER = 8;

let dir: string | undefined;
const free: string[] = [];
let serial = 0;
let refilling: Promise<void> | undefined;
let unavailable = false;

function makeBatch(): Promise<void> {
  refilling ??= (async () => {
    try {
      if (dir === undefined) {
        dir = mkdtempSync(join(tmpdir(), "shellseam-fifo-"));
        const made = dir;
        process.once("exit", () => rmSync(made, { recursive: true, force: true }));
      }
      const paths = Array.from({ length: BATCH }, () => join(dir as string, String(serial++)));
      const ok = await new Promise<boolean>((resolve) => {
        const child = spawn("mkfifo", ["-m", "600", "--", ...paths], { stdio: "ignore" });
        child.once("error", () => resolve(false));
        child.once("exit", (code) => resolve(code === 0));
      });
      if (ok) free.push(...paths);
      else unavailable = true;
    } catch {
      unavailable = true;
    } finally {
      refilling = undefined;
    }
  })();
  return refilling;
}

/**
 * Opens one pipe per direction: "read" (the child writes, this process reads)
 * or "write" (this process writes, the child reads). Resolves to null when
 * named pipes are unavailable here.
 */
export async function takePipes(directions: ("read" | "write")[]): Promise<PipeFds[] | null> {
  while (!unavailable && free.length < directions.length) await makeBatch();
  if (unavailable) return null;
  const paths = free.splice(0, directions.length);
  if (free.length < LOW_WATER) void makeBatch();
  const opened: number[] = [];
  const open = (path: string, flags: number): number => {
    const fd = openSync(path, flags);
    opened.push(fd);
    return fd;
  };
  try {
    return paths.map((path, index) => {
      try {
        if (directions[index] === "read") {
          // A reader exists first, so the writer's blocking open returns at once.
          const parent = open(path, constants.O_RDONLY | constants.O_NONBLOCK);
          return { parent, child: open(path, constants.O_WRONLY) };
        }
        // O_RDWR never blocks on Linux; it lets the blocking reader open at once.
        const holder = openSync(path, constants.O_RDWR);
        try {
          const child = open(path, constants.O_RDONLY);
          return { parent: open(path, constants.O_WRONLY | constants.O_NONBLOCK), child };
        } finally {
          closeSync(holder);
        }
      } finally {
        unlinkSync(path);
      }
    });
  } catch (error) {
    for (const fd of opened) closeSync(fd);
    throw error;
  }
}
