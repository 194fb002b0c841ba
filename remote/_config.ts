import { isAbsolute } from "node:path";
import { BashConfigError, type ResourceLimits } from "../seam/mod.ts";
import { checkKnownKeys, kindOf, wholeNumber } from "../seam/checks.ts";
import { findOnPath, type LocalBashExecutorConfig, resolveConfig } from "../engine/mod.ts";

/**
 * Options of an {@linkcode SshBashExecutor}: where to connect and how, and
 * the same limits as the local executor (`timeoutMs`, `maxTimeoutMs`,
 * `maxOutputBytes`, `headBytes`, `maxSpillBytes`, `killGraceMs`,
 * `drainGraceMs`, `keepSpillFiles`, `limits`, with the same defaults;
 * resource `limits` are applied on the remote host as rlimits).
 *
 * | field | default | meaning |
 * |---|---|---|
 * | `host` | required | host name or address |
 * | `port` | ssh's (22) | port |
 * | `user` | ssh's (the local user) | remote user |
 * | `identityFile` | ssh's keys and agent | private key; only it is offered |
 * | `knownHostsFile` | ssh's (`~/.ssh/known_hosts`) | where the host's key must be listed |
 * | `hostKeyChecking` | `"strict"` | `"accept-new"` adds a host not listed yet (never a changed key) |
 * | `sshConfigFile` | none (`-F none`) | an ssh_config file to read |
 * | `sshOptions` | `[]` | more `Name=value` options for `ssh -o` |
 * | `connectTimeoutSeconds` | 10 | how long opening the connection may take |
 * | `maxChannels` | 10 | commands at once over the connection (sshd's `MaxSessions`); more wait; background processes get at most `maxChannels - 1` (one is kept for foreground runs), and `start()` beyond that rejects |
 * | `cwd` | `"/"` | absolute remote directory that relative workdirs resolve against |
 * | `shell` | `"bash"` | the remote bash (name on the remote PATH, or absolute path) |
 * | `ssh` | `ssh` on PATH | the local OpenSSH client |
 *
 * @example
 * ```ts
 * import type { SshBashExecutorConfig } from "@shellseam/bash/remote";
 * import assert from "node:assert/strict";
 *
 * const config: SshBashExecutorConfig = {
 *   host: "build-1.internal",
 *   user: "agent",
 *   identityFile: "/home/me/.ssh/agent_ed25519",
 *   knownHostsFile: "/home/me/.ssh/known_hosts",
 *   cwd: "/srv/app",
 * };
 * assert.equal(config.cwd, "/srv/app");
 * ```
 */
export interface SshBashExecutorConfig
  extends Omit<LocalBashExecutorConfig, "cwd" | "sessionStrategy"> {
  /** Host name or address. */
  host: string;
  /** Port, when not 22. */
  port?: number;
  /** Remote user. */
  user?: string;
  /** Private key file. */
  identityFile?: string;
  /** The known_hosts file that must list the host's key. */
  knownHostsFile?: string;
  /** `"strict"` (default) or `"accept-new"`. */
  hostKeyChecking?: "strict" | "accept-new";
  /** An ssh_config file to read instead of none. */
  sshConfigFile?: string;
  /** More `Name=value` options for `ssh -o`. */
  sshOptions?: string[];
  /** Seconds that opening the connection may take. */
  connectTimeoutSeconds?: number;
  /** Commands at once over the one connection. */
  maxChannels?: number;
  /** Absolute remote directory that relative workdirs resolve against. */
  cwd?: string;
  /** The remote bash. */
  shell?: string;
  /** The local `ssh` client. */
  ssh?: string;
}

/**
 * A validated {@linkcode SshBashExecutorConfig} with every default filled in.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { SshBashExecutor } from "@shellseam/bash/remote";
 * import assert from "node:assert/strict";
 *
 * await using executor = new SshBashExecutor({ host: "build-1" });
 * assert.equal(executor.config.maxChannels, 10);
 * assert.equal(executor.config.hostKeyChecking, "strict");
 * ```
 */
export interface ResolvedSshBashExecutorConfig {
  /** Host name or address. */
  readonly host: string;
  /** Port, or `undefined` for ssh's (22). */
  readonly port: number | undefined;
  /** Remote user, or `undefined` for ssh's (the local user). */
  readonly user: string | undefined;
  /** Private key file, or `undefined` for ssh's keys and agent. */
  readonly identityFile: string | undefined;
  /** The known_hosts file that must list the host's key, or `undefined` for ssh's. */
  readonly knownHostsFile: string | undefined;
  /** How the host's key is checked: `"strict"` or `"accept-new"`. */
  readonly hostKeyChecking: "strict" | "accept-new";
  /** The ssh_config file read, or null for none (`-F none`). */
  readonly sshConfigFile: string | null;
  /** More `Name=value` options for `ssh -o`. */
  readonly sshOptions: readonly string[];
  /** Seconds that opening the connection may take. */
  readonly connectTimeoutSeconds: number;
  /** Commands at once over the one connection. */
  readonly maxChannels: number;
  /** Absolute remote directory that relative workdirs resolve against. */
  readonly cwd: string;
  /** The remote bash. */
  readonly shell: string;
  /** The local `ssh` client. */
  readonly ssh: string;
  /** Default wall-clock limit of a foreground run, in milliseconds. */
  readonly timeoutMs: number;
  /** Cap on per-call timeouts, in milliseconds. */
  readonly maxTimeoutMs: number;
  /** Bytes kept in memory per stream. */
  readonly maxOutputBytes: number;
  /** Bytes of the head of each stream. */
  readonly headBytes: number;
  /** Cap of each spill file, in bytes. */
  readonly maxSpillBytes: number;
  /** Time between SIGTERM and SIGKILL, in milliseconds. */
  readonly killGraceMs: number;
  /** How long pipes may stay open after the shell exits, in milliseconds. */
  readonly drainGraceMs: number;
  /** Keep the spill directory when the executor is disposed. */
  readonly keepSpillFiles: boolean;
  /** Resource limits of every command, as configured. */
  readonly limits: Readonly<ResourceLimits>;
}

/** The limits that this executor shares with the local one. */
const LIMIT_KEYS: readonly string[] = [
  "timeoutMs",
  "maxTimeoutMs",
  "maxOutputBytes",
  "headBytes",
  "maxSpillBytes",
  "killGraceMs",
  "drainGraceMs",
  "keepSpillFiles",
  "limits",
];

const SSH_CONFIG_KEYS: readonly string[] = [
  "host",
  "port",
  "user",
  "identityFile",
  "knownHostsFile",
  "hostKeyChecking",
  "sshConfigFile",
  "sshOptions",
  "connectTimeoutSeconds",
  "maxChannels",
  "cwd",
  "shell",
  "ssh",
  ...LIMIT_KEYS,
];

/** Throws unless `value` is a non-empty string without NUL, newline or a leading "-" (an ssh word). */
function word(field: string, value: unknown, what: string): string {
  if (
    typeof value !== "string" || value === "" || /[\0\n\r]/.test(value) || value.startsWith("-")
  ) {
    throw new BashConfigError(
      `"${field}" must be ${what} (a non-empty string without a leading "-", NUL or newline); got ${
        typeof value === "string" ? JSON.stringify(value) : kindOf(value)
      }`,
    );
  }
  return value;
}

function optional<T>(value: T | undefined, check: (value: T) => string): string | undefined {
  return value === undefined ? undefined : check(value);
}

/** Validates a config and fills its defaults; throws `BashConfigError` naming the field. */
export function resolveSshConfig(config: SshBashExecutorConfig): ResolvedSshBashExecutorConfig {
  if (config === null || typeof config !== "object") {
    throw new BashConfigError(`The executor config must be an object with at least "host"`);
  }
  checkKnownKeys("The executor config", config, SSH_CONFIG_KEYS);
  const host = word("host", config.host, "a host name or address");
  if (/\s/.test(host)) {
    throw new BashConfigError(`"host" must not hold spaces; got ${JSON.stringify(host)}`);
  }
  const port = config.port === undefined ? undefined : wholeNumber("port", config.port, 1);
  if (port !== undefined && port > 65535) {
    throw new BashConfigError(`"port" must be at most 65535; got ${port}`);
  }
  const user = optional(config.user, (v) => word("user", v, "a user name"));
  const identityFile = optional(config.identityFile, (v) => absolute("identityFile", v));
  const knownHostsFile = optional(config.knownHostsFile, (v) => absolute("knownHostsFile", v));
  const hostKeyChecking = config.hostKeyChecking ?? "strict";
  if (hostKeyChecking !== "strict" && hostKeyChecking !== "accept-new") {
    throw new BashConfigError(
      `"hostKeyChecking" must be "strict" or "accept-new"; got ${JSON.stringify(hostKeyChecking)}`,
    );
  }
  const sshConfigFile = config.sshConfigFile === undefined
    ? null
    : absolute("sshConfigFile", config.sshConfigFile);
  const sshOptions = config.sshOptions ?? [];
  if (!Array.isArray(sshOptions)) {
    throw new BashConfigError(`"sshOptions" must be an array of "Name=value" strings`);
  }
  for (const option of sshOptions) {
    if (typeof option !== "string" || !/^[A-Za-z]+=[^\0\n\r]*$/.test(option)) {
      throw new BashConfigError(
        `"sshOptions" entries must look like "Name=value"; got ${JSON.stringify(option)}`,
      );
    }
  }
  const connectTimeoutSeconds = wholeNumber(
    "connectTimeoutSeconds",
    config.connectTimeoutSeconds ?? 10,
    1,
  );
  const maxChannels = wholeNumber("maxChannels", config.maxChannels ?? 10, 1);
  const cwd = absolute("cwd", config.cwd ?? "/");
  const shell = word("shell", config.shell ?? "bash", "the remote bash");
  const ssh = config.ssh === undefined ? findOnPath("ssh") : absolute("ssh", config.ssh);
  if (ssh === null) {
    throw new BashConfigError(
      `No "ssh" client was found on PATH; install OpenSSH's client or pass "ssh"`,
    );
  }
  // The limits are checked by the local executor's rules; its cwd and session strategy are
  // not this executor's, so placeholders that pass stand in for them.
  const shared: Record<string, unknown> = { cwd: "/", sessionStrategy: "detached" };
  for (const key of LIMIT_KEYS) {
    if (key in config) shared[key] = (config as unknown as Record<string, unknown>)[key];
  }
  const limits = resolveConfig(shared as LocalBashExecutorConfig);
  return {
    host,
    port,
    user,
    identityFile,
    knownHostsFile,
    hostKeyChecking,
    sshConfigFile,
    sshOptions: [...sshOptions],
    connectTimeoutSeconds,
    maxChannels,
    cwd,
    shell,
    ssh,
    timeoutMs: limits.timeoutMs,
    maxTimeoutMs: limits.maxTimeoutMs,
    maxOutputBytes: limits.maxOutputBytes,
    headBytes: limits.headBytes,
    maxSpillBytes: limits.maxSpillBytes,
    killGraceMs: limits.killGraceMs,
    drainGraceMs: limits.drainGraceMs,
    keepSpillFiles: limits.keepSpillFiles,
    limits: limits.limits,
  };
}

function absolute(field: string, value: unknown): string {
  if (typeof value !== "string" || !isAbsolute(value) || /[\0\n\r]/.test(value)) {
    throw new BashConfigError(
      `"${field}" must be an absolute path; got ${
        typeof value === "string" ? JSON.stringify(value) : kindOf(value)
      }`,
    );
  }
  return value;
}
