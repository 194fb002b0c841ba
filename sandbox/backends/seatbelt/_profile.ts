/**
 * What Seatbelt is told: a confined policy turned into the text of a
 * `sandbox-exec -p PROFILE` profile and its `-D NAME=VALUE` parameters, a
 * pure transform with its rule order as a numbered list (see
 * {@linkcode seatbeltProfile}).
 *
 * @module
 */
import { BashConfigError } from "../../../seam/mod.ts";
import type { ConfinedPolicy } from "../mod.ts";
import { protectedNameRegex } from "./_regex.ts";

/**
 * The longest string literal (and parameter value) the builder emits, in
 * UTF-8 bytes between the quotes. `sandbox-exec` rejects a string literal
 * over about 1,025 bytes ("Error reading string", as sandbox-runtime
 * documents), and one such string invalidates the whole profile; 1,000
 * leaves a margin. Whether a `-D` value has the same limit is not
 * documented, so a value is held to it too: a path that long is refused,
 * never cut.
 */
export const SEATBELT_LITERAL_MAX_BYTES = 1000;

/** The executor's private folders that a Seatbelt profile lets a command use. */
export interface SeatbeltFolders {
  /** The executor's private folder (its spill files): readable, never writable. */
  privateDir: string;
  /** The commands' TMPDIR, inside `privateDir`: writable in every mode. */
  tmpDir: string;
}

/** A profile for `sandbox-exec -p`, and the parameters it reads (`-D NAME=VALUE` each). */
export interface SeatbeltProfile {
  profile: string;
  params: Record<string, string>;
}

/**
 * The Mach services every confined command may look up: the user and group
 * database (`id`, `whoami`, git, ssh) and the system log.
 */
const BASE_SERVICES = [
  "com.apple.system.opendirectoryd.libinfo",
  "com.apple.system.opendirectoryd.membership",
  "com.apple.system.logger",
  "com.apple.logd",
];

/**
 * The Mach services a command with network may look up besides: the
 * certificate trust daemon (TLS clients built on Security.framework, Go's
 * among them) and the system's DNS and proxy configuration.
 */
const NETWORK_SERVICES = [
  "com.apple.trustd.agent",
  "com.apple.SystemConfiguration.DNSConfiguration",
  "com.apple.SystemConfiguration.configd",
];

/** The devices whose ioctls common programs make at start (dyld's dtrace helper among them). */
const IOCTL_DEVICES = [
  "/dev/null",
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
  "/dev/dtracehelper",
];

/** A pseudo-terminal's device on macOS, as a filter: `/dev/ttys` and its number. */
const PTY_DEVICE = '(regex "^/dev/ttys[0-9]+$")';

/**
 * What a command in a terminal needs beyond the rest (see
 * {@linkcode seatbeltProfile}, step 7), as Apple's own profiles and
 * Codex's grant it:
 * 1. `pseudo-tty`, and `/dev/ptmx` read, written and its ioctls: `openpty`
 *    (`script` opens the terminal inside the sandbox).
 * 2. A pseudo-terminal's device read and written only with the
 *    `com.apple.sandbox.pty` extension, which the kernel gives the sandbox
 *    for each pseudo-terminal it opens through `/dev/ptmx`: its own, never
 *    the user's other terminals.
 * 3. Terminal ioctls (the size, raw mode, the controlling terminal) on any
 *    pseudo-terminal a process holds: it can open none but its own.
 * 4. `/dev/tty`, the process's controlling terminal (its own), which
 *    `less`, `ssh` and `sudo` open to talk to the person at it.
 */
const TERMINAL_RULES: readonly string[] = [
  "(allow pseudo-tty)",
  '(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))',
  `(allow file-read* file-write* (require-all ${PTY_DEVICE} (extension "com.apple.sandbox.pty")))`,
  `(allow file-ioctl ${PTY_DEVICE})`,
  '(allow file-read* file-write* file-ioctl (literal "/dev/tty"))',
];

/**
 * The Seatbelt profile that confines a command by `policy`, and its
 * parameters. Seatbelt takes the last rule that matches an operation, so
 * the order is the meaning:
 * 1. `(deny default)`: whatever no rule below allows is refused.
 * 2. Processes: exec and fork (a child inherits the profile), and signals
 *    and process information only within the same sandbox.
 * 3. The system: sysctl reads, preference reads, POSIX semaphores, the Mach
 *    host calls (Node's `os.cpus()`), and a short list of Mach services
 *    (`BASE_SERVICES`; with network, `NETWORK_SERVICES` too).
 * 4. Devices: writes to `/dev/null` and the ioctls of `IOCTL_DEVICES`.
 * 5. The network: under `allow`, all of it. Under `proxy`, only outgoing
 *    TCP connections to the launch's proxy port on loopback
 *    (`policy.proxyPort`, as `remote tcp "localhost:PORT"`: sandbox-runtime
 *    writes `remote ip`, which admits UDP to that port too, and the proxy
 *    speaks TCP alone; `localhost` matches 127.0.0.1 and ::1 but not
 *    ::ffff:127.0.0.1, so the proxy listens on 127.0.0.1 and the command is
 *    pointed at that address). Under `deny` and `proxy`, Unix sockets only
 *    when `policy.unixSockets` (creation, bind and connect by path; the
 *    masked sockets are refused again at step 12), else none.
 * 6. Reads: the whole file system, but what a pseudo-terminal's device
 *    (`/dev/ttysNNN`) holds: the user's own terminals are readable by the
 *    user, and a command without a terminal has none of its own to read.
 * 7. Terminals (`policy.terminal` alone, see {@linkcode TERMINAL_RULES}): new
 *    pseudo-terminals opened through `/dev/ptmx`, each readable and
 *    writable by the processes of the sandbox that opened it (the
 *    `com.apple.sandbox.pty` extension the kernel hands out with it), so
 *    never another of the user's; terminal ioctls on the pseudo-terminals
 *    a process holds; and the controlling terminal, `/dev/tty`.
 * 8. Writes, under `workspace-write` only: the workspace and the writable
 *    roots.
 * 9. Under `workspace-write`, refused again: writes to the policy's
 *    read-only paths, and writes to a protected name anywhere below each
 *    root (`(require-all (subpath ROOT) (regex "/NAME(/.*)?$"))`), which
 *    covers a `.git` made after launch or in a nested repository. A root
 *    that itself lies beneath a protected name is thus read-only whole.
 * 10. Hidden: the policy's hidden folders (other executors' private
 *    folders, and every user's folder of them), neither read nor written.
 * 11. The executor's private folder readable again and never writable, and
 *    the commands' TMPDIR inside it readable and writable, in every mode.
 * 12. Last, so that no rule above reopens them, the masks: no read or write
 *    beneath a masked secret, and no connection to a masked Unix socket.
 *
 * Every path of the policy and of `folders` enters a filter only as a
 * parameter, resolved first by `realpath` (Seatbelt matches resolved paths:
 * on macOS `/tmp` is `/private/tmp`), so no path, whatever it holds, can
 * change the profile's text. A protected name enters its regex only through
 * `escapeRegex` (`_regex.ts`). Throws `BashConfigError` for what a profile
 * cannot say: a protected name with a control character, a literal or a
 * parameter over `SEATBELT_LITERAL_MAX_BYTES`, a path that is not absolute
 * once resolved, a `proxy` network without a valid `policy.proxyPort`.
 */
export function seatbeltProfile(
  policy: ConfinedPolicy,
  folders: SeatbeltFolders,
  realpath: (path: string) => string,
): SeatbeltProfile {
  const params = new Params(realpath);
  const rules = ["(version 1)", "(deny default)"];
  rules.push(
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
  );
  const network = policy.network !== "deny";
  const services = [...BASE_SERVICES, ...(network ? NETWORK_SERVICES : [])];
  rules.push(
    "(allow sysctl-read)",
    "(allow user-preference-read)",
    "(allow ipc-posix-sem)",
    "(allow mach-host*)",
    rule("allow mach-lookup", services.map((name) => `(global-name ${literal(name)})`)),
  );
  rules.push(
    '(allow file-write-data (require-all (literal "/dev/null") (vnode-type CHARACTER-DEVICE)))',
    rule("allow file-ioctl", IOCTL_DEVICES.map((path) => `(literal ${literal(path)})`)),
  );
  rules.push(...networkRules(policy));
  rules.push("(allow file-read*)", `(deny file-read-data ${PTY_DEVICE})`);
  if (policy.terminal === true) rules.push(...TERMINAL_RULES);
  if (policy.mode === "workspace-write") {
    // A root listed twice (the workspace is often a writable root too) is one parameter.
    const roots = [
      ...new Set(
        [policy.workspaceRoot, ...policy.writableRoots].map((root) => params.path("ROOT", root)),
      ),
    ];
    rules.push(rule("allow file-write*", roots.map((root) => `(subpath ${root})`)));
    const readOnly = policy.readOnlyPaths.map((path) => `(subpath ${params.path("RO", path)})`);
    rules.push(rule("deny file-write*", readOnly));
    const names = policy.protectedPaths.map((name) => literal(protectedNameRegex(name)));
    const protectedFilters = roots.flatMap((root) =>
      names.map((name) => `(require-all (subpath ${root}) (regex ${name}))`)
    );
    rules.push(rule("deny file-write*", protectedFilters));
  }
  const hidden = [...(policy.hiddenParents ?? []), ...(policy.hiddenDirs ?? [])];
  const hiddenFilters = hidden.map((dir) => `(subpath ${params.path("HIDDEN", dir)})`);
  rules.push(rule("deny file-read* file-write*", hiddenFilters));
  const privateDir = `(subpath ${params.path("PRIVATE", folders.privateDir)})`;
  rules.push(`(allow file-read* ${privateDir})`, `(deny file-write* ${privateDir})`);
  rules.push(`(allow file-read* file-write* (subpath ${params.path("TMP", folders.tmpDir)}))`);
  const masks = policy.masks.map((mask) => ({
    ...mask,
    param: params.path("MASK", mask.path),
  }));
  const maskFilters = masks.map(({ directory, param }) =>
    directory ? `(subpath ${param})` : `(literal ${param})`
  );
  rules.push(rule("deny file-read* file-write*", maskFilters));
  const sockets = masks.filter((mask) => mask.kind === "socket");
  const socketFilters = sockets.map(({ param }) => `(remote unix-socket (subpath ${param}))`);
  rules.push(rule("deny network-outbound", socketFilters));
  return { profile: rules.filter((line) => line !== "").join("\n") + "\n", params: params.values };
}

/** The network rules of step 5 (see {@linkcode seatbeltProfile}). */
function networkRules(policy: ConfinedPolicy): string[] {
  if (policy.network === "allow") return ["(allow network*)", "(allow system-socket)"];
  const rules: string[] = [];
  if (policy.network === "proxy") {
    const { proxyPort } = policy;
    if (
      proxyPort === undefined || !Number.isInteger(proxyPort) || proxyPort < 1 || proxyPort > 65535
    ) {
      throw new BashConfigError(
        `A Seatbelt profile for network "proxy" needs the proxy's port on 127.0.0.1 (1 to 65535); got ${
          JSON.stringify(proxyPort)
        }; start the proxy first and pass its port`,
      );
    }
    rules.push(`(allow network-outbound (remote tcp ${literal(`localhost:${proxyPort}`)}))`);
  }
  if (policy.unixSockets) {
    rules.push(
      "(allow system-socket (socket-domain AF_UNIX))",
      '(allow network-bind (local unix-socket (path-regex "^/")))',
      '(allow network-outbound (remote unix-socket (path-regex "^/")))',
    );
  }
  return rules;
}

/** `(action FILTER...)`, or nothing (an empty line, dropped) when there is no filter. */
function rule(action: string, filters: string[]): string {
  return filters.length === 0 ? "" : `(${action}\n  ${filters.join("\n  ")})`;
}

/** Characters no literal or parameter may hold: Seatbelt's reader has no documented escape for them. */
// deno-lint-ignore no-control-regex -- the control characters are what it looks for
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * `text` as an SBPL string literal: quoted, its backslashes and quotes
 * escaped. Throws `BashConfigError` when it holds a control character or is
 * longer than `SEATBELT_LITERAL_MAX_BYTES`.
 */
export function literal(text: string): string {
  if (CONTROL.test(text)) {
    throw new BashConfigError(
      `Cannot put ${
        JSON.stringify(text)
      } in a Seatbelt profile: it holds a control character (a newline, a tab, ...); rename it or drop it from the policy`,
    );
  }
  const body = text.replace(/[\\"]/g, "\\$&");
  checkLength(body, "string literal");
  return `"${body}"`;
}

/** Throws `BashConfigError` when `text` is longer than `SEATBELT_LITERAL_MAX_BYTES` in UTF-8. */
function checkLength(text: string, what: string): void {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > SEATBELT_LITERAL_MAX_BYTES) {
    throw new BashConfigError(
      `Cannot put a ${what} of ${bytes} bytes in a Seatbelt profile (starting ${
        JSON.stringify(text.slice(0, 60))
      }): sandbox-exec rejects strings over about 1,025 bytes and this builder stops at ${SEATBELT_LITERAL_MAX_BYTES}; use a shorter path or name`,
    );
  }
}

/** The parameters of one profile: each path resolved once, under a name of its kind and number. */
class Params {
  readonly values: Record<string, string> = {};
  readonly #byKey = new Map<string, string>();
  readonly #counts = new Map<string, number>();
  readonly #realpath: (path: string) => string;

  constructor(realpath: (path: string) => string) {
    this.#realpath = realpath;
  }

  /** `(param "KIND_n")` for `path` resolved (the same parameter for the same kind and path). */
  path(kind: string, path: string): string {
    const value = this.#realpath(path);
    if (!value.startsWith("/")) {
      throw new BashConfigError(
        `Cannot confine with Seatbelt: ${JSON.stringify(path)} resolved to ${
          JSON.stringify(value)
        }, which is not an absolute path; pass absolute paths`,
      );
    }
    checkLength(value, "path");
    const key = `${kind}\0${value}`;
    let name = this.#byKey.get(key);
    if (name === undefined) {
      const count = this.#counts.get(kind) ?? 0;
      this.#counts.set(kind, count + 1);
      name = kind === "PRIVATE" || kind === "TMP" ? kind : `${kind}_${count}`;
      this.#byKey.set(key, name);
      this.values[name] = value;
    }
    return `(param ${literal(name)})`;
  }
}
