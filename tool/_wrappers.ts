import { readCommandLine, type SimpleCommand } from "./_shell.ts";

/** Every command a simple command runs: itself, then what its wrappers run. */
export type RunCommands = { ok: true; commands: SimpleCommand[] } | { ok: false; reason: string };

/** Options of a wrapper: those that take a value, and plain switches. */
interface WrapperOptions {
  /** Short (`-u`) and long (`--user`) options that take a value (`--user=x` also works). */
  withValue: readonly string[];
  /** Short and long switches. */
  switches: readonly string[];
  /** Options after which nothing is run (a query such as `command -v`). */
  queries?: readonly string[];
  /** Positional words before the command (`timeout`'s duration). */
  leading?: number;
}

/** Programs that run the rest of their words as a command. */
const WRAPPERS: Record<string, WrapperOptions> = {
  sudo: {
    withValue: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group"],
    switches: ["-E", "-H", "-n", "-S", "-k", "-b", "-i", "-s", "-P", "-A", "-B", "--preserve-env"],
    queries: ["-l", "-v", "-K", "-V", "--list", "--validate", "--version"],
  },
  doas: { withValue: ["-u", "-C"], switches: ["-n", "-s"] },
  nohup: { withValue: [], switches: [] },
  exec: { withValue: ["-a"], switches: ["-c", "-l"] },
  command: { withValue: [], switches: ["-p"], queries: ["-v", "-V"] },
  builtin: { withValue: [], switches: [] },
  nice: { withValue: ["-n", "--adjustment"], switches: [] },
  time: { withValue: [], switches: ["-p"] },
  timeout: {
    withValue: ["-s", "-k", "--signal", "--kill-after"],
    switches: ["-v", "--preserve-status", "--foreground", "--verbose"],
    leading: 1,
  },
  stdbuf: { withValue: ["-i", "-o", "-e", "--input", "--output", "--error"], switches: [] },
  setsid: { withValue: [], switches: ["-c", "-f", "-w", "--ctty", "--fork", "--wait"] },
  ionice: { withValue: ["-c", "-n", "--class", "--classdata"], switches: ["-t"] },
  env: {
    withValue: ["-u", "-C", "--unset", "--chdir"],
    switches: ["-i", "-0", "--ignore-environment", "--null"],
  },
  xargs: {
    withValue: ["-I", "-n", "-P", "-L", "-d", "-a", "-s", "-E", "--max-args", "--max-procs"],
    switches: ["-0", "-r", "-t", "-p", "-x", "-i", "--null", "--no-run-if-empty", "--verbose"],
  },
};

/** Shells whose `-c STRING` is a command line of its own. */
const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox"]);

/** `find` actions that run a command, up to `;` or `+`. */
const FIND_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** Words as text for messages: a word known only at run time shows as `$?`. */
export function wordsText(words: readonly (string | null)[]): string {
  return words.map((word) => word ?? "$?").join(" ");
}

/** The program name of a word: its last path component. */
export function programName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/**
 * Every command `command` runs: itself, and (recursively) what it hands on
 * as a wrapper (`sudo`, `env`, `timeout`, `xargs`, ...), as a shell given
 * `-c`, through `eval`, or through `find -exec`. An option of a wrapper that
 * is not known, or a word that decides what runs but expands at run time,
 * makes it unreadable.
 */
export function commandsRun(command: SimpleCommand, depth = 0): RunCommands {
  if (depth > 16) return { ok: false, reason: "wrappers are nested too deeply" };
  const [program, ...args] = command.words;
  if (program === null || program === undefined) {
    return program === null
      ? { ok: false, reason: `the program of "${command.text}" is known only when it runs` }
      : { ok: true, commands: [] };
  }
  const name = programName(program);
  const inner = innerCommand(name, args, command.raw.slice(1), command.text);
  if (!inner.ok) return inner;
  const commands: SimpleCommand[] = [command];
  for (const each of inner.commands) {
    const more = commandsRun(each, depth + 1);
    if (!more.ok) return more;
    commands.push(...more.commands);
  }
  return { ok: true, commands };
}

/** What `name args...` runs besides itself. */
function innerCommand(
  name: string,
  args: (string | null)[],
  raw: string[],
  text: string,
): RunCommands {
  const none: RunCommands = { ok: true, commands: [] };
  if (SHELLS.has(name)) return shellCommand(name, args, text);
  if (name === "eval") {
    if (args.some((arg) => arg === null)) {
      return { ok: false, reason: `"eval" of text known only at run time` };
    }
    return readCommandLine(args.join(" "));
  }
  if (name === "find") return findCommands(args, raw, text);
  const options = WRAPPERS[name];
  if (options === undefined) return none;
  let index = 0;
  let leading = options.leading ?? 0;
  while (index < args.length) {
    const arg = args[index];
    if (arg === null || arg === undefined) {
      return { ok: false, reason: `"${text}" hands on words known only at run time` };
    }
    if (arg === "--") {
      index++;
      break;
    }
    if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      index++;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      if (leading === 0) break;
      leading--;
      index++;
      continue;
    }
    const [flag = arg] = arg.startsWith("--") ? arg.split("=", 1) : [arg.slice(0, 2)];
    if (options.queries?.includes(flag)) return none;
    if (options.withValue.includes(flag)) {
      // `-n5` and `--max-args=5` carry the value; `-n 5` takes the next word.
      index += arg === flag ? 2 : 1;
    } else if (options.switches.includes(flag) && (arg === flag || !flag.startsWith("--"))) {
      // Bundled switches (`-Eb`) are switches only when each letter is one.
      const letters = arg.startsWith("--") ? [] : [...arg.slice(1)].map((letter) => `-${letter}`);
      if (letters.some((letter) => !options.switches.includes(letter))) {
        return { ok: false, reason: `"${name}" option "${arg}" is not known` };
      }
      index++;
    } else if (name === "nice" && /^-\d+$/.test(arg)) {
      index++;
    } else {
      return { ok: false, reason: `"${name}" option "${arg}" is not known` };
    }
  }
  const rest = args.slice(index);
  if (rest.length === 0) {
    // xargs alone runs echo; the others run nothing more.
    return name === "xargs"
      ? { ok: true, commands: [{ words: ["echo"], raw: ["echo"], text: "echo" }] }
      : none;
  }
  return { ok: true, commands: [{ words: rest, raw: raw.slice(index), text: wordsText(rest) }] };
}

/** `bash -c STRING`: STRING read as a command line; `bash script` runs the script. */
function shellCommand(name: string, args: (string | null)[], text: string): RunCommands {
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index];
    if (arg === null || arg === undefined) {
      return { ok: false, reason: `"${text}" has options known only at run time` };
    }
    if (arg === "-c") {
      const script = args[index + 1];
      if (script === null || script === undefined) {
        return { ok: false, reason: `"${name} -c" of text known only at run time` };
      }
      return readCommandLine(script);
    }
    if (arg === "-o" || arg === "+o" || arg === "-O" || arg === "+O") {
      index++;
      continue;
    }
    if (/^[-+][a-zA-Z]+$/.test(arg)) {
      if (arg.startsWith("-") && arg.includes("c")) {
        const script = args[index + 1];
        if (script === null || script === undefined) {
          return { ok: false, reason: `"${name} -c" of text known only at run time` };
        }
        return readCommandLine(script);
      }
      continue;
    }
    if (arg.startsWith("--")) continue;
    break;
  }
  return { ok: true, commands: [] };
}

/** `find ... -exec CMD ARGS... ;` (or `+`): each CMD ARGS is a command. */
function findCommands(args: (string | null)[], raw: string[], text: string): RunCommands {
  const commands: SimpleCommand[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === null || arg === undefined || !FIND_ACTIONS.has(arg)) continue;
    const end = args.findIndex((word, at) => at > index && (word === ";" || word === "+"));
    if (end === -1) return { ok: false, reason: `"${text}" has an -exec without its end` };
    const words = args.slice(index + 1, end);
    if (words.length > 0) {
      commands.push({ words, raw: raw.slice(index + 1, end), text: wordsText(words) });
    }
    index = end;
  }
  return { ok: true, commands };
}
