/**
 * How the executor talks to the Landlock launcher (the Perl one,
 * `_perl_launcher.ts`, or the Deno one, `_launcher.ts`): the policy it is
 * told to enforce, the flags that say where its arguments come from, the
 * form it reads them in, and how it tells its own failure and the kernel's
 * Landlock ABI.
 *
 * @module
 */
import type { Rlimit } from "../../../engine/mod.ts";
import { launcherRecord } from "./_launcher_record.ts";

/** Which launcher runs: the Perl one (`_perl_launcher.ts`) or the Deno one (`_launcher.ts`). */
export type LauncherRuntime = "perl" | "deno";

/**
 * What the launcher is told to enforce; passed in its first argument, as
 * JSON to the Deno launcher, as a launcher record to the Perl one (see
 * {@linkcode launcherText}).
 */
export interface LandlockLauncherPolicy {
  /** Paths (with everything beneath) that may be read and executed. */
  readPaths: string[];
  /**
   * Paths beneath `readPaths` that must stay unreadable without a mount
   * namespace to mask them: each read path holding one is granted listing
   * only, and reading around them (every entry along the way but theirs, as
   * listed at launch).
   */
  unreadable?: string[];
  /** Directories beneath which everything may also be written. */
  writeDirs: string[];
  /** Files (such as /dev/null) that may also be written. */
  writeFiles: string[];
  /**
   * With `deny` and ABI >= 4, TCP bind and connect are denied. With `proxy`
   * the command runs in a network namespace of its own (only a loopback
   * with the bridge to the proxy): TCP is left alone, abstract Unix sockets
   * outside the sandbox are refused as under `deny`.
   */
  network: "deny" | "allow" | "proxy";
  /**
   * When present (for root): in a private mount namespace, every mount is made
   * read-only but fresh binds of these paths. Landlock does not cover modes,
   * timestamps nor extended attributes, which an owner (root owns nearly
   * everything) may change on any file it can reach.
   */
  writableMounts?: string[];
  /** With `writableMounts`: paths bound back read-only beneath them (such as `<root>/.git`). */
  readOnlyMounts?: string[];
  /** With `writableMounts`: folders covered by an empty read-only tmpfs, last. */
  hiddenMounts?: string[];
  /**
   * With `writableMounts`: paths covered last, read-only, by `source` (an
   * empty mode-000 file) or, without a source, an empty mode-000 tmpfs, so
   * reads there are denied.
   */
  masks?: { source?: string; path: string }[];
  /**
   * With `writableMounts`: a fresh `devpts` instance on `/dev/pts` and its
   * `ptmx` bound on `/dev/ptmx`, mounted before Landlock forbids mounting,
   * so the command can open terminals of its own and sees none of the
   * host's (the policy then lists `/dev/pts` and `/dev/ptmx` as writable).
   */
  terminal?: boolean;
  /** A seccomp filter (`struct sock_filter` bytes) to install last, when the backend has one. */
  seccompFilter?: number[];
  /**
   * The `cgroup.procs` files of the command's cgroups: the launcher writes
   * its pid to each first (all it starts is in them), and fails when it cannot.
   */
  cgroupProcs?: string[];
  /**
   * The rlimits to set right before the exec (Deno itself runs unlimited):
   * each `RLIMIT_*` number, soft then hard, as `ulimit -S` then `-H` would
   * (sizes in bytes); one the kernel refuses leaves the stricter in force.
   */
  rlimits?: Rlimit[];
  /** Print `shellseam-landlock-abi: N` on stdout before exec (for probing). */
  reportAbi?: boolean;
  /**
   * How many `NAME=value` arguments follow the policy: the command's whole
   * environment. The launcher's own environment never reaches the command,
   * and the command's never reaches Deno (which runs unconfined).
   */
  envEntries: number;
}

/** The exit code of the launcher when it failed itself (before the command ran). */
export const LAUNCHER_FAILURE_EXIT = 125;

/** The prefix of every line the launcher prints when it failed itself. */
export const LAUNCHER_FAILURE_PREFIX = "shellseam-landlock:";

/** The launcher's first argument when it starts as a standby (see `landlockLauncherMain` in `_launcher.ts`). */
export const LAUNCHER_STANDBY_FLAG = "--standby";

/**
 * The launcher's first argument when it reads its arguments from stdin
 * (see `landlockLauncherMain` in `_launcher.ts`, and {@linkcode launcherInput}).
 */
export const LAUNCHER_INPUT_FLAG = "--input";

/**
 * `value` in the form the `runtime`'s launcher reads: JSON for the Deno
 * launcher, a launcher record (`_launcher_record.ts`) for the Perl one,
 * whose perl may have no JSON module.
 */
export function launcherText(runtime: LauncherRuntime, value: unknown): string {
  return runtime === "deno" ? JSON.stringify(value) : launcherRecord(value);
}

/**
 * What a launcher started with {@linkcode LAUNCHER_INPUT_FLAG} reads from
 * its stdin before the command's own: its arguments (the command's
 * environment among them, which then shows on no command line) and whether
 * the command keeps that stdin (else it gets /dev/null): the length in bytes
 * of `{ args, keepStdin }` in the `runtime`'s form, a newline, then that form.
 */
export function launcherInput(
  runtime: LauncherRuntime,
  args: string[],
  keepStdin: boolean,
): Uint8Array {
  const text = new TextEncoder().encode(launcherText(runtime, { args, keepStdin }));
  const head = new TextEncoder().encode(`${text.length}\n`);
  const input = new Uint8Array(head.length + text.length);
  input.set(head);
  input.set(text, head.length);
  return input;
}

/**
 * What a standby launcher (started with {@linkcode LAUNCHER_STANDBY_FLAG})
 * reads from its stdin to its end: the launch's working directory and
 * arguments, as `{ cwd, args }` in the `runtime`'s form.
 */
export function standbyInput(runtime: LauncherRuntime, cwd: string, args: string[]): Uint8Array {
  return new TextEncoder().encode(launcherText(runtime, { cwd, args }));
}

/** The prefix of the ABI line printed with `reportAbi`. */
export const LAUNCHER_ABI_PREFIX = "shellseam-landlock-abi:";
