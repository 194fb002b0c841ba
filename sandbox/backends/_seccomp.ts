/**
 * The seccomp filter both backends install: what paths, namespaces and
 * Landlock leave open to a confined root. The kernel keyrings are shared
 * with the host (a key added to the session or user keyring outlives the
 * command); io_uring creates sockets without the `socket` system call; and
 * with the network denied, socket families outside `socketFamilies` are
 * refused. Without an IPC namespace (Landlock), System V IPC and POSIX message
 * queues are the host's: a confined root could create objects that outlive the
 * command, or write into another root process's shared memory; both backends
 * refuse them, so that a command meets the same refusals under either. Without a pid
 * namespace (Landlock), `setsid` may be made to change nothing. System calls of another
 * ABI (32-bit, x32) could bypass all of that, so they fail.
 *
 * @module
 */
import process from "node:process";

/** `AF_UNIX`. */
export const AF_UNIX = 1;
/** `AF_INET`. */
export const AF_INET = 2;
/** `AF_INET6`. */
export const AF_INET6 = 10;
/** `AF_NETLINK` (changing anything through it needs a capability). */
export const AF_NETLINK = 16;

interface Arch {
  audit: number;
  socket: number;
  keyrings: number[];
  /** shmget, shmat, shmctl, sem*, msg*, mq_open and mq_unlink (shmdt is harmless). */
  ipc: number[];
  setsid: number;
  x32: boolean;
}

/** System call numbers by `process.arch` (io_uring is 425-427 on both). */
const ARCHES: Record<string, Arch> = {
  x64: {
    audit: 0xc000003e,
    socket: 41,
    keyrings: [248, 249, 250],
    ipc: [29, 30, 31, 64, 65, 66, 68, 69, 70, 71, 220, 240, 241],
    setsid: 112,
    x32: true,
  },
  arm64: {
    audit: 0xc00000b7,
    socket: 198,
    keyrings: [217, 218, 219],
    ipc: [180, 181, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196],
    setsid: 157,
    x32: false,
  },
};

/** What the filter refuses beyond the keyrings, io_uring and foreign ABIs. */
export interface SeccompOptions {
  /** The only families `socket` may create; undefined allows any. */
  socketFamilies?: readonly number[];
  /** Refuse System V IPC and POSIX message queues (no IPC namespace). */
  denyIpc?: boolean;
  /**
   * Keep every process in the command's session (no pid namespace): `setsid`
   * returns 0 and changes nothing, so the stray sweep, which finds a
   * command's processes by session, reaches them all when the call ends.
   */
  keepSession?: boolean;
}
const IO_URING = [425, 426, 427];

const LD_ABS = 0x20, JEQ = 0x15, JGE = 0x35, RET = 0x06;
const ALLOW = 0x7fff0000, ERRNO = 0x00050000, EACCES = 13, ENOSYS = 38;

/**
 * The filter as a `struct sock_filter` array (8 bytes an instruction), or
 * undefined on an architecture this module does not know. Refusals say
 * EACCES ("Permission denied"); io_uring and foreign ABIs say ENOSYS, so
 * programs fall back as on a kernel without them.
 */
export function seccompFilter(
  options: SeccompOptions = {},
  arch: string = process.arch,
): Uint8Array | undefined {
  const { socketFamilies, denyIpc = false, keepSession = false } = options;
  const known = ARCHES[arch];
  if (known === undefined) return undefined;
  const program: [number, number, number, number][] = [];
  const op = (code: number, k: number, jt = 0, jf = 0) => program.push([code, jt, jf, k]);
  op(LD_ABS, 4); // seccomp_data.arch
  op(JEQ, known.audit, 1, 0);
  op(RET, ERRNO | ENOSYS);
  op(LD_ABS, 0); // seccomp_data.nr
  if (known.x32) {
    op(JGE, 0x40000000, 0, 1);
    op(RET, ERRNO | ENOSYS);
  }
  const refused = [[known.keyrings, EACCES], [IO_URING, ENOSYS]] as [number[], number][];
  if (denyIpc) refused.push([known.ipc, EACCES]);
  for (const [numbers, errno] of refused) {
    for (const nr of numbers) {
      op(JEQ, nr, 0, 1);
      op(RET, ERRNO | errno);
    }
  }
  if (keepSession) {
    op(JEQ, known.setsid, 0, 1);
    op(RET, ERRNO | 0);
  }
  if (socketFamilies !== undefined) {
    op(JEQ, known.socket, 1, 0);
    op(RET, ALLOW);
    op(LD_ABS, 16); // the low half of seccomp_data.args[0], the family
    socketFamilies.forEach((family, index) => op(JEQ, family, socketFamilies.length - index, 0));
    op(RET, ERRNO | EACCES);
  }
  op(RET, ALLOW);
  const bytes = new DataView(new ArrayBuffer(program.length * 8));
  program.forEach(([code, jt, jf, k], index) => {
    bytes.setUint16(index * 8, code, true);
    bytes.setUint8(index * 8 + 2, jt);
    bytes.setUint8(index * 8 + 3, jf);
    bytes.setUint32(index * 8 + 4, k, true);
  });
  return new Uint8Array(bytes.buffer);
}

/**
 * Which sockets a command may create: `any` (the network allowed), `inet`
 * (an allow-list: IP sockets, which reach nothing but the loopback of the
 * command's own network namespace, where the bridge to the proxy listens;
 * no Unix socket), `unix`
 * (the network denied, Unix sockets allowed: some are listed in
 * `allowUnixSockets`) or `none` (the network denied, no Unix socket either;
 * `socketpair` is another system call and stays).
 */
export type SocketRule = "any" | "inet" | "unix" | "none";

/**
 * The filter both backends install for a command under `rule`, so that a
 * command meets the same refusals under either: System V IPC and POSIX
 * message queues always (bubblewrap's IPC namespace has no counterpart under
 * Landlock), and with the network denied every socket family but netlink
 * (and Unix under `unix`): no IP at all, so not even a private loopback,
 * which Landlock cannot give. With `keepSession` (Landlock, which has no pid
 * namespace to end a command's processes with its shell), `setsid` changes
 * nothing: every process stays where the stray sweep finds it. Undefined on
 * an architecture this module does not know.
 */
export function commandFilter(
  rule: SocketRule,
  arch: string = process.arch,
  keepSession = false,
): Uint8Array | undefined {
  const families = rule === "unix"
    ? [AF_UNIX, AF_NETLINK]
    : rule === "inet"
    ? [AF_INET, AF_INET6, AF_NETLINK]
    : [AF_NETLINK];
  return seccompFilter({
    denyIpc: true,
    keepSession,
    ...(rule === "any" ? {} : { socketFamilies: families }),
  }, arch);
}

/**
 * The filter of every socket rule for `arch` (see {@linkcode commandFilter}),
 * or undefined on an architecture this module does not know.
 */
export function commandFilters(
  arch: string = process.arch,
): Readonly<Record<SocketRule, Uint8Array>> | undefined {
  const none = commandFilter("none", arch);
  const unix = commandFilter("unix", arch);
  const inet = commandFilter("inet", arch);
  const any = commandFilter("any", arch);
  return none === undefined || unix === undefined || inet === undefined || any === undefined
    ? undefined
    : { none, unix, inet, any };
}
