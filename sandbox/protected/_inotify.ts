/**
 * Linux inotify through Deno's FFI (libc), read synchronously: the kernel
 * queues an event before the system call that caused it returns, so once a
 * command has ended, one non-blocking read holds every change it made to a
 * watched folder. This is what lets the protected-path walks skip the
 * `lstat` of a folder nothing touched (see `_folder_watch.ts`).
 *
 * `Deno.watchFs` was measured and rejected: it hands events over a channel
 * of 16 with `try_send` (200 files made gave 438 of 600 events, none
 * flagged), and it compares each event with every watched path on disk
 * (2,000 folders: 940 ms of CPU for those 600 events). Node's `fs.watch`
 * drops the kernel's overflow event (libuv), so Node walks with `lstat`.
 *
 * @module
 */

/** The inotify events a watch asks for: what changes a folder's listing, or the folder itself. */
export const IN_ATTRIB = 0x4;
export const IN_MOVED_FROM = 0x40;
export const IN_MOVED_TO = 0x80;
export const IN_CREATE = 0x100;
export const IN_DELETE = 0x200;
export const IN_DELETE_SELF = 0x400;
export const IN_MOVE_SELF = 0x800;
/** Events the kernel sends unasked. */
export const IN_UNMOUNT = 0x2000;
export const IN_Q_OVERFLOW = 0x4000;
export const IN_IGNORED = 0x8000;
/** Set in an event about an entry that is a directory. */
export const IN_ISDIR = 0x40000000;
const IN_ONLYDIR = 0x1000000;
const IN_DONT_FOLLOW = 0x2000000;
/** Fail (EEXIST) rather than share a watch when the inode is watched already (Linux 4.18). */
const IN_MASK_CREATE = 0x10000000;
const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
const EAGAIN = 11;
const ENOSPC = 28;

/** Events that change which entry a name in a folder is. */
export const ENTRY_CHANGES: number = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO;
/** Events that end a watch: its folder removed, moved or unmounted, or the watch removed. */
export const WATCH_LOST: number = IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED;

/**
 * Closes the events of a watcher that was never closed (an executor never
 * disposed) once the watcher is collected: register the watcher with its
 * events as the held value and the unregister token.
 */
export const UNCLOSED_EVENTS: FinalizationRegistry<FolderEvents> = new FinalizationRegistry<
  FolderEvents
>((events) => events.close());

/** What a watch asks the kernel to report. */
const WATCH_MASK = IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE |
  IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_MASK_CREATE;

/** One event of a watched folder: `name` is the entry's, or empty for the folder itself. */
export interface FolderEvent {
  wd: number;
  mask: number;
  name: string;
}

/**
 * Where folder events come from: the kernel's inotify (see
 * {@linkcode openInotify}), or a test's.
 */
export interface FolderEvents {
  /**
   * Watches the folder at `path` (never through a symlink): its watch
   * descriptor, "limit" when the user's watches ran out, undefined when it
   * cannot be watched (gone, not a folder, watched already).
   */
  add(path: string): number | "limit" | undefined;
  /** Stops watching `wd` (one gone already is no error). */
  remove(wd: number): void;
  /**
   * Every event queued since the last drain, in order; "overflow" when the
   * kernel dropped some (its queue was full) or the read failed.
   */
  drain(): FolderEvent[] | "overflow";
  /** Stops every watch and frees the instance. */
  close(): void;
}

/** The symbols read from libc. */
interface Libc {
  inotify_init1(flags: number): number;
  inotify_add_watch(fd: number, path: Uint8Array, mask: number): number;
  inotify_rm_watch(fd: number, wd: number): number;
  read(fd: number, buffer: Uint8Array, size: number): number;
  close(fd: number): number;
  __errno_location(): Deno.PointerValue;
}

const SYMBOLS = {
  inotify_init1: { parameters: ["i32"], result: "i32" },
  inotify_add_watch: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  inotify_rm_watch: { parameters: ["i32", "i32"], result: "i32" },
  // ssize_t, read as its low 32 bits (at most the buffer's size, or -1).
  read: { parameters: ["i32", "buffer", "usize"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

/** libc, loaded once per process (or why it cannot be). */
let loaded: Libc | string | undefined;

function libc(): Libc | string {
  if (loaded !== undefined) return loaded;
  loaded = loadLibc();
  return loaded;
}

function loadLibc(): Libc | string {
  if (!("Deno" in globalThis) || typeof Deno.dlopen !== "function") {
    return "the runtime has no FFI (Node's fs.watch drops the kernel's overflow event)";
  }
  if (Deno.build.os !== "linux") return "inotify is Linux's";
  // The event records are read in the host's byte order; DataView reads little-endian.
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) return "the host is big-endian";
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
    return "Deno's FFI permission (--allow-ffi) is not granted";
  }
  try {
    return Deno.dlopen("libc.so.6", SYMBOLS).symbols as unknown as Libc;
  } catch (error) {
    return `libc.so.6 cannot be loaded through FFI (${String(error)})`;
  }
}

/**
 * A new inotify instance (non-blocking, closed on exec), or why there is
 * none: not Deno, no FFI permission, no libc.so.6, no instance left.
 *
 * @example Deno only (inotify through its FFI)
 * ```ts
 * import { openInotify } from "./_inotify.ts";
 * import assert from "node:assert/strict";
 *
 * const events = openInotify();
 * if (typeof events !== "string") {
 *   const dir = Deno.makeTempDirSync();
 *   const wd = events.add(dir);
 *   Deno.writeTextFileSync(`${dir}/a`, "");
 *   const drained = events.drain();
 *   assert.ok(drained !== "overflow" && drained.some((event) => event.wd === wd && event.name === "a"));
 *   events.close();
 *   Deno.removeSync(dir, { recursive: true });
 * }
 * ```
 */
export function openInotify(): FolderEvents | string {
  const lib = libc();
  if (typeof lib === "string") return lib;
  const fd = lib.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  // Read errno right after the failing call: the runtime may set it again.
  const errnoView = new Deno.UnsafePointerView(lib.__errno_location()!);
  if (fd < 0) return `inotify_init1 failed (errno ${errnoView.getInt32()})`;
  return new Inotify(lib, fd, errnoView);
}

/** An inotify instance read without blocking. */
class Inotify implements FolderEvents {
  readonly #lib: Libc;
  readonly #errno: Deno.UnsafePointerView;
  readonly #buffer = new Uint8Array(64 * 1024);
  readonly #view = new DataView(this.#buffer.buffer);
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();
  #fd: number;

  constructor(lib: Libc, fd: number, errno: Deno.UnsafePointerView) {
    this.#lib = lib;
    this.#fd = fd;
    this.#errno = errno;
  }

  add(path: string): number | "limit" | undefined {
    if (this.#fd < 0) return undefined;
    const wd = this.#lib.inotify_add_watch(this.#fd, this.#encoder.encode(`${path}\0`), WATCH_MASK);
    if (wd >= 0) return wd;
    return this.#errno.getInt32() === ENOSPC ? "limit" : undefined;
  }

  remove(wd: number): void {
    if (this.#fd >= 0) this.#lib.inotify_rm_watch(this.#fd, wd);
  }

  drain(): FolderEvent[] | "overflow" {
    if (this.#fd < 0) return "overflow";
    const events: FolderEvent[] = [];
    for (;;) {
      const size = this.#lib.read(this.#fd, this.#buffer, this.#buffer.length);
      if (size < 0) {
        if (this.#errno.getInt32() === EAGAIN) return events;
        return "overflow";
      }
      if (size === 0) return "overflow";
      for (let at = 0; at + 16 <= size;) {
        const wd = this.#view.getInt32(at, true);
        const mask = this.#view.getUint32(at + 4, true);
        const length = this.#view.getUint32(at + 12, true);
        if (mask & IN_Q_OVERFLOW) return "overflow";
        const bytes = this.#buffer.subarray(at + 16, at + 16 + length);
        const end = bytes.indexOf(0);
        const name = this.#decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
        events.push({ wd, mask, name });
        at += 16 + length;
      }
    }
  }

  close(): void {
    if (this.#fd < 0) return;
    this.#lib.close(this.#fd);
    this.#fd = -1;
  }
}
