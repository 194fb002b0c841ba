/**
 * The remote side's own programs: what the bootstrap, the executor's probes
 * (the sandbox's, a resize's, the clean-up at disposal) and the remote
 * login shell run by name, outside any sandbox, while confined commands run
 * or after them. They are looked up on a search path learned once, before
 * the executor's first confined command runs: the folders of the remote
 * session's PATH that held one of them then, and the remote bash by its
 * absolute path. A folder of that PATH that a confined command may write (a
 * workspace's `node_modules/.bin`, which `npm run` puts first) is then not
 * searched later, when a command may have planted an `stty` or a `setsid`
 * there; and a folder that is searched is one that the remote sandbox keeps
 * out of every call's writable roots (see `remote/_sandbox.ts`). The same
 * as the local host's tools (see `engine/_host_tools.ts`). The same probe
 * learns the remote home and what sshd and the login shell read before the
 * bootstrap runs (see `_login_files.ts`), which the remote sandbox keeps
 * out of every call's writable roots too.
 *
 * @module
 */
import { posix } from "node:path";
import { BashSpawnError } from "../seam/mod.ts";
import { LOGIN_FILES_SCRIPT, type LoginFile, parseLoginFiles } from "./_login_files.ts";

/**
 * The programs the remote side runs by name outside any sandbox: the
 * bootstrap's (`setsid`, `env`, the holder's `sleep`, ...), the sandbox's
 * probes' (`bwrap`, `realpath`, `stat`, ...), a resize's (`readlink`,
 * `stty`), and `script`, whose presence a terminal checks.
 */
export const REMOTE_TOOLS: readonly string[] = Object.freeze([
  "setsid",
  "env",
  "sleep",
  "rm",
  "mv",
  "head",
  "tail",
  "mkdir",
  "mktemp",
  "chmod",
  "base64",
  "realpath",
  "stat",
  "uname",
  "readlink",
  "stty",
  "bwrap",
  "script",
]);

/** Where the remote side finds its own programs, learned once per executor. */
export interface RemoteTools {
  /** The remote bash, by its absolute path. */
  shell: string;
  /**
   * The search path of the remote side's own programs: the folders of the
   * session's PATH that held one of {@linkcode REMOTE_TOOLS}, and the remote
   * bash's, in PATH's order, each once.
   */
  path: string;
  /**
   * Those folders and the remote bash's, each as found and by its canonical
   * path: no writable root of a confined call may hold one.
   */
  folders: readonly string[];
  /** The remote session's PATH, which commands get (undefined when it has none). */
  sessionPath: string | undefined;
  /** The remote session's `$HOME` (empty when it has none). */
  home: string;
  /**
   * What sshd and the login shell read before the bootstrap runs, at every
   * channel: no writable root of a confined call may hold one of their
   * locations (see `_login_files.ts`).
   */
  loginFiles: readonly LoginFile[];
  /**
   * Set when the remote user database could not be read: the home where
   * sshd reads `~/.ssh` is unknown, so no writable root can be shown not to
   * hold it (see `LoginFiles.passwdUnread`). Says why.
   */
  passwdUnread?: string;
}

/**
 * The probe script, run as `bash -c TOOLS_SCRIPT shellseam-tools <shell>
 * <tool>...`: prints, NUL-separated, whether PATH is set, PATH, the shell's
 * absolute path (empty when not found) and its canonical path, then the
 * folder of each tool found (once each) with its canonical path, an empty
 * word, and what `LOGIN_FILES_SCRIPT` prints. Lookups go through bash's
 * hash table, so only the `realpath` calls start processes.
 */
const TOOLS_SCRIPT = `
set -f
s=$1
shift
if [[ $s != */* ]]; then hash -- "$s" 2>/dev/null && s=\${BASH_CMDS[$s]-} || s=; fi
[[ $s == /* ]] || s=
r=
[[ -z $s ]] || r=$(realpath -e -- "$s") || exit 5
printf '%s\\0' "\${PATH+x}" "\${PATH-}" "$s" "$r"
declare -A seen=()
for t in "$@"; do
  hash -- "$t" 2>/dev/null || continue
  f=\${BASH_CMDS[$t]-}
  [[ $f == /* ]] || continue
  d=\${f%/*}
  d=\${d:-/}
  [[ -z \${seen[$d]-} ]] || continue
  seen[$d]=1
  r=$(realpath -e -- "$d") || exit 5
  printf '%s\\0' "$d" "$r"
done
printf '\\0'
${LOGIN_FILES_SCRIPT}`;

/** The argv of the probe that learns the remote tools, run by `shell` (the configured one). */
export function toolsProbe(shell: string): string[] {
  return [
    shell,
    "--norc",
    "--noprofile",
    "-c",
    TOOLS_SCRIPT,
    "shellseam-tools",
    shell,
    ...REMOTE_TOOLS,
  ];
}

/**
 * The tools from the probe's exit code and output; throws `BashSpawnError`
 * when the probe failed or the remote bash was not found.
 */
export function parseTools(
  host: string,
  shell: string,
  exitCode: number | null,
  output: string,
): RemoteTools {
  const words = output.split("\0");
  const [set, sessionPath, found, canonical] = words;
  // The tools' folders come in pairs, never empty: the first empty word at a pair's place ends them.
  const end = words.findIndex((word, at) => at >= 4 && at % 2 === 0 && word === "");
  const login = end === -1 ? undefined : parseLoginFiles(words.slice(end + 1));
  if (
    exitCode !== 0 || found === undefined || canonical === undefined || login === undefined
  ) {
    throw new BashSpawnError(
      `Could not learn where the programs of ${host} are (exit ${exitCode}), so nothing was run; check that bash and realpath work there`,
    );
  }
  if (found === "" || !canonical.startsWith("/")) {
    throw new BashSpawnError(
      `No "${shell}" was found on the PATH of ${host}, so nothing was run; install bash there or pass its absolute path as "shell"`,
    );
  }
  // Each folder as bash's lookup joins it (no trailing slash, no "." part).
  const clean = (folder: string): string => posix.dirname(posix.join(folder, "tool"));
  // Each tool's folder then its canonical path.
  const listed = words.slice(4, end);
  const order = (sessionPath ?? "").split(":").map(clean);
  // The remote bash's folder too: the bootstrap finds the bash of a probe or a wrapper there.
  const searched = [
    ...new Set([posix.dirname(found), ...listed.filter((_, at) => at % 2 === 0)].map(clean)),
  ]
    .sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return {
    shell: found,
    path: searched.join(":"),
    folders: [...new Set([posix.dirname(found), posix.dirname(canonical), ...listed].map(clean))],
    sessionPath: set === "x" ? sessionPath : undefined,
    home: login.home,
    loginFiles: login.files,
    ...(login.passwdUnread === undefined ? {} : { passwdUnread: login.passwdUnread }),
  };
}
