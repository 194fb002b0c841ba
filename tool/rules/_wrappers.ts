import { RUNNERS } from "./_runners.ts";
import { readCommandLine, type SimpleCommand } from "./_shell.ts";

/** A command found in a line, and whether it only hands its work on to the next ones. */
export interface RunCommand extends SimpleCommand {
  /**
   * True for a runner (`timeout 5 CMD`, `bash -c '...'`, `xargs CMD`) whose
   * commands follow it: it is judged by what it runs, and by its own rules
   * only where they deny or ask. A runner that changes who runs the command
   * (`sudo`, `doas`, `su`) is never only a hand-on.
   */
  handsOn?: boolean;
}

/** Every command a simple command runs: itself, then what its runners run. */
export type RunCommands = { ok: true; commands: RunCommand[] } | { ok: false; reason: string };

/**
 * Programs that run a command but are judged as themselves too: those that
 * change who runs it, and `find`, which acts on its own (`-delete`).
 */
const JUDGED_TOO = new Set(["sudo", "doas", "su", "find"]);

/** Shells whose `-c STRING` is a command line of its own. */
const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash"]);

/** Long options of a shell that take the next word as their value. */
const SHELL_LONG_WITH_VALUE = new Set(["--rcfile", "--init-file"]);

/** `find` actions that run a command, up to `;` or `+`. */
const FIND_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** GNU parallel's ends of the command: the arguments follow. */
const PARALLEL_ARGUMENTS = new Set([":::", "::::", ":::+", "::::+"]);

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
 * as a runner (`sudo`, `env`, `timeout`, `xargs`, `watch`, `parallel`, ...),
 * as a shell given `-c` (also `script -c` and `su -c`), through `eval`, or
 * through `find -exec`. What a runner runs inherits the variables the runner
 * was given, and the words `xargs` and `parallel` read at run time. An option
 * of a runner that is not known, or a word that decides what runs but is
 * known only at run time, makes it unreadable.
 */
export function commandsRun(command: SimpleCommand, depth = 0): RunCommands {
  if (depth > 16) return { ok: false, reason: "runners are nested too deeply" };
  const [program, ...args] = command.words;
  if (program === null || program === undefined) {
    // A bare `NAME=value` runs nothing, but sets a variable for the rest of the line.
    return program === null
      ? { ok: false, reason: `the program of "${command.text}" is known only when it runs` }
      : { ok: true, commands: command.assigned === undefined ? [] : [command] };
  }
  const name = programName(program);
  const inner = innerCommands(name, { ...command, words: args, raw: command.raw.slice(1) });
  if (!inner.ok) return inner;
  const commands: RunCommand[] = [
    inner.commands.length > 0 && !JUDGED_TOO.has(name) ? { ...command, handsOn: true } : command,
  ];
  for (const each of inner.commands) {
    // What a runner runs has the runner's variables; a bash -c string's commands keep their own.
    const assigned = [...(command.assigned ?? []), ...(each.assigned ?? [])];
    const more = commandsRun(assigned.length === 0 ? each : { ...each, assigned }, depth + 1);
    if (!more.ok) return more;
    commands.push(...more.commands);
  }
  return { ok: true, commands };
}

/** A command made of `words`, with the flags of the command it came from. */
function handedOn(
  words: (string | null)[],
  raw: string[],
  from: SimpleCommand,
  extra: Partial<SimpleCommand> = {},
): SimpleCommand {
  const command: SimpleCommand = { words, raw, text: wordsText(words), ...extra };
  if (from.runtimeTail === true) command.runtimeTail = true;
  return command;
}

/** What `name args...` (given as `args`, its words after the program) runs besides itself. */
function innerCommands(name: string, args: SimpleCommand): RunCommands {
  const none: RunCommands = { ok: true, commands: [] };
  const tail = args.runtimeTail === true;
  const unreadTail: RunCommands = {
    ok: false,
    reason: `"${args.text}" is handed words read only at run time, which decide what it runs`,
  };
  if (SHELLS.has(name)) return shellCommand(name, args);
  if (name === "busybox") {
    // `busybox APPLET ARGS...` runs APPLET (`busybox sh -c ...`, `busybox env ...`).
    const [applet] = args.words;
    if (applet === undefined || (typeof applet === "string" && applet.startsWith("-"))) return none;
    return { ok: true, commands: [handedOn(args.words, args.raw, args)] };
  }
  if (name === "trap") return trapCommands(args);
  const changes = changesNames(name, args.words) ?? evaluatesNames(name, args);
  if (changes !== undefined) return { ok: false, reason: `"${name}" ${changes}` };
  if (name === "eval" || name === "script" || name === "su") {
    if (name === "eval") {
      if (tail) return unreadTail;
      if (args.words.some((arg) => arg === null)) {
        return { ok: false, reason: `"eval" of text known only at run time` };
      }
      return readCommandLine(args.words.join(" "));
    }
    return commandOption(name, args);
  }
  if (name === "find") return tail ? unreadTail : findCommands(args);
  const options = RUNNERS[name];
  if (options === undefined) return none;
  const { words, raw } = args;
  let index = 0;
  let leading = options.leading ?? 0;
  let replace: string | undefined;
  let exec = false;
  const assigned: string[] = [];
  while (index < words.length) {
    const arg = words[index];
    if (arg === null || arg === undefined) {
      return { ok: false, reason: `"${args.text}" hands on words known only at run time` };
    }
    if (arg === "--") {
      // The positional words before the command still come (`timeout -- 5 CMD`).
      index += 1 + leading;
      break;
    }
    if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      assigned.push(arg.slice(0, arg.indexOf("=")));
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
    if (flag === "-I" || flag === "-i" || flag === "--replace") {
      // xargs and parallel put each input where the replacement string stands.
      const given = arg.length > flag.length
        ? arg.slice(flag.length + (flag.startsWith("--") ? 1 : 0))
        : flag === "-I"
        ? words[index + 1]
        : "{}";
      if (typeof given !== "string") {
        return { ok: false, reason: `"${args.text}" has a replacement string known at run time` };
      }
      replace = given;
    }
    if (flag === "-x" || flag === "--exec") exec = true;
    if (options.attachedOnly?.includes(flag)) {
      index++;
    } else if (options.withValue.includes(flag)) {
      // `-n5` and `--max-args=5` carry the value; `-n 5` takes the next word.
      index += arg === flag ? 2 : 1;
    } else if (
      options.switches.includes(flag) &&
      (arg === flag || !flag.startsWith("--") || name === "xargs")
    ) {
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
  const extra: Partial<SimpleCommand> = assigned.length === 0 ? {} : { assigned };
  let rest = words.slice(index);
  let restRaw = raw.slice(index);
  if (name === "parallel") return parallelCommands(args, rest, replace);
  if (rest.length === 0) {
    // More words at run time may name the command; xargs alone runs echo.
    if (tail) return unreadTail;
    if (name !== "xargs") return none;
    rest = ["echo"];
    restRaw = ["echo"];
  }
  if (name === "watch" && !exec) {
    // watch hands its words to `sh -c` joined by spaces.
    if (rest.some((word) => word === null)) {
      return { ok: false, reason: `"${args.text}" watches text known only at run time` };
    }
    return readCommandLine(rest.join(" "));
  }
  if (name === "xargs") {
    // The input becomes words of the command: at the replacement string, or after the rest.
    if (replace === undefined) {
      return {
        ok: true,
        commands: [handedOn(rest, restRaw, args, { ...extra, runtimeTail: true })],
      };
    }
    const at = replace;
    rest = rest.map((word) => word !== null && at !== "" && word.includes(at) ? null : word);
  }
  return { ok: true, commands: [handedOn(rest, restRaw, args, extra)] };
}

/**
 * GNU parallel: the words before `:::` are a command line for a shell, into
 * which each input goes at its replacement strings (`{}`, `{.}`, `{1}`, ...),
 * or after it. With no command, the input lines are the commands.
 */
function parallelCommands(
  args: SimpleCommand,
  rest: (string | null)[],
  replace: string | undefined,
): RunCommands {
  const end = rest.findIndex((word) => word !== null && PARALLEL_ARGUMENTS.has(word));
  const template = end === -1 ? rest : rest.slice(0, end);
  if (template.length === 0) {
    return { ok: false, reason: `"${args.text}" runs commands read only at run time` };
  }
  if (template.some((word) => word === null)) {
    return { ok: false, reason: `"${args.text}" runs text known only at run time` };
  }
  const read = readCommandLine(template.join(" "));
  if (!read.ok) return read;
  const slot = replace === undefined ? /\{[^{}\s]*\}/ : null;
  const filled = (word: string | null): boolean =>
    word !== null && (slot === null ? word.includes(replace!) : slot.test(word));
  const hasSlot = read.commands.some((command) => command.words.some(filled));
  const commands = read.commands.map((command, index) => {
    const words = command.words.map((word) => filled(word) ? null : word);
    const last = index === read.commands.length - 1;
    return { ...command, words, ...(hasSlot || !last ? {} : { runtimeTail: true }) };
  });
  return { ok: true, commands };
}

/** `bash -c STRING`: STRING read as a command line; `bash script` runs the script. */
function shellCommand(name: string, args: SimpleCommand): RunCommands {
  const { words } = args;
  // Bash's grammar: options (a `c` among them makes the first word after them the command
  // line), `-o NAME` and `-O NAME` (also bundled, `-eo pipefail`), `--rcfile FILE`, and `--`
  // or `-` to end them; the first other word is the command line, or else a script to run.
  let command = false;
  let index = 0;
  for (; index < words.length; index++) {
    const arg = words[index];
    if (arg === null || arg === undefined) {
      return { ok: false, reason: `"${args.text}" has options known only at run time` };
    }
    if (arg === "--" || arg === "-") {
      index++;
      break;
    }
    if (SHELL_LONG_WITH_VALUE.has(arg)) {
      index++;
    } else if (/^[-+][a-zA-Z]+$/.test(arg)) {
      if (arg.startsWith("-") && arg.includes("c")) command = true;
      index += [...arg].filter((letter) => letter === "o" || letter === "O").length;
    } else if (!arg.startsWith("--")) {
      break;
    }
  }
  if (command) return scriptOf(name, words[index], args);
  return index < words.length ? { ok: true, commands: [] } : noCommandLine(args);
}

/** A shell, `script` or `su` given no command line; words read at run time may still give one. */
function noCommandLine(args: SimpleCommand): RunCommands {
  return args.runtimeTail === true
    ? { ok: false, reason: `"${args.text}" is handed words read only at run time` }
    : { ok: true, commands: [] };
}

/** The command line a `-c` option names, read. */
function scriptOf(
  name: string,
  script: string | null | undefined,
  args: SimpleCommand,
): RunCommands {
  if (typeof script !== "string") {
    return { ok: false, reason: `"${name} -c" of text known only at run time (${args.text})` };
  }
  return readCommandLine(script);
}

/**
 * `script -c CMD` and `su -c CMD` (also `--command=CMD`, bundled `-qc CMD`):
 * CMD read as a command line. Without one they start a shell, which reads
 * nothing from this line.
 */
function commandOption(name: string, args: SimpleCommand): RunCommands {
  const { words } = args;
  for (let index = 0; index < words.length; index++) {
    const arg = words[index];
    if (arg === null || arg === undefined) {
      return { ok: false, reason: `"${args.text}" has words known only at run time` };
    }
    if (/^--(session-)?command=/.test(arg)) {
      return scriptOf(name, arg.slice(arg.indexOf("=") + 1), args);
    }
    if (arg === "--command" || arg === "--session-command") {
      return scriptOf(name, words[index + 1], args);
    }
    const short = /^-[a-zA-Z]*c(.*)$/.exec(arg);
    if (short !== null && !arg.startsWith("--")) {
      return scriptOf(name, short[1] === "" ? words[index + 1] : short[1], args);
    }
  }
  return noCommandLine(args);
}

/**
 * What a bash builtin does that this reader cannot follow, or undefined: it
 * makes a later name run something else (`alias ls='rm -rf ~'` where
 * aliases expand, `hash -p /bin/sh ls`, `enable -f x.so ls` loads code), or
 * runs a string it is handed as commands (`mapfile -C`, `compgen -C`/`-F`/
 * `-W`, `complete`, `bind -x`).
 */
function changesNames(name: string, words: readonly (string | null)[]): string | undefined {
  const has = (pattern: RegExp): boolean =>
    words.some((word) => word === null || pattern.test(word));
  if (name === "alias" && has(/=/)) return "makes a name stand for other commands";
  if (name === "hash" && has(/^-[a-zA-Z]*p/)) return "makes a name run another program";
  if (name === "enable" && words.length > 0) return "loads or unbinds the builtins a name runs";
  if ((name === "mapfile" || name === "readarray") && has(/^-[a-zA-Z]*C/)) {
    return "runs the callback it is handed as commands";
  }
  if (name === "compgen" || name === "complete" || name === "bind") {
    return "can run the strings it is handed as commands";
  }
  return undefined;
}

/** A variable name as written: plain, so it has no subscript and is no expansion. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*(=|$)/;

/**
 * Why a bash builtin that takes variable names cannot be read, or undefined.
 * Bash evaluates a subscript in such a name as arithmetic, and arithmetic
 * runs the command substitutions a value holds (`x='a[$(cmd)]'; printf -v
 * 'b[x]' 1` runs `cmd`; see `arithmetic` in `_shell.ts`), so every name must
 * be written plain: `printf -v NAME` (or `-vNAME`), `test -v NAME` (also `[`), `unset NAME...`, `read
 * NAME...`, and `declare`/`typeset`/`local`/`readonly`/`export NAME=...`.
 * `let`, and `declare -i`/`-n` (an integer or a reference to a name), always
 * evaluate a value as arithmetic or as a name.
 */
function evaluatesNames(name: string, args: SimpleCommand): string | undefined {
  const { words, raw } = args;
  const why = "evaluates a name or value as arithmetic, which can run a command a value holds";
  const afterFlag = (flags: RegExp): boolean =>
    words.some((word, index) =>
      word !== null && flags.test(word) && !PLAIN_NAME.test(raw[index + 1] ?? "")
    );
  if (name === "let") return why;
  if (name === "printf" && afterFlag(/^-v$/)) return why;
  // `printf -vNAME`: the name attached to the flag.
  if (
    name === "printf" && raw.some((word) => /^-v./.test(word) && !PLAIN_NAME.test(word.slice(2)))
  ) {
    return why;
  }
  if (name === "unset" && raw.some((word) => !word.startsWith("-") && !PLAIN_NAME.test(word))) {
    return why;
  }
  if ((name === "test" || name === "[") && afterFlag(/^-[vR]$/)) return why;
  if (name === "read") {
    const names = raw.filter((word, index) =>
      // The options that take a value (-e and -r take none; -a takes a name).
      !word.startsWith("-") && !/^-[^-]*[dinNptu]$/.test(raw[index - 1] ?? "")
    );
    if (names.some((word) => !PLAIN_NAME.test(word))) return why;
  }
  if (["declare", "typeset", "local", "readonly", "export"].includes(name)) {
    if (raw.some((word) => /^[-+][a-zA-Z]*[in]/.test(word) && name !== "export")) return why;
    if (
      raw.some((word) => !word.startsWith("-") && !word.startsWith("+") && !PLAIN_NAME.test(word))
    ) {
      return why;
    }
  }
  return undefined;
}

/** `trap ACTION SIGNAL...`: ACTION is a command line, run when a signal or the exit comes. */
function trapCommands(args: SimpleCommand): RunCommands {
  const words = args.words[0] === "--" ? args.words.slice(1) : args.words;
  const [action] = words;
  if (action === undefined || action === "-l" || action === "-p" || action === "-") {
    return { ok: true, commands: [] };
  }
  if (action === null || args.runtimeTail === true) {
    return { ok: false, reason: `"trap" of text known only at run time (${args.text})` };
  }
  return readCommandLine(action);
}

/** `find ... -exec CMD ARGS... ;` (or `+`): each CMD ARGS is a command; `{}` is a found path. */
function findCommands(args: SimpleCommand): RunCommands {
  const { words, raw } = args;
  const commands: SimpleCommand[] = [];
  for (let index = 0; index < words.length; index++) {
    const arg = words[index];
    if (arg === null && words.some((word, at) => at > index && (word === ";" || word === "+"))) {
      return { ok: false, reason: `"${args.text}" may run a command named only at run time` };
    }
    if (arg === null || arg === undefined || !FIND_ACTIONS.has(arg)) continue;
    const end = words.findIndex((word, at) => at > index && (word === ";" || word === "+"));
    if (end === -1) return { ok: false, reason: `"${args.text}" has an -exec without its end` };
    const run = words.slice(index + 1, end).map((word) => word?.includes("{}") ? null : word);
    if (run.length > 0) commands.push(handedOn(run, raw.slice(index + 1, end), args));
    index = end;
  }
  return { ok: true, commands };
}
