/**
 * The global options of programs whose grammar we know (git, npm, pnpm,
 * yarn, docker, kubectl, cargo, python), set aside so that a prefix rule
 * such as `["git", "push"]` also matches `git -C . push` and
 * `git --no-pager push`. Without this, every global option walked around
 * every rule that names a subcommand.
 *
 * A command's readings are the ways its words may read once its global
 * options are set aside: one for options we know, several where an option
 * is unknown (it may take the next word as its value, or not) or known only
 * at run time. A reading that set aside an unknown option, an option known
 * only at run time, or an option that can make the program run code it is
 * handed (git's `-c core.pager=...`, kubectl's `--kubeconfig`) says why,
 * and never satisfies a word of an allow rule; deny and ask rules match in
 * any reading.
 *
 * @module
 */
import { programName } from "./_wrappers.ts";

/** One way to read a command with its global options set aside. */
export interface Reading {
  /** The program word, then the words from the subcommand on. */
  words: (string | null)[];
  /** The same words as written. */
  raw: string[];
  /** Why this reading cannot satisfy a word of an allow rule; absent when it can. */
  notAllowable?: string;
  /** Any words may follow (the options were too many to read). */
  openEnd?: boolean;
}

/** The most option words read before a command is judged by its program alone. */
const MAX_OPTION_WORDS = 64;

/** The global options of one program. */
interface Grammar {
  /** Options that take a value: the next word, or after `=` for a long one. */
  withValue: readonly string[];
  /** Options that take no value. */
  switches: readonly string[];
  /** Known options that can make the program run code (given, or named by a file). */
  unsafe?: readonly string[];
  /** Short options may carry their value attached (`-nfoo`, `-n=foo`), as pflag reads them. */
  attached?: boolean;
  /** Short switches may be bundled (`-uB`). */
  bundled?: boolean;
  /** Why a value makes the option unsafe (git's `-c core.pager=...`), or undefined. */
  unsafeValue?: (flag: string, value: string | null) => string | undefined;
  /** Options that are themselves the start of what runs (python's `-m` and `-c`). */
  starts?: readonly string[];
  /** A first word `+toolchain` selects a toolchain (cargo). */
  toolchain?: boolean;
  /** A subcommand that selects where the next one runs (`yarn workspace NAME test`). */
  selector?: string;
  /** Whether an option renames subcommands (git's `-c alias.st=push`). */
  renames?: (flag: string, value: string | null) => boolean;
}

/**
 * git's `-c` keys that only set a value git shows or records, and cannot
 * make it run anything; every other key (`alias.*`, `core.pager`,
 * `core.sshCommand`, `core.fsmonitor`, `core.hooksPath`, `diff.external`,
 * ...) may.
 */
const GIT_PLAIN_KEYS =
  /^(user\.(name|email)|color\.[a-z.]+|core\.(quotepath|autocrlf|safecrlf|filemode)|advice\.[a-z]+|init\.defaultbranch|(commit|tag)\.gpgsign|pull\.(rebase|ff)|gc\.auto|log\.[a-z]+)$/;

function gitConfigValue(flag: string, value: string | null): string | undefined {
  if (flag !== "-c" && flag !== "--config-env") return undefined;
  const key = value?.split("=", 1)[0]?.toLowerCase();
  if (key !== undefined && GIT_PLAIN_KEYS.test(key)) return undefined;
  return `"${flag} ${value ?? "$?"}" can make git run another program`;
}

const GIT: Grammar = {
  withValue: [
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
    "--list-cmds",
    "--attr-source",
  ],
  switches: [
    "-p",
    "--paginate",
    "-P",
    "--no-pager",
    "--bare",
    "--exec-path",
    "--html-path",
    "--man-path",
    "--info-path",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-replace-objects",
    "--no-optional-locks",
    "--no-advice",
    "--no-lazy-fetch",
    "--version",
    "--help",
  ],
  unsafeValue: gitConfigValue,
  renames: (flag, value) =>
    (flag === "-c" || flag === "--config-env") &&
    (value === null || value.toLowerCase().startsWith("alias.")),
};

const NPM: Grammar = {
  withValue: ["--prefix", "-C", "-w", "--workspace", "--loglevel", "--color"],
  switches: [
    "--workspaces",
    "-ws",
    "--include-workspace-root",
    "-g",
    "--global",
    "-s",
    "--silent",
    "-q",
    "--quiet",
    "-d",
    "--json",
    "--no-color",
    "-y",
    "--yes",
    "--no-fund",
    "--no-audit",
    "--offline",
  ],
};

/** npm options that only choose what runs or how it reports, beyond its global ones. */
const NPM_RUN_OPTIONS = ["--if-present", "--ignore-scripts", "--foreground-scripts"];

/**
 * Why an npm command cannot satisfy an allow rule because of an option
 * after its subcommand, if it cannot. npm reads every option before `--`,
 * wherever it stands, as its configuration, and some run another program:
 * `npm test --script-shell=/bin/sh` runs the script with that program, and
 * `--node-options=--require=./x.js` (NODE_OPTIONS), `--userconfig` and
 * `--globalconfig` (a file of such settings) make node or npm load code.
 * Only the options known here, which do neither, keep an allow.
 */
export function npmConfigNotAllowable(
  words: readonly (string | null)[],
  raw: readonly string[],
): string | undefined {
  const [program] = words;
  if (typeof program !== "string" || programName(program) !== "npm") return undefined;
  const known = [...NPM.withValue, ...NPM.switches, ...NPM_RUN_OPTIONS];
  for (const [index, word] of words.entries()) {
    if (index === 0) continue;
    if (word === "--") return undefined;
    if (word === null || (word.startsWith("-") && !known.includes(word.split("=", 1)[0]!))) {
      return `npm reads "${raw[index] ?? word}" as its configuration, which can make it run ` +
        "another program";
    }
  }
  return undefined;
}

const PNPM: Grammar = {
  withValue: ["-C", "--dir", "--filter", "-F", "--filter-prod", "--reporter", "--loglevel"],
  switches: [
    "-w",
    "--workspace-root",
    "-r",
    "--recursive",
    "-s",
    "--silent",
    "--color",
    "--no-color",
    "--stream",
    "--parallel",
    "--aggregate-output",
  ],
};

const YARN: Grammar = {
  withValue: ["--cwd"],
  switches: ["-s", "--silent", "--verbose", "--offline", "--json", "--no-progress"],
  selector: "workspace",
};

const DOCKER: Grammar = {
  withValue: [
    "-c",
    "--context",
    "-H",
    "--host",
    "--config",
    "-l",
    "--log-level",
    "--tlscacert",
    "--tlscert",
    "--tlskey",
  ],
  switches: ["-D", "--debug", "--tls", "--tlsverify"],
  // A config folder names credential helpers, which docker runs.
  unsafe: ["--config"],
  attached: true,
};

const KUBECTL: Grammar = {
  withValue: [
    "--context",
    "--cluster",
    "--user",
    "-n",
    "--namespace",
    "-s",
    "--server",
    "--kubeconfig",
    "--as",
    "--as-group",
    "--as-uid",
    "--request-timeout",
    "--cache-dir",
    "--token",
    "--certificate-authority",
    "--client-certificate",
    "--client-key",
    "--tls-server-name",
    "-v",
    "--v",
  ],
  switches: ["--insecure-skip-tls-verify", "--match-server-version", "--warnings-as-errors"],
  // A kubeconfig can name an exec credential plugin, which kubectl runs.
  unsafe: ["--kubeconfig"],
  attached: true,
};

const CARGO: Grammar = {
  withValue: ["--color", "-Z", "-C", "--config"],
  switches: ["-v", "-vv", "--verbose", "-q", "--quiet", "--frozen", "--locked", "--offline"],
  // `--config build.rustc-wrapper=...` runs a program.
  unsafe: ["--config"],
  toolchain: true,
};

const PYTHON: Grammar = {
  withValue: ["-W", "-X"],
  switches: ["-b", "-B", "-d", "-E", "-I", "-O", "-q", "-s", "-S", "-u", "-v", "-P", "-R"],
  // A warnings filter imports the category's module.
  unsafe: ["-W"],
  bundled: true,
  attached: true,
  starts: ["-m", "-c"],
};

const GRAMMARS: Record<string, Grammar> = {
  git: GIT,
  npm: NPM,
  pnpm: PNPM,
  yarn: YARN,
  docker: DOCKER,
  kubectl: KUBECTL,
  cargo: CARGO,
};

function grammarOf(program: string): Grammar | undefined {
  const name = programName(program);
  return /^python[0-9.]*$/.test(name) ? PYTHON : GRAMMARS[name];
}

/** A point of the walk over the options: where the next word is, and what was set aside. */
interface Step {
  at: number;
  notAllowable?: string;
  /** An alias was defined: the subcommand may stand for any other. */
  renamed?: boolean;
}

/**
 * The readings of `words` with the program's global options set aside, or
 * none for a program whose grammar we do not know (or with no options to
 * set aside). Each word that may be the subcommand starts one reading.
 */
export function optionReadings(words: (string | null)[], raw: string[]): Reading[] {
  const [program] = words;
  if (typeof program !== "string") return [];
  const grammar = grammarOf(program);
  if (grammar === undefined) return [];
  const readings = new Map<string, Reading>();
  const seen = new Set<string>();
  const start = grammar.toolchain === true && words[1]?.startsWith("+") === true ? 2 : 1;
  const pending: Step[] = [{ at: start }];
  const read = (step: Step, rest: (string | null)[], restRaw: string[]): void => {
    // An alias may stand for any subcommand, but never hides a git command of the same name.
    const restings = step.renamed === true && rest.length > 0
      ? [rest, [null, ...rest.slice(1)]]
      : [rest];
    for (const words of restings) {
      const reading: Reading = { words: [program, ...words], raw: [raw[0] ?? program, ...restRaw] };
      if (step.notAllowable !== undefined) reading.notAllowable = step.notAllowable;
      const key = JSON.stringify([reading.words, reading.notAllowable ?? null]);
      if (!readings.has(key)) readings.set(key, reading);
    }
  };
  for (let step = pending.pop(); step !== undefined; step = pending.pop()) {
    const key = `${step.at}:${step.notAllowable ?? ""}:${step.renamed === true}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const here = step;
    const next = (by: number, why?: string, renamed = false): void => {
      const notAllowable = here.notAllowable ?? why;
      pending.push({
        at: here.at + by,
        ...(notAllowable === undefined ? {} : { notAllowable }),
        ...(here.renamed === true || renamed ? { renamed: true } : {}),
      });
    };
    if (step.at > MAX_OPTION_WORDS) {
      // A real command has a handful; hundreds would make the readings grow as their square.
      const why = `${programName(program)} has more than ${MAX_OPTION_WORDS} option words`;
      readings.set("open", {
        words: [program],
        raw: [raw[0] ?? program],
        notAllowable: why,
        openEnd: true,
      });
      break;
    }
    const word = words[step.at];
    const rest = words.slice(step.at);
    const restRaw = raw.slice(step.at);
    if (word === undefined) {
      read(step, [], []);
      continue;
    }
    if (word === null) {
      // A word known only at run time: the subcommand, or an option with or without a value.
      const why = `"${raw[step.at]}" is known only at run time`;
      read({ ...step, notAllowable: step.notAllowable ?? why }, rest, restRaw);
      next(1, why);
      next(2, why);
      continue;
    }
    if (word === "--") {
      read(step, rest.slice(1), restRaw.slice(1));
      continue;
    }
    if (!word.startsWith("-") || word === "-") {
      read(step, rest, restRaw);
      if (grammar.selector === word && typeof words[step.at + 1] === "string") next(2);
      continue;
    }
    const long = word.startsWith("--");
    const equals = word.indexOf("=");
    let flag = long && equals !== -1 ? word.slice(0, equals) : word;
    let value: string | undefined = long && equals !== -1 ? word.slice(equals + 1) : undefined;
    if (!long && grammar.attached === true && word.length > 2) {
      const short = word.slice(0, 2);
      if (grammar.withValue.includes(short) || grammar.starts?.includes(short)) {
        flag = short;
        value = word.slice(word[2] === "=" ? 3 : 2);
      }
    }
    // Bundled switches may end with an option that starts what runs: `python3 -um pip`.
    const bundledStart = !long && grammar.bundled === true
      ? /^-([A-Za-z]+)([A-Za-z])$/.exec(word)
      : null;
    if (
      bundledStart !== null && grammar.starts?.includes(`-${bundledStart[2]}`) &&
      [...bundledStart[1]!].every((letter) => grammar.switches.includes(`-${letter}`))
    ) {
      flag = `-${bundledStart[2]}`;
      value = undefined;
    }
    if (grammar.starts?.includes(flag)) {
      // `python -mpip` reads as `python -m pip`.
      const split = value === undefined ? [] : [value];
      read(step, [flag, ...split, ...rest.slice(1)], [flag, ...split, ...restRaw.slice(1)]);
      continue;
    }
    if (grammar.withValue.includes(flag)) {
      const given = value ?? words[step.at + 1] ?? null;
      const why = grammar.unsafe?.includes(flag)
        ? `"${flag}" can make ${programName(program)} run another program`
        : grammar.unsafeValue?.(flag, given);
      next(value === undefined ? 2 : 1, why, grammar.renames?.(flag, given) === true);
      continue;
    }
    const bundle = !long && grammar.bundled === true && /^-[A-Za-z]{2,}$/.test(word) &&
      [...word.slice(1)].every((letter) => grammar.switches.includes(`-${letter}`));
    if ((grammar.switches.includes(flag) && value === undefined) || bundle) {
      next(1);
      continue;
    }
    // An option we do not know: it may take the next word as its value, or not.
    const why = `"${word}" is an option of ${programName(program)} that is not known here`;
    next(1, why);
    next(2, why);
  }
  return [...readings.values()];
}
