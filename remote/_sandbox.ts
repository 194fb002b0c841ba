import { posix } from "node:path";
import {
  BashConfigError,
  type BashSandboxInfo,
  BashSpawnError,
  type SandboxEnforcement,
  type SandboxPolicy,
  SandboxUnavailableError,
  type SandboxViolation,
} from "../seam/mod.ts";
import { confines, isBeneath, type Launch, type LaunchOutcome } from "../engine/mod.ts";
import { DEFAULT_DENY_READ, DEFAULT_PROTECTED_PATHS } from "../sandbox/mod.ts";
import { protectedPathList } from "../sandbox/policy.ts";
import {
  checkedPolicyPaths,
  type ConfinedPolicy,
  outermost,
  secretMasks,
  socketRule,
} from "../sandbox/backends/mod.ts";
import {
  bwrapDenied,
  bwrapEnforcement,
  type BwrapFilters,
  bwrapFilters,
  type BwrapFolders,
  bwrapRunnerFailed,
  REMOTE_PATHS,
  wrapInBwrap,
} from "../sandbox/backends/bwrap/mod.ts";
import { parseView, type ViewKind, viewProbe } from "./_view.ts";
import type { Preparation } from "./_channel.ts";
import { USER_FOLDER } from "./_bootstrap_script.ts";
import type { RemoteTools } from "./_tools.ts";

/** How the executor runs a command under a policy on the remote host. */
export interface RemotePlan {
  /**
   * The environment to send (none for a wrapped command: bwrap sets it
   * inside, from the options the wrapper reads on its stdin).
   */
  env: Record<string, string>;
  /** For a confined command: the probe to run first in its channel, and the wrapper it plans. */
  prepare?: Preparation;
  /** The command's sandbox facts, once it settled, with the protected paths it made (moved away). */
  describe: (outcome: LaunchOutcome, violations: readonly SandboxViolation[]) => BashSandboxInfo;
}

/** How a probe of the remote host ended. */
export interface ProbeResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** What the remote host offers for confinement, learned once. */
interface RemoteBwrap {
  /** Where the remote side finds its own programs, the remote bash among them. */
  tools: RemoteTools;
  bwrap: string;
  filters: BwrapFilters | undefined;
  /** A private folder made on the remote host for this executor, with the commands' TMPDIR. */
  folders: BwrapFolders;
  /**
   * The remote user's folder of shellseam folders (see `USER_FOLDER`), the
   * private folder above among them: hidden from every confined command,
   * which sees its own private folder only.
   */
  userFolder: string;
  /**
   * The remote session's environment, as the bootstrap passes it on to an
   * unconfined command: bwrap sets a confined command's whole environment.
   */
  baseEnv: Record<string, string>;
}

/** What the bootstrap drops from the remote session's environment, and what bash sets itself. */
function keptFromSession(name: string): boolean {
  return !name.startsWith("SHELLSEAM_") && !name.startsWith("BASH_FUNC_") &&
    !["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PWD", "OLDPWD", "SHLVL", "_"].includes(name);
}

/**
 * The probe: bwrap's path, the machine, a private folder (0700, from
 * mktemp) with the commands' TMPDIR, made in the user's folder of shellseam
 * folders (made when missing), both by their canonical paths (the writable
 * roots are compared with them: a root that reaches one through a symlink
 * must still see it read-only, or hidden), then the session's environment,
 * NUL-separated.
 */
const PROBE = `command -v bwrap || exit 3; uname -m; ${USER_FOLDER} && ` +
  'rf=$(realpath -e -- "$rf") && d=$(mktemp -d "$rf/ssh-XXXXXX") && mkdir "$d/tmp" && ' +
  'echo "$d" && echo "$rf" || exit 4; env -0';

/** `uname -m` names as `process.arch` names them (the seccomp filters' keys). */
const ARCH_NAMES: Readonly<Record<string, string>> = { x86_64: "x64", aarch64: "arm64" };

/**
 * Confinement on the remote host with the bwrap backend's own code: the
 * same arguments, wrapper and seccomp filter, built for the remote host's
 * `bwrap` and architecture (learned by a probe, once per executor) and its
 * paths taken as given. Without a working `bwrap` there, confined modes fail
 * closed with `SandboxUnavailableError`.
 */
export class RemoteSandbox {
  readonly #host: string;
  readonly #tools: () => Promise<RemoteTools>;
  readonly #probe: (argv: string[]) => Promise<ProbeResult>;
  #facts: Promise<RemoteBwrap> | null = null;
  #folder: string | null = null;

  /**
   * The sandbox of `host`, whose probes run by `probe`; `tools` learns where
   * the remote side finds its own programs (once), before anything is confined.
   */
  constructor(
    host: string,
    tools: () => Promise<RemoteTools>,
    probe: (argv: string[]) => Promise<ProbeResult>,
  ) {
    this.#host = host;
    this.#tools = tools;
    this.#probe = probe;
  }

  /**
   * How to run `launch` confined by `policy` (unwrapped for
   * `danger-full-access`): the environment to send, the probe that looks at
   * the remote filesystem in the command's own channel just before it starts
   * and whose output plans the bwrap wrapper (`prepare`), and how to describe
   * the settled command's sandbox. The wrapper reads bwrap's options (the
   * command's environment among them) from its stdin, never from a command
   * line, and the command keeps the stdin after them when `keepStdin`.
   */
  async confine(policy: SandboxPolicy, launch: Launch, keepStdin: boolean): Promise<RemotePlan> {
    const mode = policy?.mode;
    if (!confines(mode)) {
      return { env: launch.env, describe: () => ({ mode, backend: "none", denied: false }) };
    }
    const confined = confinedPolicy(policy);
    const denyRead = checkedPolicyPaths(
      "sandboxPolicy.denyRead",
      policy.denyRead ?? DEFAULT_DENY_READ,
    );
    const allowRead = checkedPolicyPaths("sandboxPolicy.allowRead", policy.allowRead ?? []);
    const facts = await this.#learn();
    const roots = [confined.workspaceRoot, ...confined.writableRoots];
    const paths: [ViewKind, string][] = [
      ...denyRead.map((path): [ViewKind, string] => ["deny", path]),
      ...allowRead.map((path): [ViewKind, string] => ["allow", path]),
      ...roots.map((path): [ViewKind, string] => ["keep", path]),
      ...confined.readOnlyPaths.map((path): [ViewKind, string] => ["protected", path]),
    ];
    const inside = { ...launch, env: { ...facts.baseEnv, ...launch.env } };
    let missing: string[] = [];
    return {
      // The wrapper and bwrap run with none of it: bwrap sets it inside (see wrapInBwrap).
      env: {},
      prepare: {
        argv: viewProbe(facts.tools.shell, facts.folders.privateDir, paths),
        finish: (exitCode, output) => {
          if (exitCode !== 0) {
            throw new BashSpawnError(
              `The sandbox could not look at the filesystem of ${this.#host} (exit ${exitCode}), so nothing was run; check the remote private folder "${facts.folders.privateDir}"`,
            );
          }
          // What the command will see, looked at just before it starts, as the local sandbox does.
          const view = parseView(this.#host, output);
          const keep = roots.map((root) => view.realpath(root) ?? root);
          if (confined.mode === "workspace-write") {
            refuseUnconfinedReads(this.#host, facts.tools, roots, keep);
          }
          // Canonical, as the private folder is: bwrap keeps that folder read-only in a
          // root that holds it, which it judges by the paths (a symlinked root hid it).
          confined.workspaceRoot = keep[0]!;
          confined.writableRoots = keep.slice(1);
          // What lies in the hidden user's folder (but not in the private folder bound back)
          // needs no mask, and a mask there would fail the launch (its mount point is gone
          // under the hiding tmpfs).
          confined.masks = outermost(
            secretMasks(denyRead, allowRead, view.home, keep, view.fs),
          ).filter((mask) =>
            !isBeneath(mask.path, facts.userFolder) ||
            isBeneath(mask.path, facts.folders.privateDir)
          );
          confined.maskFile = `${facts.folders.privateDir}/mask`;
          // Every call's stdin spool and every other executor's private folder, of this
          // remote user: hidden, so the command reads no other call's stdin bytes (its own
          // arrive on its stdin) and no other executor's files; its own folder is bound back.
          confined.hiddenParents = [facts.userFolder];
          // Bound read-only only where they exist; a missing one is named in the result.
          missing = confined.mode === "workspace-write"
            ? confined.readOnlyPaths.filter((path) => view.realpath(path) === undefined)
            : [];
          const wrapped = wrapInBwrap(
            facts.bwrap,
            facts.filters?.[socketRule(confined)],
            inside,
            confined,
            facts.folders,
            REMOTE_PATHS,
            undefined,
            { keepStdin },
          );
          // What the command makes there is moved to the remote quarantine once it settled.
          const quarantine = missing.map((path): [string, string] => [
            path,
            `${facts.folders.privateDir}/quarantine/${crypto.randomUUID()}-${posix.basename(path)}`,
          ]);
          return {
            argv: [wrapped.program, ...wrapped.args],
            ...(wrapped.input === undefined ? {} : { input: wrapped.input }),
            quarantine,
          };
        },
      },
      describe: (outcome, violations) => {
        const info: BashSandboxInfo = {
          mode: confined.mode,
          backend: "bwrap",
          denied: false,
          enforcement: remoteEnforcement(facts.filters !== undefined, confined, missing),
        };
        if (violations.length > 0) info.violations = [...violations];
        if (bwrapRunnerFailed(outcome)) info.runnerFailed = true;
        else {
          const denial = bwrapDenied(outcome, confined, launch.cwd);
          if (denial !== undefined) {
            info.denied = true;
            info.denial = denial;
          }
        }
        return info;
      },
    };
  }

  #learn(): Promise<RemoteBwrap> {
    if (this.#facts === null) {
      const facts = this.#probeBwrap();
      this.#facts = facts;
      // Only an answer is kept: a probe that could not run (a lost connection) is tried again.
      facts.catch((error) => {
        if (!(error instanceof SandboxUnavailableError) && this.#facts === facts) {
          this.#facts = null;
        }
      });
    }
    return this.#facts;
  }

  async #probeBwrap(): Promise<RemoteBwrap> {
    const unavailable = (reason: string): SandboxUnavailableError =>
      new SandboxUnavailableError(
        `No sandbox backend works on ${this.#host}, so a confined mode cannot run there; install bubblewrap there or run with "danger-full-access"`,
        [{ backend: "bwrap", reason }],
      );
    const tools = await this.#tools();
    const found = await this.#probe([tools.shell, "--norc", "--noprofile", "-c", PROBE]);
    if (found.exitCode === 3) throw unavailable('"bwrap" was not found on the remote PATH');
    const [bwrap, machine, dir, userFolder, ...rest] = found.stdout.split("\n");
    if (
      found.exitCode !== 0 || bwrap === undefined || !bwrap.startsWith("/") ||
      dir === undefined || !dir.startsWith("/") || userFolder === undefined ||
      !userFolder.startsWith("/")
    ) {
      throw unavailable(`the probe failed: ${found.stderr.trim() || `exit ${found.exitCode}`}`);
    }
    this.#folder = dir;
    const baseEnv: Record<string, string> = {};
    for (const entry of rest.join("\n").split("\0")) {
      const at = entry.indexOf("=");
      if (at > 0 && keptFromSession(entry.slice(0, at))) {
        baseEnv[entry.slice(0, at)] = entry.slice(at + 1);
      }
    }
    // The probe ran with the search path of the remote side's programs: commands get the session's.
    if (tools.sessionPath === undefined) delete baseEnv.PATH;
    else baseEnv.PATH = tools.sessionPath;
    const arch = ARCH_NAMES[machine ?? ""] ?? machine ?? "";
    const facts: RemoteBwrap = {
      tools,
      bwrap,
      filters: bwrapFilters(arch),
      folders: { privateDir: dir, tmpDir: `${dir}/tmp` },
      userFolder,
      baseEnv,
    };
    const trial = wrapInBwrap(
      facts.bwrap,
      facts.filters?.none,
      { program: tools.shell, args: ["--norc", "--noprofile", "-c", "true"], cwd: "/", env: {} },
      {
        mode: "read-only",
        workspaceRoot: "/",
        writableRoots: [],
        network: "deny",
        protectedPaths: [],
        readOnlyPaths: [],
        unixSockets: false,
        masks: [],
        maskFile: "",
      },
      facts.folders,
      REMOTE_PATHS,
    );
    const tried = await this.#probe([trial.program, ...trial.args]);
    if (tried.exitCode !== 0) {
      throw unavailable(
        `"${bwrap}" cannot confine there: ${tried.stderr.trim().split("\n")[0] ?? ""}`,
      );
    }
    return facts;
  }

  /** The remote private folder, once made; the executor removes it at disposal. */
  get folder(): string | null {
    return this.#folder;
  }
}

/**
 * Throws `SandboxUnavailableError` when one of a call's writable `roots`
 * (each as given and by its `canonical` path) holds what the remote side
 * runs or reads unconfined, where a confined command could plant its own:
 *
 * 1. a folder in which the remote side finds its own programs (see `_tools.ts`);
 * 2. a location through which sshd or the login shell reads a file before
 *    the bootstrap runs, at every channel (see `_login_files.ts`);
 * 3. whatever the roots, when the home sshd reads from is unknown (the
 *    remote user database could not be read): any root could hold it.
 */
function refuseUnconfinedReads(
  host: string,
  tools: RemoteTools,
  roots: readonly string[],
  canonical: readonly string[],
): void {
  const holder = (path: string): string | undefined =>
    roots.find((root, at) => isBeneath(path, root) || isBeneath(path, canonical[at] ?? root));
  const refusal = (remedy: string, reason: string): SandboxUnavailableError =>
    new SandboxUnavailableError(
      `No sandbox backend can confine this command on ${host}, so the "workspace-write" command was not run; ${remedy}, or run it as "danger-full-access"`,
      [{ backend: "bwrap", reason }],
    );
  const folder = tools.folders.find((folder) => holder(folder) !== undefined);
  if (folder !== undefined) {
    throw refusal(
      "take the folder named below off the remote PATH or narrow the writable roots",
      `"${folder}" holds programs the remote side runs unconfined (its bootstrap's, a ` +
        "terminal's resize) and lies in a writable root, where a confined command could plant " +
        "one of its own; take that folder off the remote PATH or narrow the writable roots",
    );
  }
  if (tools.passwdUnread !== undefined) {
    const remedy = `make "getent passwd" work on ${host} for the remote user`;
    throw refusal(
      remedy,
      `the remote user's entry in the user database could not be read (${tools.passwdUnread}), ` +
        "so the home where sshd reads ~/.ssh/rc and the login shell's files before the sandbox " +
        `applies is unknown, and a writable root could hold it; ${remedy}, or run the command ` +
        '"read-only"',
    );
  }
  for (const { path, locations } of tools.loginFiles) {
    // The last one a root holds, the most precise (a root that holds the home holds its parent).
    const location = locations.findLast((location) => holder(location) !== undefined);
    if (location === undefined) continue;
    const below = tools.home === "" ? "" : ` below the remote home "${tools.home}"`;
    const read = location === path
      ? `"${path}", which sshd or the remote login shell reads`
      : `"${location}", through which sshd or the remote login shell reads "${path}"`;
    throw refusal(
      `make the workspace and writable roots folders${below} that hold none of the paths named below`,
      `the writable root "${holder(location)}" holds ${read} before the sandbox applies (at ` +
        "every channel: a later command, a kill, a resize), so a confined command could make " +
        "the remote host run its code unconfined there; use writable roots that hold none of it",
    );
  }
}

/** The policy as the bwrap arguments take it; its paths are the remote host's, taken as given. */
function confinedPolicy(policy: SandboxPolicy): ConfinedPolicy {
  const { mode, network, workspaceRoot } = policy ?? {};
  if (mode !== "read-only" && mode !== "workspace-write") {
    throw new BashConfigError(
      `"sandboxPolicy.mode" must be "read-only", "workspace-write" or "danger-full-access"; got ${
        JSON.stringify(mode)
      }`,
    );
  }
  if (network !== "deny" && network !== "allow") {
    throw new BashConfigError(
      `"sandboxPolicy.network" must be "deny" or "allow"; got ${JSON.stringify(network)}`,
    );
  }
  const absolute = (field: string, path: unknown): string => {
    if (typeof path !== "string" || !posix.isAbsolute(path) || path.includes("\0")) {
      throw new BashConfigError(
        `"sandboxPolicy.${field}" must be an absolute path on the remote host; got ${
          JSON.stringify(path)
        }`,
      );
    }
    return posix.resolve(path);
  };
  const root = absolute("workspaceRoot", workspaceRoot);
  const writableRoots = (policy.writableRoots ?? []).map((path) => absolute("writableRoots", path));
  // The local policy's own check: relative, no ".." (posix.join would leave the root).
  const protectedPaths = protectedPathList(policy.protectedPaths ?? DEFAULT_PROTECTED_PATHS);
  return {
    mode,
    network,
    workspaceRoot: root,
    writableRoots,
    protectedPaths,
    // Bound read-only where they exist when bwrap starts (--ro-bind-try); what the local
    // sandbox does beyond that (symlink and gitdir targets, nested repositories, moving away
    // what a command created) needs the remote filesystem and is not done.
    readOnlyPaths: [root, ...writableRoots].flatMap((base) =>
      protectedPaths.map((name) => posix.join(base, name))
    ),
    // Under network deny no Unix socket may be made (no allowUnixSockets over SSH); the
    // denyRead masks are planned over the remote filesystem by confine().
    unixSockets: false,
    masks: [],
    maskFile: "",
  };
}

/** What the remote host's users are told the local sandbox does and this one does not. */
export const REMOTE_SANDBOX_GAPS: readonly string[] = Object.freeze([
  "protected paths on the remote host: only at the top of each writable root, not in the folders " +
  "below it, and symlink or gitdir: targets and the folder core.hooksPath names are not made " +
  "read-only (the local sandbox does all of these)",
]);

/** Names the protected paths that did not exist when the command started (one gap for all). */
export function missingProtectedGap(paths: readonly string[]): string {
  return `protected paths missing on the remote host when the command started, so the command could create them: ${
    paths.map((path) => `"${path}"`).join(", ")
  }; what it made there is moved to the remote quarantine once it settled (see violations)`;
}

/**
 * The bwrap facts, with what the remote sandbox leaves out named as gaps:
 * those of every remote command and the protected paths that were missing.
 */
function remoteEnforcement(
  filtered: boolean,
  confined: Parameters<typeof bwrapEnforcement>[1],
  missing: readonly string[],
): SandboxEnforcement {
  const facts = bwrapEnforcement(filtered, confined);
  return {
    ...facts,
    filesystem: "partial",
    gaps: [
      ...facts.gaps,
      ...REMOTE_SANDBOX_GAPS,
      ...(missing.length === 0 ? [] : [missingProtectedGap(missing)]),
    ],
  };
}
