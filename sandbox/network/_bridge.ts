/**
 * The way out for a command whose network is an allow-list: a network
 * namespace of its own with nothing but a loopback, where `socat` listens
 * on 127.0.0.1:{@linkcode BRIDGE_PORT} and carries each connection to the
 * executor's proxy over its Unix socket. Both backends run inside it: the
 * bridge starts first, outside their confinement (so their seccomp filter,
 * which refuses Unix sockets, does not apply to it), with its stdio on
 * /dev/null (it never holds the command's output), and it is stopped when
 * the confined command ends. Root makes the namespace with util-linux
 * `unshare --net`; another user in a user namespace of its own (uid and gid
 * mapped to themselves), with `setpriv` dropping the namespace's
 * capabilities before the backend runs.
 *
 * @module
 */
import type { Launch } from "../../engine/mod.ts";
import { BASH_FLAGS, findOnPath, limitedLaunch } from "../../engine/mod.ts";
import { closeInherited, RUNNER_FAILURE_EXIT } from "../backends/mod.ts";
import { MAX_LAUNCH_CONNECTIONS, PROXY_USER } from "./_proxy.ts";

/** The loopback port the bridge listens on inside the namespace. */
export const BRIDGE_PORT = 3128;
/** The exit code and message prefix of the bridge wrapper's own failures. */
export const BRIDGE_FAILURE_EXIT: number = RUNNER_FAILURE_EXIT;
/** The prefix of the bridge wrapper's own failure lines. */
export const BRIDGE_NAME = "shellseam-net";

/** The programs the bridge needs, found on the search path. */
export interface BridgeTools {
  unshare: string;
  ip: string;
  socat: string;
  /** Only for a user who is not root. */
  setpriv?: string;
}

/**
 * The programs the bridge needs on `searchPath`, or why it cannot run here
 * (naming what to install).
 */
export function findBridgeTools(
  searchPath: string,
  root: boolean,
): BridgeTools | { reason: string } {
  const packages: Record<string, string> = {
    unshare: "util-linux",
    ip: "iproute2",
    socat: "socat",
    setpriv: "util-linux",
  };
  const names = ["unshare", "ip", "socat", ...(root ? [] : ["setpriv"])];
  const found: Record<string, string> = {};
  for (const name of names) {
    const path = findOnPath(name, searchPath);
    if (path === null) {
      return {
        reason: `"${name}" was not found on PATH; install ${packages[name]} (the network ` +
          "allow-list reaches its proxy through it)",
      };
    }
    found[name] = path;
  }
  const { unshare = "", ip = "", socat = "", setpriv } = found;
  return { unshare, ip, socat, ...(setpriv === undefined ? {} : { setpriv }) };
}

/**
 * The most connections the bridge carries at once (a process each): the
 * proxy answers those past {@linkcode MAX_LAUNCH_CONNECTIONS} with an error,
 * and closes those past twice as many; beyond this, a connection waits.
 */
const BRIDGE_MAX_CHILDREN = 2 * MAX_LAUNCH_CONNECTIONS + 8;

/**
 * Runs in the new namespace, unconfined: closes inherited descriptors above
 * 2, brings the loopback up, starts the bridge (the `n` words after the
 * loopback's port: socat, behind a bash that joins the command's cgroups
 * first, so that it and each connection's process count against the
 * command's limits) in the background with its stdio on /dev/null, and
 * waits until it listens; then runs the confined launch (with the stdin the
 * bridge never reads: the launch's input, then the command's) and stops the
 * bridge when it ends, exiting as the launch did.
 */
const BRIDGE_SCRIPT = closeInherited("/proc/$$/fd") +
  'ip=$1 port=$2 n=$3; shift 3; bridge=("${@:1:n}"); shift "$n"; ' +
  `fail() { echo "${BRIDGE_NAME}: $1" >&2; exit ${BRIDGE_FAILURE_EXIT}; }; ` +
  '"$ip" link set lo up || fail "cannot bring up the loopback of the command\'s network namespace"; ' +
  '"${bridge[@]}" </dev/null >/dev/null 2>&1 & pid=$!; ' +
  // Builtins only: this script runs unconfined, and a bare program name would be looked up on
  // bash's default PATH, which ends in "." (the launch's folder, a writable root).
  'listening() { local want line; printf -v want ":%04X 00000000:0000 0A" "$port"; ' +
  'while read -r line; do [[ $line == *"$want"* ]] && return 0; done </proc/net/tcp; return 1; }; ' +
  "for _ in {1..1000}; do listening && break; kill -0 $pid 2>/dev/null || break; " +
  "read -t 0.005 <> <(:); done; " +
  'listening || fail "the bridge to the network proxy did not start (socat, or the cgroups it joins)"; ' +
  '"$@"; status=$?; kill $pid 2>/dev/null; wait $pid; exit $status';

/**
 * `inner` (a launch already wrapped by a backend) run in a network
 * namespace of its own whose only way out is the bridge to the launch's own
 * proxy socket at `socketPath`, in the cgroups of `cgroupProcs`. `bash`
 * runs the bridge script (with none of the command's environment, which
 * stays in `inner.input`).
 */
export function wrapInBridge(
  inner: Launch,
  tools: BridgeTools,
  bash: string,
  socketPath: string,
  cgroupProcs: readonly string[],
): Launch {
  const namespace = bridgeNamespaceArgs(tools);
  const listen =
    `TCP-LISTEN:${BRIDGE_PORT},bind=127.0.0.1,fork,reuseaddr,max-children=${BRIDGE_MAX_CHILDREN}`;
  const direct = { program: tools.socat, args: [listen, `UNIX-CONNECT:${socketPath}`] };
  const { program, args } = cgroupProcs.length === 0
    ? direct
    : limitedLaunch({ ...direct, cwd: "/", env: {} }, {}, cgroupProcs, bash);
  const socat = [program, ...args];
  // The namespace's capabilities (a user namespace's, for ip) must not reach the backend.
  const drop = tools.setpriv === undefined
    ? []
    : [tools.setpriv, "--inh-caps=-all", "--ambient-caps=-all"];
  return {
    program: tools.unshare,
    args: [
      ...namespace,
      "--",
      bash,
      ...BASH_FLAGS,
      "-p",
      "-c",
      BRIDGE_SCRIPT,
      BRIDGE_NAME,
      tools.ip,
      String(BRIDGE_PORT),
      String(socat.length),
      ...socat,
      ...drop,
      inner.program,
      ...inner.args,
    ],
    cwd: inner.cwd,
    env: {},
    ...(inner.input === undefined ? {} : { input: inner.input }),
  };
}

/**
 * The `unshare` arguments that make the bridge's network namespace: root's
 * own, or in a user namespace of its own for another user (uid and gid
 * mapped to themselves; its capabilities kept for `ip`).
 */
export function bridgeNamespaceArgs(tools: BridgeTools): string[] {
  return tools.setpriv === undefined
    ? ["--net"]
    : ["--user", "--map-current-user", "--keep-caps", "--net"];
}

/** The programs {@linkcode wrapInBridge} runs before the confinement applies. */
export function bridgeRunners(tools: BridgeTools, bash: string): string[] {
  return [tools.unshare, tools.ip, tools.socat, bash, ...(tools.setpriv ? [tools.setpriv] : [])];
}

/**
 * The environment that points a command's tools at the proxy on `port` of
 * 127.0.0.1 (the bridge's, or the launch's own loopback port), with its
 * launch's `token` as the password: the usual variables in both cases,
 * npm's and pip's own. Loopback is not proxied: inside the bridge's
 * namespace it is the command's own (under Seatbelt the profile refuses it
 * but for the proxy's port).
 */
export function proxyEnv(token: string, port: number): Record<string, string> {
  const http = `http://${PROXY_USER}:${token}@127.0.0.1:${port}`;
  const socks = `socks5h://${PROXY_USER}:${token}@127.0.0.1:${port}`;
  const none = "localhost,127.0.0.1,::1";
  return {
    HTTP_PROXY: http,
    http_proxy: http,
    HTTPS_PROXY: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: none,
    no_proxy: none,
    npm_config_proxy: http,
    npm_config_https_proxy: http,
    PIP_PROXY: http,
  };
}

/** Whether the bridge wrapper (or the `unshare` before it) failed, not the command. */
export function bridgeFailed(exitCode: number | null, firstLine: string): boolean {
  return (exitCode === BRIDGE_FAILURE_EXIT && firstLine.startsWith(`${BRIDGE_NAME}: `)) ||
    (exitCode === 1 && firstLine.startsWith("unshare: "));
}
