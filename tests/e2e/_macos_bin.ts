// A folder for PATH that looks like a Mac's to shellseam: every program of
// /usr/bin and /bin but util-linux's `setsid` (macOS has none), procps's
// `ps`, util-linux's `script` and coreutils' `stty`, whose places fakes take
// that behave as macOS's do:
// - `ps` prints what macOS's `ps` prints: no session id (`sess` is 0 for an
//   unprivileged caller, there is no `sid`), the environment after the
//   command with -E, a controlling terminal as `ttysNNN` (`??` for none),
//   and procps-only flags refused. It logs each call's arguments, one line
//   each, to ps.log beside the folder (the watchdog that calls it passes on
//   no environment of the host's).
// - `script` is BSD's: `script [-q] FILE COMMAND...` (no -c, no -e), a
//   terminal opened at 0x0 with no SIGWINCH handling, SCRIPT=FILE in the
//   command's environment, no handler for SIGTERM, and the command's exit
//   status, or N alone for a command ended by signal N.
// - `stty` takes macOS's `-f DEVICE` (refusing GNU's -F), and reaches
//   `/dev/ttysNNN` (the name the fake `ps` gives) as Linux's `/dev/pts/N`.
import { chmodSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const FAKE_PS = String.raw`#!/usr/bin/python3
import os, sys, time

def refuse(what):
    sys.stderr.write("ps: illegal option -- %s\nusage: ps [-AaCcEefhjlMmrSTvwXx] [-O fmt | -o fmt] [-G gid[,gid...]]\n" % what)
    sys.exit(1)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ps.log"), "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\n")

every = False
env = False
pids = None
columns = []
args = sys.argv[1:]
i = 0
while i < len(args):
    a = args[i]
    i += 1
    if a.startswith("--") or not a.startswith("-"):
        # procps's long options and its BSD-style words (such as "e"): not macOS's.
        refuse(a.lstrip("-")[:1] or "-")
    for j, flag in enumerate(a[1:]):
        if flag in "Ae":
            every = True
        elif flag == "E":
            env = True
        elif flag == "w":
            pass
        elif flag in "op":
            rest = a[2 + j:] or (args[i] if i < len(args) else None)
            if rest is None:
                refuse(flag)
            if not a[2 + j:]:
                i += 1
            if flag == "o":
                columns += rest.split(",")
            else:
                pids = [int(p) for p in rest.replace(",", " ").split()]
            break
        else:
            refuse(flag)

KNOWN = {"pid", "ppid", "pgid", "state", "stat", "sess", "command", "args", "comm", "lstart", "tty"}
names = []
for c in columns:
    name = c.split("=", 1)[0]
    if name not in KNOWN:
        sys.stderr.write("ps: %s: keyword not found\nps: no valid keywords; valid keywords:\n" % name)
        sys.exit(1)
    names.append(name)
if not names:
    names = ["pid", "state", "command"]

def read(path):
    with open(path, "rb") as f:
        return f.read()

boot = 0
for line in read("/proc/stat").decode().splitlines():
    if line.startswith("btime "):
        boot = int(line.split()[1])
ticks = os.sysconf("SC_CLK_TCK")

def row(pid):
    stat = read("/proc/%d/stat" % pid).decode("latin1")
    fields = stat[stat.rindex(")") + 2:].split(" ")
    state, ppid, pgid, sid, tpgid = fields[0], fields[1], fields[2], int(fields[3]), fields[5]
    tty_nr = int(fields[4])
    major, minor = (tty_nr >> 8) & 0xfff, (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00)
    # Linux's pseudo-terminals (majors 136 to 143) as macOS names its own.
    tty = "ttys%03d" % ((major - 136) * 256 + minor) if 136 <= major <= 143 else "??"
    if state in "X":
        return None
    mac = {"D": "U", "t": "T", "W": "S", "P": "S"}.get(state, state)
    if sid == pid and state != "Z":
        mac += "s"
    if tpgid == pgid:
        mac += "+"
    cmdline = read("/proc/%d/cmdline" % pid).split(b"\0")
    command = b" ".join(w for w in cmdline if w).decode("utf-8", "replace")
    if state == "Z":
        command = "<defunct>"
    elif env:
        try:
            entries = [e.decode("utf-8", "replace") for e in read("/proc/%d/environ" % pid).split(b"\0") if e]
        except OSError:
            entries = []
        if entries:
            command = command + " " + " ".join(entries)
    start = boot + int(fields[19]) / ticks
    values = {
        "pid": "%5d" % pid,
        "ppid": "%5s" % ppid,
        "pgid": "%5s" % pgid,
        "state": "%-4s" % mac,
        "stat": "%-4s" % mac,
        "sess": "%16s" % "0",
        "command": command,
        "args": command,
        "comm": os.path.basename(cmdline[0].decode("utf-8", "replace")) if cmdline[0] else "",
        "tty": "%-8s" % tty,
        "lstart": time.strftime("%a %b %e %H:%M:%S %Y", time.localtime(start)),
    }
    return " ".join(values[n] for n in names)

if pids is None:
    if not every:
        pids = []
    else:
        pids = sorted(int(n) for n in os.listdir("/proc") if n.isdigit())
found = False
for pid in pids:
    try:
        line = row(pid)
    except (OSError, ValueError):
        continue
    if line is not None:
        found = True
        print(line)
sys.exit(0 if found else 1)
`;

const FAKE_SCRIPT = String.raw`#!/usr/bin/python3
import fcntl, os, select, signal, sys, termios

args = sys.argv[1:]
quiet = False
while args and args[0].startswith("-"):
    if args[0] != "-q":
        sys.stderr.write("script: illegal option -- %s\nusage: script [-adkpqr] [-F pipe] [-t time] [file [command ...]]\n" % args[0][1:2])
        sys.exit(1)
    quiet = True
    args = args[1:]
if len(args) < 2:
    sys.stderr.write("script: this stand-in needs a file and a command\n")
    sys.exit(1)
name, command = args[0], args[1:]
log = open(name, "wb")
master, slave = os.openpty()
child = os.fork()
if child == 0:
    os.close(master)
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    if slave > 2:
        os.close(slave)
    os.environ["SCRIPT"] = name
    try:
        os.execvp(command[0], command)
    except OSError as error:
        sys.stderr.write("script: %s: %s\n" % (command[0], error.strerror))
        os._exit(1)
os.close(slave)
reading = True
while True:
    ready = select.select([master] + ([0] if reading else []), [], [])[0]
    if 0 in ready:
        data = os.read(0, 4096)
        if data:
            os.write(master, data)
        else:
            attrs = termios.tcgetattr(master)
            if attrs[3] & termios.ICANON:
                os.write(master, attrs[6][termios.VEOF])
            reading = False
    if master in ready:
        try:
            data = os.read(master, 4096)
        except OSError:
            data = b""
        if not data:
            break
        os.write(1, data)
        log.write(data)
status = os.waitpid(child, 0)[1]
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else os.WTERMSIG(status))
`;

const FAKE_STTY = `#!/bin/bash
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -f)
      case "$2" in
        /dev/ttys[0-9]*) n=$((10#\${2#/dev/ttys})); args+=(-F "/dev/pts/$n") ;;
        *) args+=(-F "$2") ;;
      esac
      shift 2 ;;
    -F*|--*) echo "stty: illegal option -- \${1:1:1}" >&2; exit 1 ;;
    *) args+=("$1"); shift ;;
  esac
done
exec /usr/bin/stty "\${args[@]}"
`;

/** Makes `dir` (absent) the Mac-like PATH folder described above; returns it. Its `ps` logs to `dir/../ps.log`. */
export function macosBin(dir: string): string {
  mkdirSync(dir);
  for (const source of ["/usr/bin", "/bin"]) {
    for (const name of readdirSync(source)) {
      if (["setsid", "ps", "script", "stty"].includes(name)) continue;
      try {
        symlinkSync(join(source, name), join(dir, name));
      } catch {
        // /bin and /usr/bin share most names (a merged /usr): the first stays.
      }
    }
  }
  for (const [name, text] of [["ps", FAKE_PS], ["script", FAKE_SCRIPT], ["stty", FAKE_STTY]]) {
    writeFileSync(join(dir, name!), text!);
    chmodSync(join(dir, name!), 0o755);
  }
  return dir;
}
