/**
 * The Landlock launcher: a program run by `deno run` that restricts itself
 * with Landlock and then `execve`s the command, so the whole child tree
 * inherits the restriction. It is handed to Deno as a file of
 * `(<function source>)();` (see `_launcher_file.ts`) and never imported by
 * the sandboxed side, so {@linkcode landlockLauncherMain} must not reference
 * anything outside its own body (types are erased and do not count). What
 * it is told and how it answers is in `_launcher_protocol.ts`.
 *
 * @module
 */
import type { Rlimit } from "../../../engine/mod.ts";
import type { LandlockLauncherPolicy } from "./_launcher_protocol.ts";

type NativeFn = (...args: unknown[]) => unknown;

/** The part of the Deno namespace the launcher uses (typed here so the Node build compiles it). */
interface LauncherDeno {
  args: string[];
  pid: number;
  build: { arch: string };
  exit(code: number): never;
  stdout: { writeSync(bytes: Uint8Array): number };
  stderr: { writeSync(bytes: Uint8Array): number };
  dlopen(
    path: string,
    symbols: Record<string, { name?: string; parameters: string[]; result: string }>,
  ): { symbols: Record<string, NativeFn> };
  UnsafePointer: { of(buffer: Uint8Array): unknown; value(pointer: unknown): bigint };
  UnsafePointerView: new (pointer: unknown) => { getInt32(offset?: number): number };
}

/**
 * The launcher's entry point. Arguments:
 * `<policy JSON> [NAME=value...] <program> [args...]`, with as many
 * environment entries as the policy's `envEntries` says. As a standby:
 * `--standby [cgroup.procs files...]`: it joins those cgroups, then reads
 * `{ "cwd": <path>, "args": [<the arguments above>] }` (JSON) from stdin to
 * its end, gives fd 0 /dev/null, enters `cwd` and goes on as with those
 * arguments; right before the exec it writes the byte 6 (`LAUNCH_STARTED`)
 * to stdout, which tells the executor that the launch runs here. With
 * `LAUNCHER_INPUT_FLAG` alone: it reads `launcherInput`'s
 * bytes from stdin (no more), gives fd 0 /dev/null unless the command keeps
 * it, and goes on as with those arguments.
 *
 * The sequence is:
 * 1. Bind libc's `syscall()` (`bindSyscalls`): every later step is system calls.
 * 2. Read the arguments (`readArguments`): from the command line, from stdin
 *    with `--input`, or, as a standby, from stdin after joining the cgroups.
 * 3. Check them (`checkedLaunch`): the policy, then the environment, the
 *    program and its arguments.
 * 4. Join the command's cgroups (`joinCgroups`), so that all it starts is held there.
 * 5. With `writableMounts`, mount the view (`mountView`): a private mount
 *    namespace, read-only but the writable roots, with the read-only paths,
 *    the hidden folders, a terminal instance of its own (so no host
 *    terminal shows), and, last, the masks over them. Mounting comes before Landlock, which
 *    forbids it.
 * 6. Restrict itself with Landlock (`restrictWithLandlock`): read and
 *    execute everywhere but the unreadable paths, write only in the writable
 *    roots, TCP denied under `deny` (ABI >= 4), signals and abstract sockets
 *    scoped (ABI >= 6); no new privileges from here on.
 * 7. Drop every capability (`dropCapabilities`).
 * 8. Make the process as a normal spawn leaves it (`resetForExec`): print the
 *    ABI when asked, SIGPIPE back to its default, every inherited descriptor
 *    above 2 close-on-exec.
 * 9. Install the seccomp filter, when there is one (`installSeccompFilter`).
 * 10. Run the command (`execCommand`): a standby says it runs the launch,
 *     the rlimits are set, and `execve` replaces the launcher.
 *
 * Exits `LAUNCHER_FAILURE_EXIT` with a `shellseam-landlock:` line
 * when anything fails before the exec; never returns otherwise.
 */
export function landlockLauncherMain(): void {
  const deno = (globalThis as unknown as { Deno: LauncherDeno }).Deno;
  const encoder = new TextEncoder();
  const fail = (message: string): never => {
    deno.stderr.writeSync(encoder.encode(`shellseam-landlock: ${message}\n`));
    return deno.exit(125);
  };
  const cString = (text: string): Uint8Array => encoder.encode(`${text}\0`);
  type Argument = number | bigint | Uint8Array | null;

  const { sys, errno, errorText } = bindSyscalls();
  const launch = checkedLaunch(readArguments());
  const { policy, unreadable } = launch;
  joinCgroups(launch.cgroupProcs);
  if (policy.writableMounts !== undefined) mountView(policy.writableMounts, policy);
  const abi = restrictWithLandlock(policy, unreadable);
  dropCapabilities();
  resetForExec(abi, policy.reportAbi === true);
  if (launch.filter !== undefined) installSeccompFilter(launch.filter);
  execCommand(launch);

  /**
   * Step 1. Every call goes through libc's syscall(): Deno compiles a
   * trampoline for each bound symbol (about half a millisecond each, on
   * every launch), so two symbols instead of twenty take most of the
   * launcher's own start-up away.
   */
  function bindSyscalls(): {
    sys: (name: string, ...args: Argument[]) => number;
    errno: () => number;
    errorText: () => string;
  } {
    const numbers: Record<string, Record<string, number>> = {
      x86_64: {
        read: 0,
        write: 1,
        close: 3,
        rt_sigaction: 13,
        execve: 59,
        getcwd: 79,
        chdir: 80,
        geteuid: 107,
        capset: 126,
        prctl: 157,
        mount: 165,
        getdents64: 217,
        unshare: 272,
        dup3: 292,
        prlimit64: 302,
      },
      aarch64: {
        getcwd: 17,
        dup3: 24,
        mount: 40,
        chdir: 49,
        close: 57,
        getdents64: 61,
        read: 63,
        write: 64,
        capset: 91,
        unshare: 97,
        rt_sigaction: 134,
        prctl: 167,
        geteuid: 175,
        execve: 221,
        prlimit64: 261,
      },
    };
    const own = numbers[deno.build.arch];
    if (own === undefined) {
      return fail(
        `no system call numbers for "${deno.build.arch}" (x86_64 and aarch64 only); use the bwrap backend`,
      );
    }
    // Added later, with the same number on every architecture.
    const nr: Record<string, number> = {
      ...own,
      close_range: 436,
      openat2: 437,
      mount_setattr: 442,
      landlock_create_ruleset: 444,
      landlock_add_rule: 445,
      landlock_restrict_self: 446,
    };
    let libc: Record<string, NativeFn>;
    try {
      libc = deno.dlopen("libc.so.6", {
        syscall: { parameters: ["i64", "i64", "i64", "i64", "i64", "i64", "i64"], result: "i64" },
        __errno_location: { parameters: [], result: "pointer" },
      }).symbols;
    } catch (error) {
      return fail(`cannot load libc.so.6 through FFI (${String(error)})`);
    }
    /** System call `name` (libc's `syscall()`: -1 and errno on failure); buffers go by address. */
    const sys = (name: string, ...args: Argument[]): number => {
      // Numbers where they fit: a call with BigInt arguments takes the FFI's slow path.
      const values = args.map((arg) =>
        arg === null
          ? 0
          : arg instanceof Uint8Array
          ? Number(deno.UnsafePointer.value(deno.UnsafePointer.of(arg)))
          : arg
      );
      while (values.length < 6) values.push(0);
      return Number(libc.syscall!(nr[name]!, ...values));
    };
    // The runtime may clobber errno between calls: read it through a pointer
    // taken once, right after the failing call. It only feeds messages.
    const errnoView = new deno.UnsafePointerView(libc.__errno_location!());
    const errno = (): number => errnoView.getInt32();
    const errorText = (): string => {
      const code = errno();
      const names: Record<number, string> = {
        1: "EPERM",
        2: "ENOENT",
        13: "EACCES",
        22: "EINVAL",
        38: "ENOSYS",
        95: "EOPNOTSUPP",
      };
      return names[code] ?? `errno ${code}`;
    };
    return { sys, errno, errorText };
  }

  /**
   * Step 2. The launch's arguments: the command line's, or those handed on
   * stdin with `--input` (exactly the bytes of the length line and the JSON:
   * the rest is the command's), or a standby's, read from stdin to its end
   * once it joined the cgroups named after `--standby` while nothing waited.
   */
  function readArguments(): string[] {
    const args = deno.args;
    if (args.length === 1 && args[0] === "--input") { // LAUNCHER_INPUT_FLAG
      const one = new Uint8Array(1);
      let line = "";
      while (line.length <= 12) {
        const size = sys("read", 0, one, 1);
        if (size < 0 && errno() === 4) continue; // EINTR
        if (size !== 1 || one[0] === 10) break;
        line += String.fromCharCode(one[0]!);
      }
      const length = /^\d{1,12}$/.test(line) ? Number(line) : -1;
      const input = new Uint8Array(Math.max(length, 0));
      let got = 0;
      while (length > 0 && got < length) {
        const size = sys("read", 0, input.subarray(got), length - got);
        if (size < 0 && errno() === 4) continue; // EINTR
        if (size <= 0) break;
        got += size;
      }
      let handed: { args?: unknown; keepStdin?: unknown } | undefined;
      try {
        handed = length < 0 || got < length
          ? undefined
          : JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(input));
      } catch {
        handed = undefined;
      }
      const launchArgs = handed?.args;
      if (
        !Array.isArray(launchArgs) || !launchArgs.every((arg) => typeof arg === "string") ||
        typeof handed?.keepStdin !== "boolean"
      ) {
        return fail("its input must be a length line and { args, keepStdin } (JSON)");
      }
      if (!handed.keepStdin) stdinFromDevNull();
      return launchArgs as string[];
    }
    if (args[0] !== "--standby") return args; // LAUNCHER_STANDBY_FLAG
    joinCgroups(args.slice(1));
    const chunks: Uint8Array[] = [];
    for (;;) {
      const chunk = new Uint8Array(65536);
      const size = sys("read", 0, chunk, chunk.length);
      if (size < 0 && errno() === 4) continue; // EINTR
      if (size < 0) return fail(`cannot read the launch from stdin (${errorText()})`);
      if (size === 0) break;
      chunks.push(chunk.subarray(0, size));
    }
    const input = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    chunks.reduce((offset, chunk) => (input.set(chunk, offset), offset + chunk.length), 0);
    let handed: { cwd?: unknown; args?: unknown };
    try {
      handed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(input));
    } catch (error) {
      return fail(`the standby got no launch: its input is not JSON (${String(error)})`);
    }
    const { cwd, args: launchArgs } = handed ?? {};
    if (
      typeof cwd !== "string" || !Array.isArray(launchArgs) ||
      !launchArgs.every((arg) => typeof arg === "string")
    ) {
      return fail("the standby's input must be { cwd, args }: a path and a list of strings");
    }
    stdinFromDevNull();
    if (sys("chdir", cString(cwd)) !== 0) {
      return fail(`cannot enter the working directory "${cwd}" (${errorText()})`);
    }
    return launchArgs as string[];
  }

  /** The command's stdin is /dev/null, as a launch started without stdin has. */
  function stdinFromDevNull(): void {
    const readOnly = new Uint8Array(new BigUint64Array([0o2000000n, 0n, 0n]).buffer); // O_RDONLY | O_CLOEXEC
    const devNull = sys("openat2", -100, cString("/dev/null"), readOnly, 24);
    if (devNull < 0 || sys("dup3", devNull, 0, 0) !== 0) {
      return fail(`cannot give the command /dev/null for stdin (${errorText()})`);
    }
    sys("close", devNull);
  }

  /** Step 3. The policy and the command in `args`, checked; fails on anything else. */
  function checkedLaunch(args: string[]): {
    policy: LandlockLauncherPolicy;
    environment: string[];
    program: string;
    programArgs: string[];
    unreadable: string[];
    cgroupProcs: string[];
    rlimits: Rlimit[];
    filter: number[] | undefined;
  } {
    const usage = "usage: <policy JSON> [NAME=value...] <program> [args...]";
    const [policyJson, ...rest] = args;
    if (policyJson === undefined) return fail(usage);
    let policy: LandlockLauncherPolicy;
    try {
      policy = JSON.parse(policyJson) as LandlockLauncherPolicy;
    } catch (error) {
      return fail(`the policy argument is not JSON (${String(error)})`);
    }
    const envCount = policy.envEntries;
    if (!Number.isInteger(envCount) || envCount < 0 || envCount >= rest.length) {
      return fail(`the policy's envEntries must count the NAME=value arguments; ${usage}`);
    }
    const environment = rest.slice(0, envCount);
    if (!environment.every((entry) => entry.indexOf("=") > 0)) {
      return fail(`every environment argument must be NAME=value; ${usage}`);
    }
    const [program, ...programArgs] = rest.slice(envCount) as [string, ...string[]];
    // What a standby was handed may hold any string; a NUL would cut one short.
    if (rest.some((arg) => arg.includes("\0"))) {
      return fail("no environment entry, program or argument may hold a NUL byte");
    }
    const isPathList = (value: unknown): boolean =>
      Array.isArray(value) && value.every((item) => typeof item === "string");
    if (![policy.readPaths, policy.writeDirs, policy.writeFiles].every(isPathList)) {
      return fail("the policy needs readPaths, writeDirs and writeFiles, each a list of paths");
    }
    const unreadable = policy.unreadable ?? [];
    if (!isPathList(unreadable)) return fail("the policy's unreadable must be a list of paths");
    const mounts = policy.writableMounts;
    const readOnlyMounts = policy.readOnlyMounts ?? [];
    const hiddenMounts = policy.hiddenMounts ?? [];
    if (mounts !== undefined && ![mounts, readOnlyMounts, hiddenMounts].every(isPathList)) {
      return fail(
        "the policy's writableMounts, readOnlyMounts and hiddenMounts must be lists of paths",
      );
    }
    const masks = policy.masks ?? [];
    if (
      !Array.isArray(masks) ||
      !masks.every((mask) =>
        typeof mask?.path === "string" && ["string", "undefined"].includes(typeof mask.source)
      )
    ) {
      return fail("the policy's masks must be a list of { path, source? }");
    }
    if (masks.length > 0 && mounts === undefined) {
      return fail("the policy's masks need writableMounts (a private mount namespace)");
    }
    if (policy.terminal !== undefined && typeof policy.terminal !== "boolean") {
      return fail("the policy's terminal must be true or false");
    }
    if (policy.terminal === true && mounts === undefined) {
      return fail("the policy's terminal needs writableMounts (a private mount namespace)");
    }
    const cgroupProcs = policy.cgroupProcs ?? [];
    if (!isPathList(cgroupProcs)) return fail("the policy's cgroupProcs must be a list of paths");
    const rlimits = policy.rlimits ?? [];
    const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
    if (
      !Array.isArray(rlimits) ||
      !rlimits.every((limit) => [limit?.resource, limit?.soft, limit?.hard].every(isCount))
    ) {
      return fail("the policy's rlimits must be a list of { resource, soft, hard }, whole numbers");
    }
    const filter = policy.seccompFilter;
    if (
      filter !== undefined &&
      (!Array.isArray(filter) || filter.length % 8 !== 0 ||
        !filter.every((byte) => Number.isInteger(byte) && byte >= 0 && byte < 256))
    ) {
      return fail("the policy's seccompFilter must be a list of bytes, 8 per instruction");
    }
    return {
      policy,
      environment,
      program,
      programArgs,
      unreadable,
      cgroupProcs,
      rlimits,
      filter,
    };
  }

  /**
   * Step 4 (and a standby's first). Into the command's cgroups, so that
   * everything it starts is held there. A cgroup v1 hierarchy has a `tasks`
   * file: 0 written there moves this thread alone, the one that execs (the
   * runtime's other threads end with the exec), without the lock whose
   * taking waits for an RCU grace period (about 10 ms on a busy machine)
   * that moving the whole process through `cgroup.procs` costs. Where there
   * is none (cgroup v2, whose domain cgroups take no single thread), the
   * process moves as a whole.
   */
  function joinCgroups(files: string[]): void {
    const writeOnly = new Uint8Array(new BigUint64Array([0o2000001n, 0n, 0n]).buffer); // O_WRONLY | O_CLOEXEC
    const openToWrite = (file: string): number =>
      sys("openat2", -100, cString(file), writeOnly, 24);
    /** Writes `text` to `fd` and closes it; why it failed, or undefined. */
    const writeAndClose = (fd: number, text: string): string | undefined => {
      const bytes = encoder.encode(text);
      const written = sys("write", fd, bytes, bytes.length);
      const reason = errorText();
      sys("close", fd);
      return written === bytes.length ? undefined : reason;
    };
    for (const file of files) {
      const tasks = file.endsWith("/cgroup.procs")
        ? openToWrite(`${file.slice(0, -"cgroup.procs".length)}tasks`)
        : -1;
      const procs = tasks >= 0 ? -1 : openToWrite(file);
      const failed = tasks >= 0
        ? writeAndClose(tasks, "0")
        : procs >= 0
        ? writeAndClose(procs, String(deno.pid))
        : errorText();
      if (failed !== undefined) {
        return fail(
          `could not move the command into the cgroup of "${file}" (${failed}), so it was not run`,
        );
      }
    }
  }

  /**
   * Step 5. The read-only mount view, in a private mount namespace: once
   * restricted by Landlock, the process may not mount.
   */
  function mountView(mounts: string[], policy: LandlockLauncherPolicy): void {
    const readOnlyMounts = policy.readOnlyMounts ?? [];
    const hiddenMounts = policy.hiddenMounts ?? [];
    const masks = policy.masks ?? [];
    const CLONE_NEWNS = 0x20000, MS_BIND = 0x1000n, MS_REC = 0x4000n, MS_PRIVATE = 0x40000n;
    const AT_FDCWD = -100, AT_RECURSIVE = 0x8000, RDONLY = 1n;
    const setattr = (path: string, flags: number, set: bigint, clear: bigint): boolean => {
      const attr = new BigUint64Array([set, clear, 0n, 0n]); // struct mount_attr
      const bytes = new Uint8Array(attr.buffer);
      return sys("mount_setattr", AT_FDCWD, cString(path), flags, bytes, 32) === 0;
    };
    if (sys("unshare", CLONE_NEWNS) !== 0) {
      return fail(`cannot make a private mount namespace (${errorText()})`);
    }
    // Private before anything else, so that no change reaches the host's mounts.
    if (sys("mount", null, cString("/"), null, MS_REC | MS_PRIVATE, null) !== 0) {
      return fail(`cannot make the mounts private (${errorText()})`);
    }
    if (!setattr("/", AT_RECURSIVE, RDONLY, 0n)) {
      return fail(`cannot make the mounts read-only (${errorText()})`);
    }
    const bind = (path: string) =>
      sys("mount", cString(path), cString(path), null, MS_BIND | MS_REC, null) === 0;
    for (const path of mounts) {
      if (!bind(path) || !setattr(path, 0, 0n, RDONLY)) {
        return fail(`cannot mount "${path}" writable (${errorText()})`);
      }
    }
    for (const path of readOnlyMounts) {
      if (!bind(path) || !setattr(path, 0, RDONLY, 0n)) {
        return fail(`cannot mount "${path}" read-only (${errorText()})`);
      }
    }
    const MS_RDONLY = 1n, MS_NOSUID = 2n, MS_NODEV = 4n, MS_NOEXEC = 8n;
    const tmpfs = cString("tmpfs"), empty = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
    for (const path of hiddenMounts) {
      if (sys("mount", tmpfs, cString(path), tmpfs, empty, null) !== 0) {
        // Gone since it was listed (its executor was disposed): nothing to hide.
        if (errorText() === "ENOENT") continue;
        return fail(`cannot hide "${path}" under an empty tmpfs (${errorText()})`);
      }
    }
    // A devpts instance of its own, for every command: a terminal's opens
    // its terminals there, and none sees the host's (a user's terminal,
    // readable by the same user, gives away what is typed into it).
    const devpts = cString("devpts");
    const ptsOptions = cString("newinstance,ptmxmode=0666,mode=0620");
    if (
      sys("mount", devpts, cString("/dev/pts"), devpts, MS_NOSUID | MS_NOEXEC, ptsOptions) !== 0 ||
      sys("mount", cString("/dev/pts/ptmx"), cString("/dev/ptmx"), null, MS_BIND, null) !== 0
    ) {
      return fail(`cannot mount a terminal instance on /dev/pts (${errorText()})`);
    }
    // Last, so that no later mount uncovers them.
    for (const { source, path } of masks) {
      const covered = source === undefined
        ? sys("mount", tmpfs, cString(path), tmpfs, empty, cString("mode=000,size=4k"))
        : sys("mount", cString(source), cString(path), null, MS_BIND, null);
      if (covered !== 0 || !setattr(path, 0, RDONLY, 0n)) {
        // Gone since it was listed (a socket whose server quit, a secret removed): nothing to read.
        if (covered !== 0 && errorText() === "ENOENT") {
          continue;
        }
        return fail(`cannot mask "${path}" (${errorText()})`);
      }
    }
    // The working directory still points into the mount it was opened on:
    // enter it again by path, so a writable root there is writable.
    const cwd = new Uint8Array(4096);
    if (sys("getcwd", cwd, 4096) < 0 || sys("chdir", cwd) !== 0) {
      return fail(`cannot enter the working directory again (${errorText()})`);
    }
  }

  /**
   * Step 6. The Landlock ruleset for `policy`, restricting this process
   * (and all it will run) from here on, with no new privileges; returns
   * the kernel's Landlock ABI.
   */
  function restrictWithLandlock(policy: LandlockLauncherPolicy, unreadable: string[]): number {
    const abi = sys("landlock_create_ruleset", null, 0, 1);
    if (abi < 1) {
      return fail(`Landlock is not available in this kernel (${errorText()})`);
    }

    // Access rights, by the ABI that introduced them.
    const EXECUTE = 1n, WRITE_FILE = 2n, READ_FILE = 4n, READ_DIR = 8n;
    const REFER = 1n << 13n, TRUNCATE = 1n << 14n, IOCTL_DEV = 1n << 15n;
    let handledFs = (1n << 13n) - 1n;
    if (abi >= 2) handledFs |= REFER;
    if (abi >= 3) handledFs |= TRUNCATE;
    if (abi >= 5) handledFs |= IOCTL_DEV;
    const fileRights = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV;
    // No IOCTL_DEV: a device opened only for reading would still take ioctls
    // that change the host (attaching a loop device, for one).
    const readRights = (EXECUTE | READ_FILE | READ_DIR) & handledFs;
    const denyNetwork = policy.network === "deny";
    const handledNet = abi >= 4 && denyNetwork ? 3n : 0n; // TCP bind | TCP connect
    // Scopes (ABI 6): no signals to processes outside the sandbox; no abstract
    // Unix sockets outside it unless the network is allowed.
    const scoped = abi >= 6 ? 2n | (policy.network !== "allow" ? 1n : 0n) : 0n;

    const attr = new BigUint64Array([handledFs, handledNet, scoped]);
    const attrSize = abi >= 6 ? 24n : abi >= 4 ? 16n : 8n;
    const rulesetFd = sys("landlock_create_ruleset", new Uint8Array(attr.buffer), attrSize, 0);
    if (rulesetFd < 0) return fail(`landlock_create_ruleset failed (${errorText()})`);

    // The paths are canonical: a symlink met on the way was planted since they
    // were resolved, and following it would grant its target.
    const AT_FDCWD = -100, RESOLVE_NO_SYMLINKS = 4n;
    const open = (path: string, flags: number): number => {
      const how = new BigUint64Array([BigInt(flags | 0o2000000), 0n, RESOLVE_NO_SYMLINKS]);
      return sys("openat2", AT_FDCWD, cString(path), new Uint8Array(how.buffer), 24);
    };
    const O_PATH = 0o10000000, O_DIRECTORY = 0o200000;
    /** Adds a rule; false when `path` cannot be opened without following a symlink. */
    const tryAddPath = (path: string, rights: bigint): boolean => {
      const fd = open(path, O_PATH);
      if (fd < 0) return false;
      const rule = new ArrayBuffer(16); // struct landlock_path_beneath_attr, packed: 12 bytes
      new BigUint64Array(rule, 0, 1)[0] = rights & handledFs;
      new Int32Array(rule, 8, 1)[0] = fd;
      const add = () => sys("landlock_add_rule", rulesetFd, 1, new Uint8Array(rule), 0);
      let added = add();
      // Directory rights on a file are EINVAL: a walked entry may be either
      // (errno itself may be clobbered by the runtime, so it is not asked).
      if (added < 0 && (rights & ~fileRights) !== 0n) {
        new BigUint64Array(rule, 0, 1)[0] = rights & fileRights & handledFs;
        added = add();
      }
      if (added < 0) {
        return fail(`landlock_add_rule for "${path}" failed (${errorText()})`);
      }
      sys("close", fd);
      return true;
    };
    const addPath = (path: string, rights: bigint): void => {
      if (!tryAddPath(path, rights)) {
        fail(`cannot open "${path}" without following a symlink (${errorText()})`);
      }
    };
    // The entries of a directory, by getdents64 (the launcher may not read files).
    const decoder = new TextDecoder("utf-8", { fatal: true });
    const entries = (dir: string): string[] => {
      const fd = open(dir, O_DIRECTORY);
      if (fd < 0) {
        return fail(`cannot list "${dir}" to keep reads from beneath it (${errorText()})`);
      }
      const buffer = new Uint8Array(65536);
      const view = new DataView(buffer.buffer);
      const names: string[] = [];
      for (;;) {
        const size = sys("getdents64", fd, buffer, 65536);
        if (size < 0) return fail(`cannot list "${dir}" (${errorText()})`);
        if (size === 0) break;
        for (let offset = 0; offset < size; offset += view.getUint16(offset + 16, true)) {
          const end = buffer.indexOf(0, offset + 19); // struct linux_dirent64: d_name at 19
          try {
            const name = decoder.decode(buffer.subarray(offset + 19, end));
            if (name !== "." && name !== "..") names.push(name);
          } catch {
            // A name that is not UTF-8 cannot be granted by path: it stays unreadable.
          }
        }
      }
      sys("close", fd);
      return names;
    };
    // Reading is granted on every entry around the unreadable paths; those
    // that cannot be opened without following a symlink are reached through
    // their targets' own rules, or not at all.
    const readAround = (dir: string): void => {
      for (const name of entries(dir)) {
        const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
        if (unreadable.includes(path)) continue;
        if (unreadable.some((hidden) => hidden.startsWith(`${path}/`))) readAround(path);
        else tryAddPath(path, readRights);
      }
    };
    for (const path of policy.readPaths) {
      const prefix = path === "/" ? "/" : `${path}/`;
      if (!unreadable.some((hidden) => hidden.startsWith(prefix))) {
        addPath(path, readRights);
        continue;
      }
      addPath(path, READ_DIR & handledFs);
      readAround(path);
    }
    for (const path of policy.writeDirs) addPath(path, handledFs);
    for (const path of policy.writeFiles) addPath(path, fileRights);

    const PR_SET_NO_NEW_PRIVS = 38;
    if (sys("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) !== 0) {
      return fail(`prctl(PR_SET_NO_NEW_PRIVS) failed (${errorText()})`);
    }
    if (sys("landlock_restrict_self", rulesetFd, 0) !== 0) {
      return fail(`landlock_restrict_self failed (${errorText()})`);
    }
    sys("close", rulesetFd);
    return abi;
  }

  /**
   * Step 7. Landlock confines paths and ports, not privileges: root would
   * keep every capability (load modules, set the clock, reboot). Empty the
   * bounding set (root's execve grants exactly that set) and every
   * capability set; with no new privileges, the command cannot get any back.
   */
  function dropCapabilities(): void {
    const PR_CAPBSET_READ = 23, PR_CAPBSET_DROP = 24;
    const PR_CAP_AMBIENT = 47, PR_CAP_AMBIENT_CLEAR_ALL = 4n;
    const root = sys("geteuid") === 0;
    // Dropping a capability succeeds whether it is in the set or not; past the
    // last one it fails, and PR_CAPBSET_READ then answers -1 (not 1 or 0).
    for (let cap = 0;; cap++) {
      if (sys("prctl", PR_CAPBSET_DROP, cap, 0, 0, 0) === 0) continue;
      const reason = errorText();
      if (sys("prctl", PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break;
      // Without CAP_SETPCAP the set cannot shrink; a non-root user gains nothing from it.
      if (!root) break;
      return fail(`dropping capability ${cap} from the bounding set failed (${reason})`);
    }
    sys("prctl", PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    const header = new Uint32Array([0x20080522, 0]); // _LINUX_CAPABILITY_VERSION_3, this thread
    if (sys("capset", new Uint8Array(header.buffer), new Uint8Array(24)) !== 0) {
      return fail(`clearing the capability sets failed (${errorText()})`);
    }
  }

  /**
   * Step 8. The ABI printed when the policy asks (`reportAbi`, for probing),
   * then the process as a normal spawn leaves it: the runtime ignores
   * SIGPIPE and an ignored signal survives execve, so SIGPIPE goes back to
   * its default; descriptors the runtime inherited without close-on-exec
   * (from whatever started the executor) would hand the command files it may
   * not open, so every one above 2 becomes close-on-exec.
   */
  function resetForExec(abi: number, reportAbi: boolean): void {
    if (reportAbi) {
      deno.stdout.writeSync(encoder.encode(`shellseam-landlock-abi: ${abi}\n`));
    }
    // struct sigaction all zero: SIG_DFL, no flags, an empty mask; 8 bytes of signal set.
    const SIGPIPE = 13;
    sys("rt_sigaction", SIGPIPE, new Uint8Array(32), null, 8);
    const CLOSE_RANGE_CLOEXEC = 4;
    if (sys("close_range", 3, 0xffffffff, CLOSE_RANGE_CLOEXEC) !== 0) {
      return fail(`marking inherited descriptors close-on-exec failed (${errorText()})`);
    }
  }

  /** Step 9. The seccomp filter `filter` (`struct sock_filter` bytes), installed. */
  function installSeccompFilter(filter: number[]): void {
    const instructions = new Uint8Array(filter);
    const prog = new DataView(new ArrayBuffer(16)); // struct sock_fprog
    prog.setUint16(0, filter.length / 8, true);
    prog.setBigUint64(8, deno.UnsafePointer.value(deno.UnsafePointer.of(instructions)), true);
    const PR_SET_SECCOMP = 22, SECCOMP_MODE_FILTER = 2n;
    const progBytes = new Uint8Array(prog.buffer);
    if (sys("prctl", PR_SET_SECCOMP, SECCOMP_MODE_FILTER, progBytes, 0, 0) !== 0) {
      return fail(`installing the seccomp filter failed (${errorText()})`);
    }
  }

  /**
   * Step 10. The command, in place of the launcher: a standby first says it
   * runs the launch it was handed (`LAUNCH_STARTED` on stdout, before any
   * byte of the command's; until then the executor may start the command
   * elsewhere), then the rlimits are set, last, so that as little as
   * possible runs after them (the runtime, limited, might fail to
   * allocate), soft first, then hard, as `ulimit` sets them.
   */
  function execCommand(
    { environment, program, programArgs, rlimits }: {
      environment: string[];
      program: string;
      programArgs: string[];
      rlimits: Rlimit[];
    },
  ): void {
    const keep: Uint8Array[] = [];
    const pointerArray = (items: string[]): Uint8Array => {
      const array = new BigUint64Array(items.length + 1);
      items.forEach((item, index) => {
        const bytes = cString(item);
        keep.push(bytes);
        array[index] = deno.UnsafePointer.value(deno.UnsafePointer.of(bytes));
      });
      return new Uint8Array(array.buffer);
    };
    const argv = pointerArray([program, ...programArgs]);
    const envp = pointerArray(environment);
    const path = cString(program);
    const standby = deno.args[0] === "--standby"; // LAUNCHER_STANDBY_FLAG
    if (standby && sys("write", 1, new Uint8Array([6]), 1) !== 1) {
      return fail(`cannot tell the executor that the launch runs (${errorText()})`);
    }
    const limit = new BigUint64Array(2); // struct rlimit64: soft, hard
    const limitBytes = new Uint8Array(limit.buffer);
    for (const { resource, soft, hard } of rlimits) {
      for (const [index, value] of [[0, soft], [1, hard]] as const) {
        if (sys("prlimit64", 0, resource, null, limitBytes) !== 0) continue;
        limit[index] = BigInt(value);
        sys("prlimit64", 0, resource, limitBytes, null);
      }
    }
    sys("execve", path, argv, envp);
    fail(`execve of "${program}" failed (${errorText()})`);
  }
}
