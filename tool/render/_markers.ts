import { existsSync } from "node:fs";
import type {
  BashSandboxInfo,
  BinaryStream,
  ResourceLimitHit,
  SandboxMode,
  SandboxViolation,
  StrayReport,
} from "../../seam/mod.ts";
import { widerSandboxModes } from "../../seam/sandbox.ts";
import { stripTerminalControls } from "./_terminal.ts";
import { redactSecrets } from "./_redact.ts";

/** The line for a command that the executor's disposal stopped before it finished. */
export const DISPOSED_MARKER =
  "[stopped: the executor was shut down (disposed) before the command finished]";

/**
 * The line for a remote command whose connection was lost while it ran: the
 * remote side kills it then, but what it did before is unknown.
 */
export const CONNECTION_LOST_MARKER: string =
  "[connection lost: the connection to the remote host was lost while the command ran, so its " +
  "state is unknown: it may not have run, or may have run partly or fully; check its effects " +
  "(files, processes, remote state) before running it again]";

const LIMIT_NAMES: Record<ResourceLimitHit["limit"], string> = {
  cpu: "CPU time",
  fileSize: "file size",
  memory: "memory",
  processes: "process count",
};

/**
 * The line for a resource limit a command ran into, saying whether that is
 * a fact (the command's cgroup counted it, or the shell got the limit's
 * signal) or a judgement (from stderr or the exit status).
 */
export function limitLine(hit: ResourceLimitHit): string {
  const how = hit.evidence === "cgroup"
    ? hit.limit === "memory"
      ? "its cgroup's out-of-memory killer ended a process"
      : "its cgroup refused a new process"
    : hit.certain
    ? "the shell received the limit's signal"
    : hit.evidence === "stderr"
    ? "judged from its stderr"
    : "judged from its exit status";
  return `[resource limit: the command ran into its ${LIMIT_NAMES[hit.limit]} limit (${how})]`;
}

/** A byte count as a person reads it: `512 bytes`, `18 KB`, `3.2 MB`. */
function readableSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * A stream's spill file, named only while it exists: the executor may delete
 * old spill files to stay within its spill budget (or `release()` did), so a
 * result rendered late may no longer have one. Every marker that names a
 * spill file asks this, so they agree.
 */
export function keptSpillPath(stream: { spillPath?: string }): string | undefined {
  const path = stream.spillPath;
  return path !== undefined && existsSync(path) ? path : undefined;
}

/**
 * The one line shown instead of a stream that is not text:
 * `[binary output: 18 KB (looks like image/png); saved to <path>]`, with
 * `on stderr` for that stream, the beginning only when the spill file stopped
 * early, and the reason when no file holds it. `so far` marks a stream that is
 * still running.
 */
export function binaryLine(
  stream: { binary: BinaryStream; spillPath?: string; spillComplete: boolean; spillError?: string },
  name: "stdout" | "stderr",
  running = false,
): string {
  const where = name === "stderr" ? " on stderr" : "";
  const size = `${readableSize(stream.binary.totalBytes)}${running ? " so far" : ""}`;
  const kind = stream.binary.looksLike === undefined
    ? ""
    : ` (looks like ${stream.binary.looksLike})`;
  const path = keptSpillPath(stream);
  const saved = path === undefined
    ? `not saved: ${stream.spillError ?? "no spill file was kept"}`
    : stream.spillComplete || running
    ? `saved to ${path}`
    : `only the beginning saved to ${path}${
      stream.spillError === undefined ? "" : ` (${stream.spillError})`
    }`;
  return `[binary output${where}: ${size}${kind}; ${saved}]`;
}

/**
 * The line for a stream that the executor stopped reading before its end
 * (see `CollectedOutput.cut`): what came is shown, the rest is missing.
 */
export function cutLine(name: "stdout" | "stderr", cut: string): string {
  return `[${name} cut short: the executor stopped reading it before its end, so the rest of it is missing: ${cut}]`;
}

/**
 * The output part of a rendering: stdout, then a `[stderr]` section, each
 * cleaned of terminal controls, with the values of `secrets` redacted, and
 * followed by its own extra marker lines; `empty` when there is nothing to
 * show at all.
 */
export function outputLines(
  streams: { stdout: string; stdoutMarkers: string[]; stderr: string; stderrMarkers: string[] },
  empty: string,
  secrets: Readonly<Record<string, string>>,
): string[] {
  const stdout = showable(streams.stdout, secrets);
  const stderr = showable(streams.stderr, secrets);
  const lines: string[] = [];
  if (stdout !== undefined) lines.push(stdout);
  lines.push(...streams.stdoutMarkers);
  if (stderr !== undefined) lines.push("[stderr]", stderr);
  lines.push(...streams.stderrMarkers);
  if (lines.length === 0) lines.push(empty);
  return lines;
}

function showable(text: string, secrets: Readonly<Record<string, string>>): string | undefined {
  const clean = redactSecrets(stripTerminalControls(text), secrets);
  if (clean.trim() === "") return undefined;
  return clean.endsWith("\n") ? clean.slice(0, -1) : clean;
}

/**
 * The sandbox marker lines: a runner failure, or a denial (of file or of
 * network access; one line per destination a network allow-list refused)
 * followed by the escalation hint naming those of
 * `escalationModes` that are wider than the mode the command ran under and
 * would grant it; then one line per protected path the command created or
 * replaced, saying where it was moved (and, when a person may approve it, that
 * an unconfined retry could write it). The network policy is not part of the
 * mode, so only `danger-full-access` (unconfined) grants a denied network.
 */
export function sandboxLines(
  info: BashSandboxInfo | undefined,
  escalationModes: readonly SandboxMode[],
): string[] {
  if (!info) return [];
  const violations = violationLines(info.violations);
  // Only an unconfined call may write a protected path: a person approves it.
  const moved = (info.violations ?? []).some((v) => !v.unlisted && v.quarantinedTo !== null);
  if (
    moved && escalationModes.includes("danger-full-access") &&
    widerSandboxModes(info.mode).includes("danger-full-access")
  ) {
    violations.push(
      `[if the task needs a protected path written, retry the command once with sandbox_permissions "danger-full-access" and a justification; a person approves or rejects the retry]`,
    );
  }
  return [...denialLines(info, escalationModes), ...violations];
}

/**
 * The marker lines of protected paths that the command created or replaced
 * and the executor moved away (or could not), one each.
 */
export function violationLines(violations: readonly SandboxViolation[] | undefined): string[] {
  return (violations ?? []).map(violationLine);
}

function violationLine({ path, quarantinedTo, unlisted, walkBound }: SandboxViolation): string {
  if (walkBound !== undefined) {
    const how = walkBound === "entries" ? "with more entries" : "with folders nested deeper";
    return `[sandbox: the command filled ${path} ${how} than the check for protected paths walks, so nothing past that was kept read-only; the protected paths it created there were moved away (each listed); do not run git or direnv below it before checking, and tell the user]`;
  }
  if (unlisted && quarantinedTo !== null) {
    return `[sandbox: the command made the directory ${path} and left it unreadable, so it could not be checked for protected paths; it was moved to ${quarantinedTo}]`;
  }
  return quarantinedTo === null
    ? `[sandbox: the command created or replaced the protected path ${path}, which could not be moved away; do not run git (or what reads it) there, and tell the user]`
    : `[sandbox: the command created or replaced the protected path ${path}, which commands may not write; it was moved to ${quarantinedTo}]`;
}

function denialLines(info: BashSandboxInfo, escalationModes: readonly SandboxMode[]): string[] {
  if (info.runnerFailed) {
    return [
      `[sandbox failure: the ${info.backend} sandbox itself failed, so the command may not have run; this is not a permission denial and sandbox_permissions will not fix it; tell the user]`,
    ];
  }
  // Each destination the network allow-list refused, whether or not the command failed.
  const refused = (info.refusedDestinations ?? []).map((host) =>
    `[sandbox: network access to ${host} denied by policy]`
  );
  if (!info.denied) return refused;
  if (info.denial === "secret") {
    return [
      `[sandbox: read withheld by policy under ${info.mode} mode: the path is in the sandbox's denyRead list (credentials are kept from commands); it exists but cannot be read here, and no retry or other route will read it; if the task needs it, tell the user]`,
    ];
  }
  const network = info.denial === "network";
  const lines = refused.length > 0 && network ? refused : [
    `[sandbox: ${network ? "network" : "file"} access denied under ${info.mode} mode]`,
  ];
  const wider = widerSandboxModes(info.mode);
  const helping = escalationModes.filter((mode) =>
    wider.includes(mode) && (!network || mode === "danger-full-access")
  );
  if (helping.length > 0) {
    const modes = helping.map((mode) => JSON.stringify(mode)).join(" or ");
    lines.push(
      `[if the command needs that access, retry it once with sandbox_permissions ${modes} and a justification; a person approves or rejects the retry]`,
    );
  }
  return lines;
}

/** A label on one line, at most 120 characters. */
export function oneLine(label: string): string {
  const flat = label.replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

/**
 * The stray lines that call for attention: processes left by the command
 * that would not stop, and a census that could not be taken (the process
 * group was killed, but what left it may still run).
 */
export function strayTroubleLines(strays: StrayReport): string[] {
  const lines: string[] = [];
  if (strays.survivors.length > 0) {
    lines.push(
      `[${strays.survivors.length} process(es) left running by the command could not be stopped: pid ${
        strays.survivors.join(", ")
      }]`,
    );
  }
  if (strays.censusFailed !== undefined) {
    lines.push(
      `[could not check for processes left running by the command (${
        oneLine(strays.censusFailed)
      }); its process group was killed, but processes that left it may still run]`,
    );
  }
  return lines;
}
