/**
 * What bubblewrap is told: a launch and a confined policy turned into
 * bwrap's arguments, a pure transform with its mount order as a numbered
 * list (see {@linkcode bwrapArgs}), and the options that mask each of the
 * policy's masked paths.
 *
 * @module
 */
import type { Launch } from "../../../engine/mod.ts";
import { existingRealpath, isBeneath } from "../../../engine/mod.ts";
import type { ConfinedPolicy } from "../mod.ts";

/** The executor's private folders that bubblewrap shows a command. */
export interface BwrapFolders {
  /** The executor's private folder (its spill files): read-only, even inside a writable root. */
  privateDir: string;
  /** The commands' TMPDIR, inside `privateDir`: writable in every mode. */
  tmpDir: string;
}

/**
 * The bubblewrap arguments that confine a command by `policy`, in the order
 * bwrap applies them:
 * 1. The whole file system read-only, a fresh /dev and /proc, and the host's
 *    /proc/sys and /dev/shm read-only over the new ones.
 * 2. Pid and IPC namespaces, the network's too under `deny`, and no
 *    capabilities, for root as for anyone; under the namespace's reporter
 *    (the policy's `strayReport`), the reporter as the namespace's pid 1.
 * 3. The writable folders, parents first: the commands' private `tmpDir`
 *    (their TMPDIR) in every mode; under `workspace-write` the workspace and
 *    the writable roots too. Every user's folder of private folders (the
 *    policy's `hiddenParents`) becomes an empty read-only tmpfs, and the
 *    executor's own private folder is bound back read-only, also where it
 *    lies inside a writable root (a command could otherwise replace TMPDIR
 *    with a symlink, and the next launch would bind its target writable).
 * 4. Under `workspace-write`, the policy's read-only paths (the protected
 *    paths that exist, such as `<root>/.git`, and their targets) bound
 *    read-only again over the writable roots.
 * 5. Last, so that no later mount uncovers them, the masks (secrets and
 *    hidden Unix sockets): an empty mode-000 tmpfs or file over each (left out
 *    with `masks: "apart"`, for the wrapper to add those whose path is still
 *    there: see {@linkcode maskGroups}).
 * 6. The command's environment, set inside (`--clearenv`, then `--setenv`
 *    for each variable): bwrap itself runs with none of it.
 */
export function bwrapArgs(
  launch: Launch,
  policy: ConfinedPolicy,
  { privateDir, tmpDir }: BwrapFolders,
  paths: HostPaths = LOCAL_PATHS,
  masks: "inline" | "apart" = "inline",
): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  // The new /proc leaves the kernel's settings writable by root (the host's
  // hostname, for one); bind the host's /proc/sys read-only over it. The new
  // /dev has a writable /dev/shm of its own; show the host's, read-only.
  args.push("--ro-bind", "/proc/sys", "/proc/sys", "--ro-bind-try", "/dev/shm", "/dev/shm");
  // Without --cap-drop, root keeps its capabilities inside and could remount
  // "/" writable; --unshare-ipc keeps it out of the host's SysV shared memory.
  // No --new-session: the executor already gave the command a session with no
  // controlling terminal (and the sandbox gets no terminal descriptor), and in
  // that session the executor's census finds the namespace's init when bwrap
  // was killed before --die-with-parent took hold (bwrap sets it after the
  // fork, unguarded), which would otherwise run on in a session of its own.
  args.push("--unshare-pid", "--unshare-ipc", "--die-with-parent");
  args.push("--cap-drop", "ALL");
  // The namespace's reporter (the launch's first process when the policy has a
  // `strayReport`) waits for the command and ends what it left, as bwrap's own
  // pid 1 would: it is the namespace's pid 1 itself, so bwrap forks no init
  // (about 2 ms a call on a busy 2-core machine), and no signal sent inside
  // the sandbox ends it before it wrote its count.
  if (policy.strayReport !== undefined) args.push("--as-pid-1");
  if (policy.network === "deny") args.push("--unshare-net");
  const writable = policy.mode === "workspace-write";
  const roots = writable ? [policy.workspaceRoot, ...policy.writableRoots] : [];
  type Mount = [string, "bind" | "ro-bind" | "tmpfs"];
  // Each user's folder of private folders is hidden under an empty tmpfs and
  // the executor's own folder bound back: those folders stay while executors
  // come and go, so no launch races one that removes its private folder.
  const hidden = policy.hiddenParents ?? [];
  const mounts: Mount[] = [
    [tmpDir, "bind"],
    ...roots.map((root): Mount => [root, "bind"]),
    ...hidden.map((dir): Mount => [dir, "tmpfs"]),
  ];
  if (
    roots.some((root) => isBeneath(privateDir, root)) ||
    hidden.some((dir) => isBeneath(privateDir, dir))
  ) {
    mounts.push([privateDir, "ro-bind"]);
  }
  const depth = ([path]: Mount): number => path.split("/").length;
  for (const [path, kind] of mounts.sort((a, b) => depth(a) - depth(b))) {
    args.push(`--${kind}`, ...(kind === "tmpfs" ? [path] : [path, path]));
  }
  // Read-only once the folders bound inside them have their mount points.
  for (const dir of hidden) args.push("--remount-ro", dir);
  // "-try": a path gone since the launch was planned is the sweep's to check.
  if (writable) { for (const path of policy.readOnlyPaths) args.push("--ro-bind-try", path, path); }
  // Last, so that no later mount uncovers them.
  if (masks === "inline") args.push(...maskGroups(policy).flat());
  args.push("--clearenv");
  for (const [name, value] of Object.entries({ ...launch.env, TMPDIR: tmpDir })) {
    args.push("--setenv", name, value);
  }
  const cwd = paths.realpath(launch.cwd) ?? launch.cwd;
  args.push("--chdir", cwd, "--", launch.program, ...launch.args);
  return args;
}

/**
 * The bwrap options of each of the policy's masks, one group a mask, its
 * path always last: an empty mode-000 tmpfs, read-only, over a folder; the
 * mask file over anything else. bwrap fails the whole launch when a mount's
 * destination is missing (it cannot make one in the read-only root), and a
 * masked path can go at any moment (a socket whose server quit, a temporary
 * folder removed), so the wrapper drops each group whose path is gone the
 * instant before bwrap starts: what is gone needs no mask.
 */
export function maskGroups(policy: ConfinedPolicy): string[][] {
  return policy.masks.map(({ path, directory }) =>
    directory
      ? ["--perms", "0000", "--tmpfs", path, "--remount-ro", path]
      : ["--ro-bind", policy.maskFile, path]
  );
}

/**
 * What the bwrap arguments need to know about the paths of the host that
 * runs bwrap: this machine's, or (for the remote executor) another's, whose
 * paths are taken as given.
 */
export interface HostPaths {
  /** The resolved path when it exists and can be read from here, else undefined. */
  realpath(path: string): string | undefined;
}

/** This machine's paths. */
export const LOCAL_PATHS: HostPaths = { realpath: existingRealpath };

/** Another host's paths: taken as given. */
export const REMOTE_PATHS: HostPaths = { realpath: () => undefined };
