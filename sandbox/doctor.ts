import { statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { type AppliedResourceLimits, SandboxUnavailableError } from "../seam/mod.ts";
import { platformOf, type Runtime, runtime } from "../runtime/mod.ts";
import { noBackendRemedy } from "./_backend_kinds.ts";
import {
  type SandboxBackendName,
  type SandboxBackendStatus,
  SandboxBashExecutor,
  type SandboxBashExecutorConfig,
} from "./executor.ts";
import { messageOf } from "../seam/message.ts";
import { findBridgeTools } from "./network/mod.ts";
import type { ProxyState } from "./network/mod.ts";

/**
 * What {@linkcode shellseamDoctor} checks against: the policy whose
 * enforcement facts it reports, and the executor options that find backends.
 *
 * @example
 * ```ts
 * import type { ShellseamDoctorOptions } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const options: ShellseamDoctorOptions = { mode: "read-only", network: "allow" };
 * assert.equal(options.network, "allow");
 * ```
 */
export interface ShellseamDoctorOptions {
  /** The workspace the facts are about (default: the OS temp directory). */
  workspaceRoot?: string;
  /** The confined mode the facts are for (default `workspace-write`). */
  mode?: "read-only" | "workspace-write";
  /** The network policy the facts are for (default `deny`). */
  network?: "deny" | "allow";
  /** Backends to probe, in order (default: all). */
  backends?: SandboxBackendName[];
  /** Where `bwrap` and `deno` are looked up (default: PATH). */
  searchPath?: string;
  /** How long one probe may take, in milliseconds. */
  probeTimeoutMs?: number;
  /** The executors' `spillDir` the spill facts are for (default: the OS temp directory). */
  spillDir?: string;
  /** The executors' `maxSpillTotalBytes` (default 1 GiB). */
  maxSpillTotalBytes?: number;
  /**
   * What the probing executors spawn processes with, and whose platform the
   * backends are chosen for (default: this process's runtime; a test injects
   * one that reports macOS).
   */
  runtime?: Runtime;
}

/**
 * Where an executor's spill files (and the sandbox's scratch `TMPDIR`) live:
 * the folder its private directory is made in, its filesystem, and room.
 *
 * @example
 * ```ts
 * import type { SpillLocation } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const spill: SpillLocation = {
 *   dir: "/tmp",
 *   filesystem: "tmpfs",
 *   ramBacked: true,
 *   freeBytes: 8 * 1024 ** 3,
 *   budgetBytes: 1024 ** 3,
 * };
 * assert.ok(spill.ramBacked);
 * ```
 */
export interface SpillLocation {
  /** The folder in which each executor makes its private directory. */
  dir: string;
  /**
   * The filesystem type (`tmpfs`, `ext4`, `xfs`, ..., or `unknown (0x...)`),
   * or null when it could not be read.
   */
  filesystem: string | null;
  /** True on a RAM-backed filesystem (tmpfs, ramfs): spill files then use memory. */
  ramBacked: boolean | null;
  /** Bytes free there for an unprivileged writer, or null when they could not be read. */
  freeBytes: number | null;
  /** Each executor's disk budget for its private directory (`maxSpillTotalBytes`). */
  budgetBytes: number;
}

/**
 * What works on this machine: each backend's probe, the Landlock ABI, the
 * backend a sandboxing executor would use, and what each would enforce.
 *
 * @example
 * ```ts
 * import type { ShellseamDoctorReport } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const report: ShellseamDoctorReport = {
 *   platform: "linux",
 *   mode: "workspace-write",
 *   network: "deny",
 *   landlockAbi: null,
 *   selected: null,
 *   backends: [{ backend: "bwrap", works: false, reason: '"bwrap" was not found on PATH' }],
 *   unusable: [],
 *   spill: { dir: "/tmp", filesystem: "ext4", ramBacked: false, freeBytes: 0, budgetBytes: 1024 ** 3 },
 *   runtime: "node",
 *   permissions: null,
 * };
 * // No backend works here, so none is selected.
 * assert.equal(report.backends.some((backend) => backend.works), false);
 * assert.equal(report.selected, null);
 * ```
 */
export interface ShellseamDoctorReport {
  /** The platform the backends were chosen for (`process.platform`). */
  platform: string;
  /** The mode the enforcement facts are for. */
  mode: "read-only" | "workspace-write";
  /** The network policy the enforcement facts are for. */
  network: "deny" | "allow";
  /** The kernel's Landlock ABI, or null when the launcher could not find out. */
  landlockAbi: number | null;
  /**
   * The backend a confined command in `mode` over the workspace runs under,
   * or null: such commands fail closed.
   */
  selected: SandboxBackendName | null;
  /** Every probed backend, in order of preference. */
  backends: SandboxBackendStatus[];
  /**
   * Backends that work here but refuse this workspace's commands, and why:
   * a program they run before confinement lies in a writable root.
   */
  unusable: { backend: SandboxBackendName; reason: string }[];
  /** Where spill files and the scratch `TMPDIR` live, and how much room there is. */
  spill: SpillLocation;
  /**
   * The resource limits a confined command got here (a trivial one, on the
   * selected backend) and how each was applied: a cgroup (v2 or v1) or an
   * rlimit; absent when no backend ran one.
   */
  limits?: AppliedResourceLimits;
  /** The runtime this process runs on. */
  runtime: "deno" | "node";
  /**
   * The runtime's permissions in effect for this process, by name (Deno's
   * `read`, `write`, `run`, ...; Node's `fs.read`, `fs.write`, `child`,
   * ...), each for the whole scope (one granted only for some paths or
   * programs is not `granted`), or null when no permission model is in
   * effect (Node without `--permission`).
   */
  permissions: Record<string, "granted" | "prompt" | "denied"> | null;
  /**
   * Whether a network allow-list works with the selected backend: a command
   * under `{ allow: [] }` reached the executor's proxy (through the bridge,
   * but under Seatbelt) and was refused by it; the bridge's programs; the
   * proxy's state after it. Absent when no backend was selected.
   */
  networkProxy?: NetworkProxyReport;
}

/**
 * What the doctor found of the network proxy (see `ShellseamDoctorReport.networkProxy`).
 *
 * @example
 * ```ts
 * import type { NetworkProxyReport } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const report: NetworkProxyReport = {
 *   works: false,
 *   reason: '"socat" was not found on PATH; install socat',
 * };
 * assert.equal(report.works, false);
 * ```
 */
export interface NetworkProxyReport {
  /** True when a confined command reached the proxy (through the bridge, but under Seatbelt). */
  works: boolean;
  /** Why not. */
  reason?: string;
  /** The bridge's programs, as found (absent under Seatbelt, which needs none). */
  bridge?: Record<string, string>;
  /** The proxy's state after the check (listening, launches, connections). */
  state?: ProxyState;
}

/**
 * Probes the sandbox backends on this machine and reports what works, the
 * Landlock ABI, what the Seatbelt backend's self-probe saw refused, and the
 * enforcement each backend would report, then runs a
 * trivial confined command in `mode` over the workspace with each working
 * backend to find the one such commands use; nothing is left behind. It also
 * reports where spill files would live (`spillDir`): the filesystem (a
 * RAM-backed tmpfs is worth knowing: spill files there use memory), the free
 * space and the budget.
 *
 * @example
 * ```ts
 * import { shellseamDoctor } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const report = await shellseamDoctor({ mode: "read-only" });
 * assert.deepEqual(report.backends.map((b) => b.backend), ["bwrap", "landlock"]);
 * const first = report.backends.find((b) => b.works);
 * assert.equal(report.selected, first?.backend ?? null);
 * assert.equal(report.spill.budgetBytes, 1024 ** 3);
 * ```
 */
export async function shellseamDoctor(
  options: ShellseamDoctorOptions = {},
): Promise<ShellseamDoctorReport> {
  const mode = options.mode ?? "workspace-write";
  const network = options.network ?? "deny";
  const config = (backends?: SandboxBackendName[]): SandboxBashExecutorConfig => ({
    workspaceRoot: options.workspaceRoot ?? tmpdir(),
    defaultMode: mode,
    network,
    ...(backends === undefined ? {} : { backends }),
    ...(options.runtime === undefined ? {} : { runtime: options.runtime }),
    ...(options.searchPath === undefined ? {} : { searchPath: options.searchPath }),
    ...(options.probeTimeoutMs === undefined ? {} : { probeTimeoutMs: options.probeTimeoutMs }),
    ...(options.spillDir === undefined ? {} : { spillDir: options.spillDir }),
    ...(options.maxSpillTotalBytes === undefined
      ? {}
      : { maxSpillTotalBytes: options.maxSpillTotalBytes }),
  });
  let backends: SandboxBackendStatus[];
  let spill: SpillLocation;
  {
    await using executor = new SandboxBashExecutor(config(options.backends));
    backends = await executor.probeBackends();
    spill = spillLocation(executor.config.spillDir, executor.config.maxSpillTotalBytes);
  }
  let selected: SandboxBackendName | null = null;
  const unusable: { backend: SandboxBackendName; reason: string }[] = [];
  let limits: AppliedResourceLimits | undefined;
  for (const { backend } of backends.filter((status) => status.works)) {
    await using executor = new SandboxBashExecutor(config([backend]));
    try {
      const result = await executor.run({ command: "true" });
      if (result.sandbox?.runnerFailed === true) {
        const said = result.stderr.text.trim() || `exit code ${result.exitCode}`;
        unusable.push({ backend, reason: `its runner failed on a trivial command: ${said}` });
      } else {
        if (selected === null) limits = result.limits;
        selected ??= backend;
      }
    } catch (error) {
      if (!(error instanceof SandboxUnavailableError)) throw error;
      unusable.push({ backend, reason: error.attempts[0]?.reason ?? error.message });
    }
  }
  return {
    platform: platformOf(options.runtime ?? runtime).os,
    mode,
    network,
    landlockAbi: backends.find((b) => b.landlockAbi !== undefined)?.landlockAbi ?? null,
    selected,
    backends,
    unusable,
    spill,
    ...(limits === undefined ? {} : { limits }),
    runtime: (options.runtime ?? runtime).name,
    permissions: (options.runtime ?? runtime).permissions(),
    ...(selected === null ? {} : {
      networkProxy: await networkProxyReport(
        { ...config([selected]), network: { allow: [] } },
        // Seatbelt limits the network to the proxy's port itself: there is no bridge.
        selected !== "seatbelt",
      ),
    }),
  };
}

/** The runtime's permissions in effect, as one line. */
function permissionsLine(report: ShellseamDoctorReport): string {
  if (report.permissions === null) {
    return `${report.runtime} permissions: no permission model in effect (started without --permission)`;
  }
  const states = Object.entries(report.permissions).map(([name, state]) => `${name} ${state}`);
  return `${report.runtime} permissions: ${states.join(", ")}`;
}

/**
 * Runs a command under an empty allow-list that asks the proxy, at the port
 * its `HTTP_PROXY` names (through the bridge when `bridged`), for a tunnel
 * without credentials: the proxy answers 407 when the whole way works.
 */
async function networkProxyReport(
  config: SandboxBashExecutorConfig,
  bridged: boolean,
): Promise<NetworkProxyReport> {
  const tools = bridged
    ? findBridgeTools(config.searchPath ?? process.env.PATH ?? "", process.getuid?.() === 0)
    : undefined;
  const bridge = tools === undefined || "reason" in tools
    ? undefined
    : { ...tools } as Record<string, string>;
  await using executor = new SandboxBashExecutor(config);
  try {
    const result = await executor.run(executor.resolve({
      command: 'exec 3<>"/dev/tcp/127.0.0.1/${HTTP_PROXY##*:}" && ' +
        "printf 'CONNECT doctor.invalid:1 HTTP/1.1\r\n\r\n' >&3 && head -c 12 <&3",
    }));
    const state = await executor.networkProxyState();
    const works = result.stdout.text === "HTTP/1.1 407";
    return {
      works,
      ...(works ? {} : {
        reason: `a command could not reach the proxy: ${
          result.stderr.text.trim().split("\n", 1)[0] || `exit code ${result.exitCode}`
        }`,
      }),
      ...(bridge === undefined ? {} : { bridge }),
      ...(state === undefined ? {} : { state }),
    };
  } catch (error) {
    const reason = error instanceof SandboxUnavailableError
      ? error.attempts[0]?.reason ?? error.message
      : messageOf(error);
    return { works: false, reason, ...(bridge === undefined ? {} : { bridge }) };
  }
}

/** Filesystem magic numbers (statfs `f_type`) and their names. */
const FILESYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x01021994, "tmpfs"],
  [0x858458f6, "ramfs"],
  [0xef53, "ext4"],
  [0x58465342, "xfs"],
  [0x9123683e, "btrfs"],
  [0x794c7630, "overlay"],
  [0x2fc12fc1, "zfs"],
  [0xf2f52010, "f2fs"],
  [0x6969, "nfs"],
  [0xff534d42, "cifs"],
  [0x65735546, "fuse"],
  [0x01021997, "9p"],
]);

const RAM_BACKED: ReadonlySet<string> = new Set(["tmpfs", "ramfs"]);

/** The filesystem and free space of `dir`, from statfs. */
function spillLocation(dir: string, budgetBytes: number): SpillLocation {
  try {
    const stats = statfsSync(dir);
    const type = Number(stats.type);
    const filesystem = FILESYSTEMS.get(type) ?? `unknown (0x${type.toString(16)})`;
    return {
      dir,
      filesystem,
      ramBacked: RAM_BACKED.has(filesystem),
      freeBytes: Number(stats.bavail) * Number(stats.bsize),
      budgetBytes,
    };
  } catch {
    return { dir, filesystem: null, ramBacked: null, freeBytes: null, budgetBytes };
  }
}

/** Bytes in GiB or MiB, for a person. */
function size(bytes: number): string {
  const gib = bytes / 1024 ** 3;
  return gib >= 1 ? `${gib.toFixed(1)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

function spillLine(spill: SpillLocation): string {
  const where = spill.filesystem === null
    ? "filesystem unknown"
    : spill.ramBacked
    ? `${spill.filesystem}, RAM-backed: spill files use memory; set spillDir to a disk folder to avoid it`
    : spill.filesystem;
  const free = spill.freeBytes === null ? "free space unknown" : `${size(spill.freeBytes)} free`;
  return `spill folder: ${spill.dir} (${where}); ${free}; budget ${
    size(spill.budgetBytes)
  } per executor`;
}

/**
 * The doctor's report as text for a person at a terminal.
 *
 * @example
 * ```ts
 * import { formatDoctorReport } from "@shellseam/bash/sandbox";
 * import assert from "node:assert/strict";
 *
 * const text = formatDoctorReport({
 *   platform: "linux",
 *   mode: "workspace-write",
 *   network: "deny",
 *   landlockAbi: 3,
 *   selected: "landlock",
 *   backends: [
 *     { backend: "bwrap", works: false, reason: '"bwrap" was not found on PATH' },
 *     {
 *       backend: "landlock",
 *       works: true,
 *       landlockAbi: 3,
 *       enforcement: {
 *         filesystem: "full",
 *         network: "none",
 *         gaps: ["landlock ABI 3: TCP not confined"],
 *         launcher: "perl",
 *       },
 *     },
 *   ],
 *   unusable: [],
 *   spill: { dir: "/tmp", filesystem: "tmpfs", ramBacked: true, freeBytes: 2 * 1024 ** 3, budgetBytes: 1024 ** 3 },
 *   limits: {
 *     limits: { processes: 4096, fileSizeBytes: 2 ** 34 },
 *     mechanism: "cgroup v2",
 *     mechanisms: { processes: "cgroup v2", fileSizeBytes: "rlimit" },
 *     gaps: [],
 *   },
 *   runtime: "deno",
 *   permissions: { read: "granted", write: "prompt", run: "granted" },
 * });
 * assert.match(text, /bwrap: does not work: "bwrap" was not found on PATH/);
 * assert.match(
 *   text,
 *   /landlock: works \(Landlock ABI 3, launcher run by perl\); filesystem full, network none/,
 * );
 * assert.match(text, /gap: landlock ABI 3: TCP not confined/);
 * assert.match(text, /confined commands use: landlock/);
 * assert.match(text, /spill folder: \/tmp \(tmpfs, RAM-backed: .*\); 2\.0 GiB free; budget 1\.0 GiB/);
 * assert.match(text, /resource limits of confined commands: processes by cgroup v2, fileSizeBytes by rlimit/);
 * assert.match(text, /\ndeno permissions: read granted, write prompt, run granted\n/);
 * ```
 */
export function formatDoctorReport(report: ShellseamDoctorReport): string {
  const lines = [
    `shellseam doctor (${report.platform})`,
    `sandbox backends, in order of preference (facts for ${report.mode}, network ${report.network}):`,
  ];
  for (const status of report.backends) {
    if (!status.works) {
      lines.push(`  ${status.backend}: does not work: ${status.reason ?? "unknown reason"}`);
      continue;
    }
    const facts = status.enforcement;
    const abi = status.landlockAbi === undefined
      ? ""
      : ` (Landlock ABI ${status.landlockAbi}${
        facts?.launcher === undefined ? "" : `, launcher run by ${facts.launcher}`
      })`;
    lines.push(
      `  ${status.backend}: works${abi}` +
        (facts ? `; filesystem ${facts.filesystem}, network ${facts.network}` : ""),
    );
    const refused = (status.selfProbe ?? []).filter((check) => check.refused)
      .map((check) => check.probe);
    if (refused.length > 0) lines.push(`    self-probe refused: ${refused.join(", ")}`);
    for (const gap of facts?.gaps ?? []) lines.push(`    gap: ${gap}`);
    const refusal = report.unusable.find((u) => u.backend === status.backend);
    if (refusal !== undefined) lines.push(`    not usable for this workspace: ${refusal.reason}`);
  }
  // The one backend passed over for a runner a confined command could replace: what makes it usable.
  const remedy = (report.backends.length === 1 ? report.backends[0]?.remedy : undefined) ??
    noBackendRemedy(report.platform);
  lines.push(
    report.selected !== null
      ? `confined commands use: ${report.selected}`
      : report.unusable.length > 0
      ? "confined commands fail closed: every working backend is unusable for this workspace (see above)"
      : `confined commands fail closed: no backend works (${remedy})`,
  );
  if (report.limits !== undefined) {
    const how = Object.entries(report.limits.mechanisms).map(([name, mechanism]) =>
      `${name} by ${mechanism}`
    );
    lines.push(`resource limits of confined commands: ${how.join(", ")}`);
  }
  const proxy = report.networkProxy;
  if (proxy !== undefined) {
    const bridge = Object.entries(proxy.bridge ?? {}).map(([name, path]) => `${name} ${path}`);
    lines.push(
      proxy.works
        ? `network allow-lists: work (proxy ${
          proxy.state?.listening ? "listening" : "stopped"
        } in ${proxy.state?.socketDir}${
          proxy.state?.error === undefined ? "" : `: ${proxy.state.error}`
        }; ${
          bridge.length === 0
            ? "no bridge: the sandbox lets commands reach the proxy's loopback port alone"
            : `bridge: ${bridge.join(", ")}`
        })`
        : `network allow-lists: do not work, so commands with one fail closed: ${proxy.reason}`,
    );
  }
  lines.push(permissionsLine(report));
  lines.push(spillLine(report.spill));
  return lines.join("\n") + "\n";
}
