import { variableRunsCode } from "./_code_variables.ts";
import { npmConfigNotAllowable, optionReadings, type Reading } from "./_global_options.ts";
import {
  type CommandDecision,
  type CommandRule,
  type CommandRuleVerdict,
  describeRule,
} from "./_rule.ts";
import { readCommandLine } from "./_shell.ts";
import { commandsRun, programName, type RunCommand } from "./_wrappers.ts";

type Match = "yes" | "no" | "maybe";

/**
 * Checks every simple command that `commandLine` would run (in pipelines,
 * lists, subshells, substitutions, `bash -c` strings, and behind runners
 * such as `sudo`, `env`, `timeout` and `xargs`) against `rules`, in order:
 * the first rule that matches a command decides for it, and a command no
 * rule matches gets `unmatched`. A runner is judged by what it runs, and by
 * its own rules only where they deny or ask (`sudo`, `doas` and `su` also
 * by their own allow). A `deny` or `ask` prefix or program rule that might
 * match a word known only at run time (`$X`, a glob, what `xargs` reads)
 * makes that command at least `ask`; an `allow` rule never matches such a
 * word, nor a word after an unknown global option or one that can make the
 * program run other code (`git -c core.pager=...`), and no `allow` rule
 * matches a command that sets a variable such as `LD_PRELOAD` or `PATH`.
 * A line that cannot be fully read is `ask`.
 *
 * @example
 * ```ts
 * import { checkCommandRules, type CommandRule } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const rules: CommandRule[] = [
 *   { decision: "allow", program: "echo" },
 *   { decision: "ask", prefix: ["git", "push"] },
 *   { decision: "deny", program: "rm" },
 * ];
 * assert.equal(checkCommandRules("echo hi | tee out", rules, "ask").decision, "ask");
 * assert.equal(checkCommandRules("echo hi", rules, "ask").decision, "allow");
 * const push = checkCommandRules("echo go && git push origin main", rules, "ask");
 * assert.deepEqual([push.decision, push.command], ["ask", "git push origin main"]);
 * assert.equal(checkCommandRules("echo $(sudo rm -rf /tmp/x)", rules, "allow").decision, "deny");
 * assert.equal(checkCommandRules("git -C .. push", rules, "allow").decision, "ask");
 * assert.equal(checkCommandRules("echo push | xargs git", rules, "allow").decision, "ask");
 * ```
 */
export function checkCommandRules(
  commandLine: string,
  rules: readonly CommandRule[],
  unmatched: CommandDecision,
): CommandRuleVerdict {
  const read = readCommandLine(commandLine);
  const commands: RunCommand[] = [];
  if (read.ok) {
    for (const command of read.commands) {
      const run = commandsRun(command);
      if (!run.ok) {
        return { decision: "ask", reason: `the command line cannot be fully read: ${run.reason}` };
      }
      commands.push(...run.commands);
    }
  } else {
    return { decision: "ask", reason: `the command line cannot be fully read: ${read.reason}` };
  }
  const lineWide = lineWideVariable(commands);
  const verdicts = commands.flatMap((command) => {
    if (command.words.length === 0) return [];
    const verdict = verdictFor(command, rules, unmatched, lineWide);
    // A runner is judged by what it runs, and by its own rules only where they deny or ask.
    const onlyHandsOn = command.handsOn === true &&
      (verdict.decision === "allow" || verdict.rule === undefined);
    return onlyHandsOn ? [] : [verdict];
  });
  for (const decision of ["deny", "ask"] as const) {
    const decided = verdicts.find((verdict) => verdict.decision === decision);
    if (decided !== undefined) return decided;
  }
  return verdicts[0] ?? { decision: "allow", reason: "the command line runs no command" };
}

/** Programs whose `NAME=value` words set variables for the rest of the line. */
const DECLARES = new Set(["export", "declare", "typeset", "readonly", "local"]);

/**
 * Why no command of the line can satisfy an allow rule because of a variable
 * set for the rest of the line (`PATH=/tmp/x; ls`, `export LD_PRELOAD=...`).
 */
function lineWideVariable(commands: readonly RunCommand[]): string | undefined {
  for (const { words, assigned } of commands) {
    const [program, ...args] = words;
    const names = program === undefined
      ? assigned ?? []
      : typeof program === "string" && DECLARES.has(programName(program))
      ? args.flatMap((arg) => /^[A-Za-z_][A-Za-z0-9_]*/.exec(arg ?? "")?.[0] ?? [])
      : [];
    const name = names.find(variableRunsCode);
    if (name !== undefined) return `the line sets ${name}, which can make a program run other code`;
  }
  return undefined;
}

function verdictFor(
  command: RunCommand,
  rules: readonly CommandRule[],
  unmatched: CommandDecision,
  lineWide: string | undefined,
): CommandRuleVerdict {
  const variable = command.assigned?.find(variableRunsCode);
  const setsCode = lineWide ??
    (variable === undefined
      ? undefined
      : `it sets ${variable}, which can make it run other code`) ??
    npmConfigNotAllowable(command.words, command.raw);
  const literal: Reading = { words: command.words, raw: command.raw };
  const readings = [literal, ...optionReadings(command.words, command.raw)].map((reading) =>
    setsCode === undefined || reading.notAllowable !== undefined
      ? reading
      : { ...reading, notAllowable: setsCode }
  );
  const tail = command.runtimeTail === true;
  let maybe: CommandRuleVerdict | undefined;
  let blocked: string | undefined;
  for (const rule of rules) {
    const { match, notAllowable } = matches(rule, readings, tail);
    if (match === "yes") {
      // A rule that may have matched earlier still asks, unless this one denies.
      if (maybe !== undefined && rule.decision !== "deny") return maybe;
      return {
        decision: rule.decision,
        command: command.text,
        rule,
        reason: rule.reason ?? describeRule(rule),
      };
    }
    if (match === "maybe" && rule.decision !== "allow") {
      maybe ??= {
        decision: "ask",
        command: command.text,
        rule,
        reason: `it may match ${describeRule(rule)} once its words are expanded`,
      };
    }
    if (notAllowable !== undefined) {
      blocked ??= `${describeRule(rule)} does not apply: ${notAllowable}`;
    }
  }
  blocked ??= pathNotAllowable(command.words[0]);
  return maybe ?? {
    decision: unmatched,
    command: command.text,
    reason: blocked === undefined ? "no rule matched" : `no rule matched (${blocked})`,
  };
}

/**
 * How `rule` matches a command read in each of `readings` (as written, and
 * with its global options set aside). A deny or ask rule matches in any
 * reading; an allow rule only in a reading that can satisfy it, and
 * otherwise says why it does not apply.
 */
function matches(
  rule: CommandRule,
  readings: readonly Reading[],
  tail: boolean,
): { match: Match; notAllowable?: string } {
  let best: Match = "no";
  let notAllowable: string | undefined;
  for (const reading of readings) {
    const match = matchReading(rule, reading, tail);
    if (rule.decision === "allow" && reading.notAllowable !== undefined) {
      if (match !== "no") notAllowable ??= reading.notAllowable;
      continue;
    }
    if (match === "yes") return { match };
    if (match === "maybe") best = "maybe";
  }
  return notAllowable === undefined ? { match: best } : { match: best, notAllowable };
}

/**
 * How `rule` matches one reading. With `tail`, more words known only at run
 * time follow the reading's words, so a prefix word past them may match.
 */
function matchReading(rule: CommandRule, reading: Reading, runtimeTail: boolean): Match {
  const { words, raw } = reading;
  const tail = runtimeTail || reading.openEnd === true;
  if (rule.program !== undefined) {
    const first = words[0];
    if (first === undefined) return tail ? "maybe" : "no";
    return first === null
      ? "maybe"
      : sameProgram(first, rule.program, rule.decision)
      ? "yes"
      : "no";
  }
  if (rule.prefix !== undefined) {
    let result: Match = "yes";
    for (const [index, expected] of rule.prefix.entries()) {
      const word = words[index];
      if (word === undefined) return tail ? "maybe" : "no";
      if (word === null) {
        result = "maybe";
        continue;
      }
      const same = word === expected ||
        (index === 0 && sameProgram(word, expected, rule.decision));
      if (same) continue;
      if (index === 1 && rule.decision !== "allow" && npmAbbreviates(words[0], word, expected)) {
        result = "maybe";
        continue;
      }
      return "no";
    }
    return result;
  }
  if (rule.pattern !== undefined) {
    // A word known only at run time is matched as written.
    rule.pattern.lastIndex = 0;
    return rule.pattern.test(words.map((word, index) => word ?? raw[index]).join(" "))
      ? "yes"
      : "no";
  }
  return "no";
}

/**
 * Folders of installed programs, which a command cannot have filled (a
 * sandbox keeps them read-only): a path there is the program its name says.
 */
const PROGRAM_FOLDER = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/;

/**
 * Whether the program word `word` (a name, or a path) is the program `name`
 * of a rule with `decision`. A path meets a deny or ask rule by its last
 * component, but an allow rule only in a folder of installed programs: a
 * path elsewhere may be a copy a command made (`cp /bin/sh ./ls; ./ls -c
 * 'rm -rf ~'`), so `./ls` and `/tmp/ls` are not `ls` to an allow rule.
 */
function sameProgram(word: string, name: string, decision: CommandDecision): boolean {
  if (word === name) return true;
  if (name.includes("/") || programName(word) !== name) return false;
  return decision !== "allow" || PROGRAM_FOLDER.test(word);
}

/** Why a program given by `word` satisfies no allow rule by its name, if it does not. */
function pathNotAllowable(word: string | null | undefined): string | undefined {
  if (typeof word !== "string" || !word.includes("/") || PROGRAM_FOLDER.test(word)) {
    return undefined;
  }
  return `"${word}" is a path outside the folders of installed programs, so it may be a copy ` +
    "of another program";
}

/**
 * Whether `word` may be npm's abbreviation of its subcommand `expected`: npm
 * runs any unambiguous start of a command's name (`npm pub` and `npm publis`
 * publish), so a deny or ask rule on `["npm", "publish"]` asks for them.
 */
function npmAbbreviates(
  program: string | null | undefined,
  word: string,
  expected: string,
): boolean {
  return typeof program === "string" && programName(program) === "npm" && word.length > 0 &&
    expected.startsWith(word);
}
