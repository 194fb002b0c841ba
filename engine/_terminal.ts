/**
 * A command in a pseudo-terminal (`BashExecRequest.terminal`), with no
 * native addon: `script` (util-linux's on Linux, BSD's on macOS) opens the
 * terminal, makes the command's shell lead a new session with it as its
 * controlling terminal, and copies its stdin pipe to the terminal and the
 * terminal to its stdout.
 *
 * Why `script`, and how the size is set:
 * 1. `script` ships with every system we run on (Debian's essential
 *    packages, macOS's /usr/bin), where a launcher of our own would need FFI
 *    (Deno only, and refused under a narrow permission set) or a compiled helper.
 * 2. With a piped stdin, `script` opens the terminal at 0x0 and ignores
 *    SIGWINCH, so the size is set on the terminal itself: at start by an
 *    `stty` inside the terminal before the command runs (nothing can read
 *    the terminal before it, and it works wherever the command runs: under
 *    a sandbox, over SSH), and on each resize from the host on the
 *    terminal's device: `/proc/<pid>/fd/0` of the shell that holds it where
 *    there is `/proc`, else the `pts/N` or `ttysNNN` that `ps` names (no
 *    other name is opened). Setting the size on the terminal sends SIGWINCH
 *    to its foreground programs: rows and columns at once, by BSD's `stty`
 *    on macOS, and on Linux by perl's one `TIOCSWINSZ` where the host has
 *    perl, else GNU `stty` sets one after the other (see
 *    `TIOCSWINSZ`).
 * 3. The command's shell is in a session of its own, so a kill of the
 *    launch's session reaches `script` only: `script` ends its shell on
 *    SIGTERM, the terminal's closing sends SIGHUP to its session, and the
 *    sweep finds whatever is left by the marker every process carries.
 *
 * @module
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import process from "node:process";
import { BashConfigError, BashSpawnError, type BashTerminalSize, shellQuote } from "../seam/mod.ts";
import { checkTerminalSize } from "../seam/checks.ts";
import { messageOf } from "../seam/message.ts";
import { type ExitStatus, platformOf, type Runtime } from "../runtime/mod.ts";
import { BASH_FLAGS } from "./_env.ts";
import { MAX_ARG_BYTES } from "./_exec.ts";
import { throwIfDenied } from "./_permissions.ts";
import { findOnPath } from "./_session.ts";
import { within } from "./_within.ts";

/** How long a resize's `ps` or `stty` may take before it is killed and the resize fails. */
const RESIZE_WAIT_MS = 5000;

const encoder = new TextEncoder();

/**
 * Which `script` opens a terminal: util-linux's (Linux) or BSD's (macOS).
 * Its `stty` and `ps` are of the same family.
 */
export type ScriptFlavour = "util-linux" | "bsd";

/** The `script` a terminal runs: its path, and which one it is. */
export interface TerminalScript {
  path: string;
  flavour: ScriptFlavour;
}

/**
 * The bash source that runs `command` in a terminal of `size`, for
 * `bash -c` (whose `$BASH` names it), through util-linux `script` at
 * `script` (the default) or BSD's:
 * 1. util-linux: keep the command's `SHELL` aside (or that it had none),
 *    since `script` runs `$SHELL -c`, and make `SHELL` this bash for
 *    `script` alone. BSD: keep `SCRIPT` aside the same way (BSD `script`
 *    sets it to the typescript file); the command's words follow the
 *    typescript file (`/dev/null`), so `SHELL` is left alone.
 * 2. `script` opens the terminal and runs the inner source there, which
 *    puts the variable back, sets the size, and runs bash on the command as
 *    a plain command would run. util-linux: it execs bash with SIGINT and
 *    SIGQUIT at their defaults (where coreutils `env` can set them), and
 *    `-e` makes the command's status `script`'s. BSD: bash waits for the
 *    command with SIGINT and SIGQUIT caught (so the command gets them at
 *    their defaults, and Ctrl-C leaves bash running) and exits with its
 *    status, so a command ended by a signal N exits 128 + N, as under
 *    util-linux, where BSD `script` would say N.
 * Throws `BashConfigError` for a command too long for one argument of `script`.
 */
export function terminalCommand(
  command: string,
  size: BashTerminalSize,
  script: string,
  flavour: ScriptFlavour = "util-linux",
): string {
  const bsd = flavour === "bsd";
  const kept = bsd ? "SCRIPT" : "SHELL";
  const aside = bsd ? "__shellseam_script" : "__shellseam_shell";
  const run = bsd
    ? ["trap : INT QUIT", `"$BASH" ${shellQuote([...BASH_FLAGS, "-c", command])}`, "exit $?"]
    : [
      // A command started as a background job (the remote bootstrap's) has SIGINT
      // and SIGQUIT ignored, which no shell can undo: env puts them back, so Ctrl-C works.
      "if env --default-signal=INT true 2>/dev/null; then d=(env --default-signal=INT,QUIT); " +
      "else d=(); fi",
      `exec "\${d[@]}" "$BASH" ${shellQuote([...BASH_FLAGS, "-c", command])}`,
    ];
  const inner = [
    `if [ -n "\${${aside}+x}" ]; then ${kept}=$${aside}; ` +
    `unset -v ${aside}; else unset -v ${kept}; fi`,
    `stty rows ${size.rows} cols ${size.cols} || ` +
    '{ echo "shellseam: could not set the size of the terminal" >&2; exit 125; }',
    ...run,
  ].join("; ");
  if (encoder.encode(inner).length + 1 > MAX_ARG_BYTES) {
    throw new BashConfigError(
      `The command is too long for a terminal (${MAX_ARG_BYTES} bytes at most, quoted); write it to a file and run that file`,
    );
  }
  const keep = `if [ -n "\${${kept}+x}" ]; then export ${aside}=$${kept}; fi; `;
  return bsd
    ? keep +
      `exec ${shellQuote([script, "-q", "/dev/null"])} "$BASH" ${
        shellQuote([...BASH_FLAGS, "-c", inner])
      }`
    : keep + `SHELL=$BASH exec ${shellQuote([script, "-q", "-e", "-c", inner, "/dev/null"])}`;
}

/** Whether `runtime`'s platform has BSD's `script`, `stty` and `ps` (macOS) rather than Linux's. */
function bsdTools(runtime: Runtime): boolean {
  return platformOf(runtime).ps === "bsd";
}

/**
 * The platform's `script` (util-linux's on Linux, BSD's on macOS); throws
 * `BashSpawnError` when there is none on PATH.
 */
export function findScript(runtime: Runtime): TerminalScript {
  const bsd = bsdTools(runtime);
  const path = findOnPath("script");
  if (path === null) {
    throw new BashSpawnError(
      bsd
        ? `A terminal needs "script", which is not on PATH; it ships with macOS in /usr/bin (put /usr/bin on PATH), or start the command without "terminal"`
        : `A terminal needs util-linux "script", which is not on PATH; install util-linux (Debian: bsdutils) or start the command without "terminal"`,
    );
  }
  return { path, flavour: bsd ? "bsd" : "util-linux" };
}
/**
 * The first process below `pid` (breadth first: the outermost) whose stdin
 * is a pseudo-terminal, or null when none is (the command ended). Throws
 * when /proc cannot be read.
 */
export function terminalHolder(pid: number): number | null {
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (next !== pid && stdinIsTerminal(next)) return next;
    queue.push(...childrenOf(next));
  }
  return null;
}

function stdinIsTerminal(pid: number): boolean {
  try {
    return readlinkSync(`/proc/${pid}/fd/0`).startsWith("/dev/pts/");
  } catch (error) {
    throwIfDenied(error, "read /proc to find a command's terminal");
    return false;
  }
}

/** The children of every thread of `pid`; none once it is gone. */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch (error) {
    throwIfDenied(error, "read /proc to find a command's terminal");
    return [];
  }
  const children: number[] = [];
  for (const task of tasks) {
    try {
      const listed = readFileSync(`/proc/${pid}/task/${task}/children`, "latin1");
      for (const child of listed.split(" ")) if (child !== "") children.push(Number(child));
    } catch {
      // The thread ended while we looked.
    }
  }
  return children;
}

/** The names `ps` gives the terminals the host may open: pseudo-terminals alone (Linux's, macOS's). */
const PTY_NAME = /^(?:pts\/\d+|ttys\d+)$/;

/**
 * The pseudo-terminal (`/dev/pts/N`, macOS's `/dev/ttysNNN`) that the first
 * process below `pid` (breadth first: the outermost) has as its controlling
 * terminal, from `listing`, the lines of `ps -A -o pid=,ppid=,tty=`; null
 * when none has one (the command ended). A name that is not a
 * pseudo-terminal's is passed over, so the host never opens another path.
 */
export function terminalOfListing(listing: string, pid: number): string | null {
  const children = new Map<number, number[]>();
  const ttys = new Map<number, string>();
  for (const line of listing.split("\n")) {
    const [self, parent, tty] = line.trim().split(/\s+/);
    if (self === undefined || parent === undefined || tty === undefined) continue;
    const [child, of] = [Number(self), Number(parent)];
    if (!Number.isSafeInteger(child) || !Number.isSafeInteger(of)) continue;
    ttys.set(child, tty);
    children.set(of, [...children.get(of) ?? [], child]);
  }
  const queue = [...children.get(pid) ?? []];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const tty = ttys.get(next) ?? "";
    if (PTY_NAME.test(tty)) return `/dev/${tty}`;
    queue.push(...children.get(next) ?? []);
  }
  return null;
}

/**
 * Linux's `TIOCSWINSZ`: the ioctl that sets a terminal's rows and columns at
 * once. GNU `stty rows R cols C` makes two, so a program gets two SIGWINCHes
 * and can read the new rows with the old columns in between, and bash drops
 * a SIGWINCH that arrives while its WINCH trap runs: a trap that read the
 * size between the two keeps the old columns. BSD's `stty` (macOS) sets both
 * with one.
 */
const TIOCSWINSZ = 0x5414;

/** The architectures (`process.arch`) whose Linux has that number (mips and powerpc have others). */
const TIOCSWINSZ_ARCHES: ReadonlySet<string> = new Set([
  "x64",
  "ia32",
  "arm",
  "arm64",
  "riscv64",
  "s390x",
  "loong64",
]);

/**
 * The perl program that sets the size of the terminal at `$ARGV[0]` with
 * one `TIOCSWINSZ` (`$ARGV[1]`) to `$ARGV[2]` rows and `$ARGV[3]` columns,
 * opening it as `stty` does (read-only, never as its controlling terminal,
 * without waiting).
 */
const SET_WINDOW_SIZE = [
  "use Fcntl;",
  'sysopen(my $t, $ARGV[0], O_RDONLY | O_NOCTTY | O_NONBLOCK) or die "$ARGV[0]: $!\\n";',
  'ioctl($t, $ARGV[1] + 0, pack("S4", $ARGV[2], $ARGV[3], 0, 0)) or die "TIOCSWINSZ: $!\\n";',
].join(" ");

/** Resizes the terminal of a command started with one (see `BashProcess.resize`). */
export interface TerminalControl {
  /** Sets the terminal's size; rejects with `BashConfigError` when it cannot. */
  resize(rows: number, cols: number): Promise<void>;
}

/** What a program the host ran for a resize said. */
interface ToolRun {
  status: ExitStatus;
  stdout: string;
  stderr: string;
}

/**
 * The terminal of the launch whose pid is `pid`, resized from the host by
 * perl or `stty` on the terminal's device, found through `/proc` or `ps`
 * (see the module's header). Each is looked up on `toolPath` (the executor's
 * `toolPath`, see `_host_tools.ts`), never on PATH: they run unconfined, and
 * a confined command may have planted its own on PATH since.
 */
export function localTerminal(
  runtime: Runtime,
  toolPath: string,
  pid: () => number,
): TerminalControl {
  const platform = platformOf(runtime);
  const bsd = bsdTools(runtime);
  const found = new Map<string, string | null>();
  /** Where `name` is on `toolPath` (looked up once), or null. */
  const lookup = (name: string): string | null => {
    if (!found.has(name)) found.set(name, findOnPath(name, toolPath));
    return found.get(name) ?? null;
  };
  const tool = (name: string, from: string): string => {
    const path = lookup(name);
    if (path === null) {
      throw new BashSpawnError(
        `Resizing a terminal needs "${name}", which was not on PATH when the executor was made; ${
          bsd ? `it ships with macOS in /bin (put /bin on PATH)` : `install ${from}`
        }`,
      );
    }
    return path;
  };
  const run = async (program: string, args: string[]): Promise<ToolRun> => {
    const child = await runtime.spawn({
      program,
      args,
      cwd: "/",
      env: {},
      stdin: "null",
      session: "setsid-binary",
    });
    const stdout = new Response(child.stdout).text();
    const stderr = new Response(child.stderr).text();
    const status = await within(child.exited, RESIZE_WAIT_MS);
    if (status === undefined) {
      runtime.kill(child.pid, "SIGKILL");
      throw new BashSpawnError(
        `"${
          program.slice(program.lastIndexOf("/") + 1)
        }" did not answer within ${RESIZE_WAIT_MS} ms while resizing a terminal`,
      );
    }
    const read = async (text: Promise<string>): Promise<string> => {
      try {
        return (await within(text, 1000) ?? "").trim();
      } catch (error) {
        return messageOf(error);
      }
    };
    return { status, stdout: await read(stdout), stderr: await read(stderr) };
  };
  /** The device of the launch's terminal, or null once no process below it holds one. */
  const device = async (): Promise<string | null> => {
    if (platform.proc) {
      const holder = terminalHolder(pid());
      return holder === null ? null : `/proc/${holder}/fd/0`;
    }
    const ps = await run(tool("ps", "procps"), ["-A", "-o", "pid=,ppid=,tty="]);
    if (ps.status.code !== 0) {
      throw new BashConfigError(
        `Could not list processes to find the terminal of process ${pid()} (ps: ${
          ps.stderr === "" ? `exit ${ps.status.code ?? ps.status.signal}` : ps.stderr
        })`,
      );
    }
    return terminalOfListing(ps.stdout, pid());
  };
  return {
    async resize(rows: number, cols: number): Promise<void> {
      const size = checkTerminalSize("size", { rows, cols });
      const terminal = await device();
      if (terminal === null) {
        throw new BashConfigError(
          `Process ${pid()} holds no terminal any more (its command ended); start a new one`,
        );
      }
      // One size change: BSD's stty makes one; on Linux, perl where the host has it (see
      // `TIOCSWINSZ`), else GNU stty's two.
      const request = !bsd && TIOCSWINSZ_ARCHES.has(process.arch) ? TIOCSWINSZ : undefined;
      const perl = request === undefined ? null : lookup("perl");
      const [name, program, args] = perl !== null
        ? ["perl", perl, [
          "-e",
          SET_WINDOW_SIZE,
          terminal,
          `${request}`,
          `${size.rows}`,
          `${size.cols}`,
        ]]
        : [
          "stty",
          tool("stty", "coreutils"),
          [bsd ? "-f" : "-F", terminal, "rows", `${size.rows}`, "cols", `${size.cols}`],
        ];
      const { status, stderr } = await run(program, args);
      if (status.code !== 0) {
        throw new BashConfigError(
          `Could not resize the terminal of process ${pid()} (${name}: ${
            stderr === "" ? `exit ${status.code ?? status.signal}` : stderr
          }); it may have just ended`,
        );
      }
    },
  };
}
