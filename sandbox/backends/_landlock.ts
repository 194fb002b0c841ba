import { statSync } from "node:fs";
import process from "node:process";
import { resolve } from "node:path";
import type { SandboxEnforcement } from "../../seam/mod.ts";
import type { Launch, LaunchOutcome } from "../../local/launch.ts";
import { canonicalPath, existingRealpath, isBeneath } from "../_paths.ts";
import { throwIfDenied } from "../../local/_permissions.ts";
import {
  type ConfinedPolicy,
  firstLine,
  NETWORK_FAILURE,
  probeFailureReason,
  type ProbeOutcome,
  type SandboxBackend,
} from "./_backend.ts";
import { AF_NETLINK, AF_UNIX, seccompFilter } from "./_seccomp.ts";
import {
  type LandlockLauncherPolicy,
  LAUNCHER_ABI_PREFIX,
  LAUNCHER_FAILURE_EXIT,
  LAUNCHER_FAILURE_PREFIX,
} from "./_landlock_launcher.ts";

/**
 * How Deno runs the launcher: no config or lock file to look for, no V8 code
 * cache (DENO_DIR may lie in a writable root, and cached bytecode would run
 * before any restriction), and only the permissions it uses: FFI (libc) and
 * env (to hand the environment on). It reads no file itself, so it gets no
 * `--allow-read`.
 */
export const LAUNCHER_DENO_FLAGS: readonly string[] = [
  "run",
  "--no-config",
  "--no-lock",
  "--no-code-cache",
  "--allow-ffi",
  "--allow-env",
];

/** Device files every command may write (as when unconfined), when they exist. */
const DEVICE_FILES = [
  "/dev/null",
  "/dev/zero",
  "/dev/full",
  "/dev/random",
  "/dev/urandom",
  "/dev/tty",
];

/** What Landlock leaves open on the user's own files, which only root's read-only mounts close. */
export const METADATA_GAP =
  "modes, timestamps and extended attributes of your files outside the writable roots not confined";

/**
 * Without a pid namespace, a process that leaves the session escapes the kill
 * census; a kill still finds it by the marker in its environment, unless it dropped that.
 */
export const SETSID_GAP =
  "processes that call setsid and drop SHELLSEAM_WATCHDOG from their environment outlive kills and disposal";

/** EACCES as C tools ("Permission denied") and Node ("permission denied") print it. */
const DENIED = /permission denied/i;
/** EROFS, from the read-only mounts a root command runs under. */
const READ_ONLY = /read-only file system/i;
/** What a refused socket or connection says besides "Permission denied" (a heuristic). */
const NETWORK_WORDS = /socket|connect|network|resolve|host|\/dev\/(?:tcp|udp)\//i;
/** Bash's socket pseudo-paths: an address, not a file. */
const SOCKET_PATH = /^\/dev\/(?:tcp|udp)\//;

/** What the Landlock backend needs: a deno binary, the launcher module, a private tmp. */
export interface LandlockSetup {
  /** Absolute path of `deno`. */
  deno: string;
  /** The launcher's module specifier (see `landlockLauncherModule()`). */
  launcher: string;
  /** A private writable directory, the commands' TMPDIR. */
  tmpDir: string;
  /** The `process.arch` to build the seccomp filter for (this process's by default). */
  arch?: string;
  /** Whether commands run as root (as this process does, by default). */
  root?: boolean;
}

/** The paths a `policy` lets a command write under Landlock (canonical, existing), by kind. */
function writablePaths(
  policy: ConfinedPolicy,
  tmpDir: string,
): { dirs: string[]; files: string[] } {
  const roots = policy.mode === "workspace-write"
    ? [policy.workspaceRoot, ...policy.writableRoots]
    : [];
  const dirs = [tmpDir];
  const files = DEVICE_FILES.flatMap((path) => existingRealpath(path) ?? []);
  for (const root of roots) (isDirectory(root) ? dirs : files).push(root);
  return { dirs, files };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    throwIfDenied(error, `check "${path}"`);
    return false;
  }
}

/**
 * For root: the writable mounts over a read-only view, and `<root>/.git`
 * bound back read-only under `workspace-write`, as bubblewrap does.
 */
function readOnlyView(
  policy: ConfinedPolicy,
  dirs: string[],
  files: string[],
): Pick<LandlockLauncherPolicy, "writableMounts" | "readOnlyMounts"> {
  const git = policy.mode === "workspace-write"
    ? existingRealpath(`${policy.workspaceRoot}/.git`)
    : undefined;
  return {
    writableMounts: [...dirs, ...files.filter((file) => !isBeneath(file, "/dev"))],
    readOnlyMounts: git === undefined ? [] : [git],
  };
}

/** A leading program path (`/usr/bin/bash: `) with more before "Permission denied". */
const PROGRAM_PREFIX = /^\s*\/[^\s:'‘"]+:\s+(?!permission denied)/i;

/**
 * The paths a "Permission denied" line names: quoted ones, absolute ones, and
 * the one before it; not the program path that may lead the line.
 */
function namedPaths(text: string): string[] {
  const line = text.replace(PROGRAM_PREFIX, "");
  const paths = [...line.matchAll(/['‘"]([^'’"]+)['’"]/g)].map((match) => match[1] ?? "");
  for (const match of line.matchAll(/(?:^|[\s:(])(\/[^\s:'’"]*)/g)) paths.push(match[1] ?? "");
  const before = line.slice(0, line.search(DENIED)).replace(/[:\s]+$/, "");
  const last = before.slice(before.lastIndexOf(": ") + 1).trim();
  if (/^[^\s'‘"]*[./][^\s]*$/.test(last)) paths.push(last);
  return paths.filter((path) => path !== "");
}

/**
 * The Landlock backend over a prepared {@linkcode LandlockSetup}. The ABI
 * is learnt from the probe; until then it is taken as unknown (0).
 */
export function createLandlockBackend(
  setup: LandlockSetup,
): SandboxBackend & { landlockAbi: () => number } {
  const arch = setup.arch ?? process.arch;
  const root = setup.root ?? process.getuid?.() === 0;
  let abi = 0;
  // The filter depends on the network policy alone, so each is built once.
  const filters = new Map<ConfinedPolicy["network"], number[] | undefined>();
  const filterFor = (policy: ConfinedPolicy): number[] | undefined => {
    if (!filters.has(policy.network)) {
      const filter = seccompFilter({
        denyIpc: true,
        ...(policy.network === "deny" ? { socketFamilies: [AF_UNIX, AF_NETLINK] } : {}),
      }, setup.arch);
      filters.set(policy.network, filter && [...filter]);
    }
    return filters.get(policy.network);
  };
  const wrap = (launch: Launch, policy: ConfinedPolicy, reportAbi = false): Launch => {
    const { dirs, files } = writablePaths(policy, setup.tmpDir);
    const filter = filterFor(policy);
    const launcherPolicy: LandlockLauncherPolicy = {
      readPaths: ["/"],
      writeDirs: dirs,
      writeFiles: files,
      ...(root ? readOnlyView(policy, dirs, files) : {}),
      network: policy.network,
      ...(filter === undefined ? {} : { seccompFilter: filter }),
      ...(reportAbi ? { reportAbi } : {}),
    };
    return {
      program: setup.deno,
      args: [
        ...LAUNCHER_DENO_FLAGS,
        setup.launcher,
        JSON.stringify(launcherPolicy),
        launch.program,
        ...launch.args,
      ],
      cwd: launch.cwd,
      env: { ...launch.env, TMPDIR: setup.tmpDir },
    };
  };
  const enforcement = (policy: ConfinedPolicy): SandboxEnforcement => {
    const gaps: string[] = [];
    let network: SandboxEnforcement["network"] = "full";
    // The seccomp filter refuses IP sockets outright when the network is denied.
    const filtered = filterFor(policy) !== undefined;
    if (policy.network === "deny") {
      if (!filtered) {
        network = abi >= 4 ? "partial" : "none";
        if (abi < 4) gaps.push(`landlock ABI ${abi}: TCP not confined`);
        gaps.push("UDP not confined");
      }
      gaps.push("Unix sockets not confined");
    }
    if (!filtered) {
      gaps.push(
        `kernel keyrings not confined (no seccomp filter for ${arch})`,
        `System V IPC and message queues not confined (no seccomp filter for ${arch})`,
      );
    }
    if (policy.mode === "workspace-write" && !root) {
      gaps.push(`${policy.workspaceRoot}/.git not protected (Landlock cannot narrow a subtree)`);
    }
    if (abi < 6) {
      gaps.push(`landlock ABI ${abi}: signals to processes outside the sandbox not confined`);
    }
    gaps.push(SETSID_GAP);
    // Only root may mount the read-only view that closes this gap.
    if (!root) gaps.unshift(METADATA_GAP);
    return { filesystem: root ? "full" : "partial", network, gaps };
  };
  // The launcher says when it failed; a deno gone since the probe is named
  // by what could not execute it (the setsid binary says "failed to execute").
  const runnerFailed = (outcome: LaunchOutcome): boolean =>
    (outcome.exitCode === LAUNCHER_FAILURE_EXIT &&
      firstLine(outcome.stderrText).startsWith(LAUNCHER_FAILURE_PREFIX)) ||
    ((outcome.exitCode === 126 || outcome.exitCode === 127) &&
      firstLine(outcome.stderrText).includes(`${setup.deno}: `));
  return {
    name: "landlock",
    landlockAbi: () => abi,
    wrap: (launch, policy) => wrap(launch, policy),
    runners: () => [setup.deno],
    probeLaunch: (launch, policy) => wrap(launch, policy, true),
    probeFailure: (outcome: ProbeOutcome) => {
      const line = outcome.stdout.split("\n").find((l) => l.startsWith(LAUNCHER_ABI_PREFIX));
      if (outcome.exitCode !== 0 || line === undefined) return probeFailureReason(outcome);
      abi = Number(line.slice(LAUNCHER_ABI_PREFIX.length).trim());
      return undefined;
    },
    enforcement,
    runnerFailed,
    // A "Permission denied" line is Landlock's unless every path it names is
    // writable under the policy (then it is an ordinary permission problem);
    // the first such line decides which access was denied. One naming a path
    // is a filesystem denial. One naming none (bash's /dev/tcp and /dev/udp
    // are addresses, not paths) is the seccomp filter's or Landlock's refusal
    // of a socket when the network is denied and the line speaks of sockets or
    // connections, and a filesystem denial otherwise: a heuristic, as EACCES
    // says nothing of which rule refused it.
    denied: (outcome: LaunchOutcome, policy: ConfinedPolicy, cwd: string) => {
      if (outcome.exitCode === null || outcome.exitCode === 0 || runnerFailed(outcome)) {
        return undefined;
      }
      const { dirs, files } = writablePaths(policy, setup.tmpDir);
      const writable = [...dirs, ...files];
      for (const line of outcome.stderrText.split("\n")) {
        if (READ_ONLY.test(line)) {
          if (root) return "filesystem";
          continue;
        }
        if (policy.network === "deny" && NETWORK_FAILURE.test(line)) return "network";
        if (!DENIED.test(line)) continue;
        const paths = namedPaths(line).filter((path) => !SOCKET_PATH.test(path));
        if (paths.length === 0) {
          return policy.network === "deny" && NETWORK_WORDS.test(line) ? "network" : "filesystem";
        }
        const resolved = paths.map((path) => canonicalPath(resolve(cwd, path)));
        if (!resolved.every((path) => writable.some((root) => isBeneath(path, root)))) {
          return "filesystem";
        }
      }
      return undefined;
    },
  };
}
