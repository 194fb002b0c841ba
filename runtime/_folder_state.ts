import { lstatSync, type Stats } from "node:fs";

/** What identifies one state of a folder: creating, removing or renaming an entry in it changes it. */
export interface FolderState {
  /** The device and inode of the folder. */
  dev: number;
  ino: number;
  /** Its modification and change times, in ms since the epoch (NaN when unknown: never equal). */
  mtimeMs: number;
  ctimeMs: number;
}

/**
 * What identifies one state of a regular file's content: writing to it
 * sets its modification and change times, and its size may change.
 */
export interface FileState extends FolderState {
  /** Its size in bytes. */
  size: number;
  /** How many names it has (hard links). */
  nlink: number;
}

/**
 * What is at a path, never following a symlink: its kind, device, inode and
 * times, and a regular file's state (see {@linkcode FileState}) from the same `lstat`.
 */
export interface PathState extends FolderState {
  kind: "directory" | "file" | "symlink" | "other";
  /** A regular file's state, for a reader that would otherwise `lstat` it again. */
  file?: FileState;
}

/** Deno's `lstat` of `path`, or undefined when nothing is there (a file on the way counts as nothing). */
function denoLstat(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    // A file on the way is no entry either (as under Node).
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw error;
  }
}

/** Node's `lstat` of `path`, or undefined when nothing is there (a file on the way counts as nothing). */
function nodeLstat(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (error) {
    // A file on the way is no entry either (as under Deno).
    if ((error as NodeJS.ErrnoException | null)?.code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** What is at a path that holds the regular file `file`. */
function regularFile(file: FileState): PathState {
  const { dev, ino, mtimeMs, ctimeMs } = file;
  return { kind: "file", dev, ino, mtimeMs, ctimeMs, file };
}

function denoPathState(path: string): PathState | undefined {
  const info = denoLstat(path);
  if (info === undefined) return undefined;
  if (info.isFile) return regularFile(denoFile(info));
  const kind = info.isDirectory
    ? "directory"
    : info.isFile
    ? "file"
    : info.isSymlink
    ? "symlink"
    : "other";
  return {
    kind,
    dev: info.dev,
    ino: info.ino ?? NaN,
    mtimeMs: info.mtime?.getTime() ?? NaN,
    ctimeMs: info.ctime?.getTime() ?? NaN,
  };
}

function nodePathState(path: string): PathState | undefined {
  const stat = nodeLstat(path);
  if (stat === undefined) return undefined;
  if (stat.isFile()) return regularFile(nodeFile(stat));
  const kind = stat.isDirectory()
    ? "directory"
    : stat.isFile()
    ? "file"
    : stat.isSymbolicLink()
    ? "symlink"
    : "other";
  return { kind, dev: stat.dev, ino: stat.ino, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs };
}

/**
 * What is at `path` (see {@linkcode PathState}), never following a symlink;
 * undefined when nothing is there (nor can be: a file on its way). Throws
 * when it cannot be told. Under
 * Deno, its own `lstat`, which costs a third of its `node:fs` one (see
 * {@linkcode folderState}); a missing path costs an exception there, so
 * it is for paths that most likely exist.
 */
export const pathState: (path: string) => PathState | undefined = "Deno" in globalThis
  ? denoPathState
  : nodePathState;

function denoFolderState(path: string): FolderState | undefined {
  let info;
  try {
    info = Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  if (!info.isDirectory) return undefined;
  return {
    dev: info.dev,
    ino: info.ino ?? NaN,
    mtimeMs: info.mtime?.getTime() ?? NaN,
    ctimeMs: info.ctime?.getTime() ?? NaN,
  };
}

function nodeFolderState(path: string): FolderState | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined || !stat.isDirectory()) return undefined;
  return { dev: stat.dev, ino: stat.ino, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs };
}

/**
 * The state of the folder at `path`, never following a symlink; undefined
 * when no folder is there (nothing, or something else). Throws when it
 * cannot be told. Deno's own `lstat` costs a third of its `node:fs` one,
 * which builds a `Stats` object: a protected-path walk calls it once a folder.
 */
export const folderState: (path: string) => FolderState | undefined = "Deno" in globalThis
  ? denoFolderState
  : nodeFolderState;

/** A regular file's state as Deno's `lstat` gave it. */
function denoFile(info: Deno.FileInfo): FileState {
  return {
    dev: info.dev,
    ino: info.ino ?? NaN,
    mtimeMs: info.mtime?.getTime() ?? NaN,
    ctimeMs: info.ctime?.getTime() ?? NaN,
    size: info.size,
    nlink: info.nlink ?? NaN,
  };
}

/** A regular file's state as Node's `lstat` gave it. */
function nodeFile(stat: Stats): FileState {
  const { dev, ino, mtimeMs, ctimeMs, size, nlink } = stat;
  return { dev, ino, mtimeMs, ctimeMs, size, nlink };
}

function denoFileState(path: string): FileState | undefined {
  const info = denoLstat(path);
  return info === undefined || !info.isFile ? undefined : denoFile(info);
}

function nodeFileState(path: string): FileState | undefined {
  const stat = nodeLstat(path);
  return stat === undefined || !stat.isFile() ? undefined : nodeFile(stat);
}

/**
 * The state of the regular file at `path`, never following a symlink;
 * undefined when no regular file is there (nothing, a file on the way, or
 * something else). Throws when it cannot be told. Deno's own `lstat`, as
 * {@linkcode folderState}: the launch walk calls it for each pointer it
 * may read (every protected file), to read again only what changed.
 */
export const fileState: (path: string) => FileState | undefined = "Deno" in globalThis
  ? denoFileState
  : nodeFileState;
