import { lstatSync } from "node:fs";

/** What identifies one state of a folder: creating, removing or renaming an entry in it changes it. */
export interface FolderState {
  /** The device and inode of the folder. */
  dev: number;
  ino: number;
  /** Its modification and change times, in ms since the epoch (NaN when unknown: never equal). */
  mtimeMs: number;
  ctimeMs: number;
}

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
