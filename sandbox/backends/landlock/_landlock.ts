import { statSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { BashSpawnError, type SandboxEnforcement } from "../../../seam/mod.ts";
import type { Launch, LaunchLimits, LaunchOutcome } from "../../../engine/mod.ts";
import { existingRealpath, isBeneath, rlimitsToSet, throwIfDenied } from "../../../engine/mod.ts";
import {
  commandFilter,
  type ConfinedPolicy,
  DENIED,
  deniedByLines,
  firstLine,
  LATE_SOCKETS_GAP,
  type LaunchStandby,
  probeFailureReason,
  type ProbeOutcome,
  PROXY_PORTS_GAP,
  type SandboxBackend,
  SETSID_GAP,
  socketRule,
} from "../mod.ts";
import { landlockLauncherFile } from "./_launcher_file.ts";
import {
  type LandlockLauncherPolicy,
  LAUNCHER_ABI_PREFIX,
  LAUNCHER_FAILURE_EXIT,
  LAUNCHER_FAILURE_PREFIX,
  LAUNCHER_INPUT_FLAG,
  LAUNCHER_STANDBY_FLAG,
  launcherInput,
  type LauncherRuntime,
  launcherText,
  standbyInput,
} from "./_launcher_protocol.ts";
import { perlLauncherArgs } from "./_perl_launcher.ts";

/**
 * How Deno runs the launcher: no config or lock file to look for, no V8 code
 * cache (cached bytecode would run before any restriction), and only the
 * permission it uses: FFI (libc). It reads no file and no environment variable
 * itself (the command's environment comes as arguments), so it gets no
 * `--allow-read` nor `--allow-env`.
 */
export const LAUNCHER_DENO_FLAGS: readonly string[] = [
  "run",
  "--no-config",
  "--no-lock",
  "--no-code-cache",
  "--allow-ffi",
];

/**
 * The DENO_DIR the launcher's deno gets: a path below `/dev/null`, which no
 * one can create, so deno keeps its caches in memory and writes nothing on
 * disk. With its caches in the executor's private folder, a standby starting
 * after a call wrote its SQLite files there while an unconfined `rm -rf` of
 * that folder ran ("Directory not empty"), and remade the folder (mode 0755)
 * after one that succeeded. Without them, each start parses the launcher
 * again: about 10 ms more CPU (measured: 30 launches each, median 80 ms
 * against 90 ms on a loaded 2-core machine), which the standby takes before the call.
 */
export const LAUNCHER_DENO_DIR = "/dev/null/shellseam-deno";

/** What the launcher's folder is called in a backend's refusal (see `runnerFolders`). */
export const LAUNCHER_FOLDER = "The Landlock launcher's folder";

/** Device files every command may write (as when unconfined), when they exist. */
const DEVICE_FILES = [
  "/dev/null",
  "/dev/zero",
  "/dev/full",
  "/dev/random",
  "/dev/urandom",
  "/dev/tty",
];

/** What Landlock leaves open on the user's own files, which only a read-only mount view closes. */
export const METADATA_GAP =
  "modes, timestamps and extended attributes of your files outside the writable roots not confined";

/**
 * What the same user's terminals (`/dev/pts`) give away without the
 * read-only mount view, which mounts a terminal instance of the command's own.
 */
export const HOST_TERMINALS_GAP =
  "your terminals (/dev/pts) readable, and so what is typed into them: hiding them needs a mount namespace";

/** EROFS, from the read-only mount view a command runs under (as root, or in a user namespace). */
const READ_ONLY = /read-only file system/i;

/**
 * What runs the launcher: a perl that passed the Perl launcher's self-check
 * (given its source on the command line), else deno with the Deno
 * launcher's file (see `landlockLauncherFile()`); each by its absolute path.
 */
export type LauncherRunner =
  | { runtime: "perl"; perl: string }
  | { runtime: "deno"; deno: string; launcher: string };

/** What the Landlock backend needs: what runs the launcher, a private tmp. */
export interface LandlockSetup {
  /** What runs the launcher. */
  runner: LauncherRunner;
  /** A private writable directory, the commands' TMPDIR. */
  tmpDir: string;
  /**
   * A private directory that commands cannot write: the Deno launcher's file is
   * there, and it is deno's HOME (deno reads `.npmrc` there before the
   * launcher restricts itself, so it may not come from the agent's
   * environment). Deno's caches are not there: see {@linkcode LAUNCHER_DENO_DIR}.
   */
  launcherDir: string;
  /** The `process.arch` to build the seccomp filter for (this process's by default). */
  arch?: string;
  /** Whether commands run as root (as this process does, by default). */
  root?: boolean;
  /**
   * For a user who is not root: util-linux `unshare`, run before the launcher
   * to give it a user and mount namespace of its own (uid and gid mapped to
   * themselves) where it mounts the read-only view as root does; or why there
   * is none here (then the view, and with it the protected paths, are gaps).
   * The launcher cannot make that namespace itself: Deno runs threads, and
   * the kernel gives a new user namespace to single-threaded processes only.
   */
  userNamespace?: { unshare: string } | { reason: string };
}

/** The `unshare` arguments that give the launcher a user and mount namespace of its own. */
export const USER_NAMESPACE_ARGS: readonly string[] = [
  "--user",
  "--map-current-user",
  // Capabilities in the namespace survive the exec of deno (as ambient ones),
  // so the launcher may mount; it drops every one before the command runs.
  "--keep-caps",
  "--mount",
  "--",
];

/** The launcher policy's `rlimits` for `limits`, when it sets any. */
function rlimitsOf(limits: LaunchLimits): Pick<LandlockLauncherPolicy, "rlimits"> {
  const rlimits = rlimitsToSet(limits.rlimits);
  return rlimits.length === 0 ? {} : { rlimits };
}

/** The gap a user without a user namespace has: the protected paths stay writable. */
export function protectedPathsGap(names: readonly string[], reason: string): string {
  const list = names.map((name) => `\`${name}\``).join(", ");
  return `${list} can be created, replaced or written: git, shells or editors may later run what a command planted ` +
    `(Landlock cannot narrow a subtree, and no user namespace here: ${reason})`;
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
 * For root, or in a user namespace: the writable mounts over a read-only
 * view, the policy's read-only paths (`<root>/.git` and the other protected
 * paths that exist) bound back read-only under `workspace-write`, and other
 * executors' private folders hidden, and the masks, as bubblewrap does.
 */
function readOnlyView(
  policy: ConfinedPolicy,
  dirs: string[],
  files: string[],
): Pick<
  LandlockLauncherPolicy,
  "writableMounts" | "readOnlyMounts" | "hiddenMounts" | "masks"
> {
  return {
    writableMounts: [...dirs, ...files.filter((file) => !isBeneath(file, "/dev"))],
    readOnlyMounts: policy.mode === "workspace-write" ? [...policy.readOnlyPaths] : [],
    hiddenMounts: policy.hiddenDirs ?? [],
    masks: policy.masks.map(({ path, directory }) =>
      directory ? { path } : { path, source: policy.maskFile }
    ),
  };
}

/** Landlock grants listing by subtree: without a mount namespace, names in denied folders show. */
export const LISTED_SECRETS_GAP =
  "names inside denyRead folders listable (only their contents are unreadable)";

/** What a user without the read-only mount view (no user namespace) can read that bwrap hides. */
export const HIDDEN_DIRS_GAP =
  "private folders of other executors (their spill files) readable: hiding them needs a mount namespace";

/**
 * The Landlock backend over a prepared {@linkcode LandlockSetup}. The ABI
 * is learnt from the probe; until then it is taken as unknown (0).
 */
export function createLandlockBackend(
  setup: LandlockSetup,
): SandboxBackend & { landlockAbi: () => number } {
  const arch = setup.arch ?? process.arch;
  const { runner } = setup;
  const runtime: LauncherRuntime = runner.runtime;
  const runnerPath = runner.runtime === "perl" ? runner.perl : runner.deno;
  const root = setup.root ?? process.getuid?.() === 0;
  const namespace = root ? undefined : setup.userNamespace;
  const unshare = namespace !== undefined && "unshare" in namespace ? namespace.unshare : undefined;
  // Root mounts its read-only view itself; another user does inside a user namespace.
  const view = root || unshare !== undefined;
  let abi = 0;
  // The filter depends on the socket rule and the terminal alone, so each is built once.
  const filters = new Map<string, number[] | undefined>();
  const filterFor = (policy: ConfinedPolicy): number[] | undefined => {
    const rule = socketRule(policy);
    const terminal = policy.terminal === true;
    const key = `${rule}${terminal ? " terminal" : ""}`;
    if (!filters.has(key)) {
      // No pid namespace: a process that left the session would outlive the
      // call (and its protected-path sweep), planting at will. A terminal's
      // shell must lead a session of its own to have the terminal as its
      // controlling terminal; what it leaves is found by the marker, and
      // SETSID_GAP says what is not.
      const filter = commandFilter(rule, setup.arch, !terminal);
      filters.set(key, filter && [...filter]);
    }
    return filters.get(key);
  };
  /** The launcher's arguments that run `launch` confined by `policy` (its policy JSON first). */
  const launcherArgs = (
    launch: Launch,
    policy: ConfinedPolicy,
    limits?: LaunchLimits,
    reportAbi = false,
  ): string[] => {
    if (policy.terminal === true && !view) {
      throw new BashSpawnError(
        `The Landlock sandbox gives a command a terminal only in a mount namespace of its own, which needs root or util-linux unshare with user namespaces; start it without "terminal", or use the bwrap backend (install bubblewrap)`,
      );
    }
    const { dirs, files } = writablePaths(policy, setup.tmpDir);
    const filter = filterFor(policy);
    const environment = Object.entries({ ...launch.env, TMPDIR: setup.tmpDir })
      .map(([name, value]) => `${name}=${value}`);
    const secrets = policy.masks.filter((mask) => mask.kind === "secret").map((mask) => mask.path);
    const launcherPolicy: LandlockLauncherPolicy = {
      readPaths: ["/"],
      // Without a mount namespace, reads are granted around the secrets.
      ...(!view && secrets.length > 0 ? { unreadable: secrets } : {}),
      // A terminal's own devpts instance (see LandlockLauncherPolicy.terminal), never the host's.
      writeDirs: policy.terminal === true ? [...dirs, "/dev/pts"] : dirs,
      writeFiles: policy.terminal === true ? [...files, "/dev/ptmx"] : files,
      ...(view ? readOnlyView(policy, dirs, files) : {}),
      ...(policy.terminal === true ? { terminal: true } : {}),
      network: policy.network,
      ...(filter === undefined ? {} : { seccompFilter: filter }),
      ...(limits === undefined || limits.cgroupProcs.length === 0
        ? {}
        : { cgroupProcs: [...limits.cgroupProcs] }),
      ...(limits === undefined ? {} : rlimitsOf(limits)),
      ...(reportAbi ? { reportAbi } : {}),
      envEntries: environment.length,
    };
    const policyText = launcherText(runtime, launcherPolicy);
    return [policyText, ...environment, launch.program, ...launch.args];
  };
  /** The launcher started in `cwd` with `args`, through `unshare` when it needs a user namespace. */
  const launcherLaunch = (args: string[], cwd: string): Launch => {
    const launcher = runner.runtime === "perl"
      ? [runner.perl, ...perlLauncherArgs(), ...args]
      : [runner.deno, ...LAUNCHER_DENO_FLAGS, runner.launcher, ...args];
    return {
      program: unshare ?? runnerPath,
      args: unshare === undefined ? launcher.slice(1) : [...USER_NAMESPACE_ARGS, ...launcher],
      cwd,
      // The runtime and the setsid binary before it run unconfined: they get
      // none of the command's environment (LD_PRELOAD, LD_LIBRARY_PATH,
      // PERL5LIB or DENO_DIR into a writable root would make them load what a
      // command planted). Perl needs no variable at all.
      env: runner.runtime === "perl" ? {} : {
        DENO_DIR: LAUNCHER_DENO_DIR,
        HOME: setup.launcherDir,
        DENO_NO_UPDATE_CHECK: "1",
      },
    };
  };
  /**
   * The launcher with its arguments on its stdin, never on its command line
   * (they hold the command's environment: its proxy credentials, the call's
   * `env`), and the command's own stdin after them when `keepStdin`.
   */
  const wrap = (
    launch: Launch,
    policy: ConfinedPolicy,
    limits?: LaunchLimits,
    keepStdin = false,
  ): Launch => ({
    ...launcherLaunch([LAUNCHER_INPUT_FLAG], launch.cwd),
    input: launcherInput(runtime, launcherArgs(launch, policy, limits), keepStdin),
  });
  /**
   * A launcher started ahead (see `LaunchStandby`): the runtime's start-up
   * and the cgroup join happen while nothing waits. Its input is what a cold
   * launch gets in its arguments, computed per call by the same code, and its cwd.
   */
  const standby = (launch: Launch, policy: ConfinedPolicy): LaunchStandby => ({
    key: `landlock ${runnerPath} ${
      runner.runtime === "deno" ? runner.launcher : "-e"
    } ${setup.launcherDir} ${unshare ?? "-"}`,
    prepare: (cgroupProcs) => {
      // Written again when it was removed or changed, as before a cold launch;
      // Deno compiles it as the standby starts, before any command is handed over.
      if (
        runner.runtime === "deno" &&
        landlockLauncherFile(dirname(runner.launcher)) !== runner.launcher
      ) {
        throw new Error(
          `The Landlock launcher is not at "${runner.launcher}"; create a new executor`,
        );
      }
      return launcherLaunch([LAUNCHER_STANDBY_FLAG, ...cgroupProcs], "/");
    },
    input: (rlimits) =>
      standbyInput(
        runtime,
        launch.cwd,
        launcherArgs(launch, policy, { rlimits, cgroupProcs: [] }),
      ),
  });
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
      if (!filtered || (policy.unixSockets && !view)) gaps.push("Unix sockets not confined");
      else if (policy.unixSockets) gaps.push(LATE_SOCKETS_GAP);
    }
    if (policy.network === "proxy") {
      if (!filtered) gaps.push("Unix sockets not confined");
      gaps.push(PROXY_PORTS_GAP);
    }
    // Without a mount namespace, reads are granted around the secrets, which
    // a writable root's grant (reads included) would cover again.
    const secrets = policy.masks.filter((mask) => mask.kind === "secret");
    if (!view && secrets.length > 0) {
      const { dirs } = writablePaths(policy, setup.tmpDir);
      gaps.push(
        LISTED_SECRETS_GAP,
        ...secrets.filter((mask) => dirs.some((dir) => isBeneath(mask.path, dir))).map((mask) =>
          `${mask.path} readable (it lies in a writable root, and Landlock cannot narrow a subtree)`
        ),
      );
    }
    if (!filtered) {
      gaps.push(
        `kernel keyrings not confined (no seccomp filter for ${arch})`,
        `System V IPC and message queues not confined (no seccomp filter for ${arch})`,
      );
    }
    if (policy.mode === "workspace-write" && !view && policy.protectedPaths.length > 0) {
      const reason = namespace !== undefined && "reason" in namespace
        ? namespace.reason
        : "none was tried";
      gaps.push(protectedPathsGap(policy.protectedPaths, reason));
    }
    if (abi < 6) {
      gaps.push(`landlock ABI ${abi}: signals to processes outside the sandbox not confined`);
    }
    gaps.push(SETSID_GAP);
    // Only the read-only mount view closes these gaps.
    if (!view) gaps.unshift(METADATA_GAP, HIDDEN_DIRS_GAP, HOST_TERMINALS_GAP);
    return { filesystem: view ? "full" : "partial", network, gaps, launcher: runtime };
  };
  // The launcher says when it failed; a deno gone since the probe is named
  // by what could not execute it (the setsid binary says "failed to execute").
  const runnerFailed = (outcome: LaunchOutcome): boolean =>
    (unshare !== undefined && outcome.exitCode === 1 &&
      firstLine(outcome.stderrText).startsWith("unshare: ")) ||
    (outcome.exitCode === LAUNCHER_FAILURE_EXIT &&
      firstLine(outcome.stderrText).startsWith(LAUNCHER_FAILURE_PREFIX)) ||
    ((outcome.exitCode === 126 || outcome.exitCode === 127) &&
      firstLine(outcome.stderrText).includes(`${runnerPath}: `));
  return {
    name: "landlock",
    landlockAbi: () => abi,
    // The launcher joins the cgroups first and sets the rlimits right before
    // the exec (Deno must start unlimited), so no limiter shell runs.
    wrap,
    standby,
    runners: () => unshare === undefined ? [runnerPath] : [unshare, runnerPath],
    runnerFolders: () => [{ name: LAUNCHER_FOLDER, path: setup.launcherDir }],
    // On stdin like a call's: the probe's environment is the executor's (the
    // agent's, scrubbed), which no other user may read on a command line either.
    probeLaunch: (launch, policy) => ({
      ...launcherLaunch([LAUNCHER_INPUT_FLAG], launch.cwd),
      input: launcherInput(runtime, launcherArgs(launch, policy, undefined, true), false),
    }),
    probeFailure: (outcome: ProbeOutcome) => {
      const line = outcome.stdout.split("\n").find((l) => l.startsWith(LAUNCHER_ABI_PREFIX));
      if (outcome.exitCode !== 0 || line === undefined) return probeFailureReason(outcome);
      abi = Number(line.slice(LAUNCHER_ABI_PREFIX.length).trim());
      return undefined;
    },
    enforcement,
    runnerFailed,
    // The first line with a signature decides which access was denied. A
    // network failure or a refused socket (see networkDenial) is the
    // network's when it is denied. A "Permission denied" line naming a path
    // is Landlock's unless every path it names is writable under the policy
    // (then it is an ordinary permission problem). One naming neither a path
    // nor the network (System V IPC, say) is not classed: EACCES says nothing
    // of which rule refused it, and bubblewrap would not class it either. One
    // at a mask is the policy's (see policyDenial), whatever the mode.
    denied: (outcome: LaunchOutcome, policy: ConfinedPolicy, cwd: string) => {
      if (outcome.exitCode === null || outcome.exitCode === 0 || runnerFailed(outcome)) {
        return undefined;
      }
      if (policy.terminal === true && !view) {
        throw new BashSpawnError(
          `The Landlock sandbox gives a command a terminal only in a mount namespace of its own, which needs root or util-linux unshare with user namespaces; start it without "terminal", or use the bwrap backend (install bubblewrap)`,
        );
      }
      const { dirs, files } = writablePaths(policy, setup.tmpDir);
      const writable = [...dirs, ...files];
      return deniedByLines(outcome, policy, cwd, {
        refused: DENIED,
        first: (line) => READ_ONLY.test(line) ? (view ? "filesystem" : "next") : undefined,
        writable: (path) => writable.some((root) => isBeneath(path, root)),
      });
    },
  };
}
