/**
 * The vocabulary of command rules: the decision a rule makes, a rule, and
 * the verdict on a command line; and a rule in words, for messages.
 *
 * @module
 */
/** What a rule says about a command: run it, ask a person first, or never run it. */
export type CommandDecision = "allow" | "ask" | "deny";

/**
 * One command rule. It matches a simple command by exactly one of: the
 * leading words (`prefix: ["git", "push"]`; the first word also matches by
 * its program name, so `/usr/bin/git push` matches (an allow rule so only in
 * a folder of installed programs, never `./git`), and the words also match
 * after the global options of programs whose grammar is known, so
 * `git -C . push` matches), the program name (`program: "rm"`), or a regular
 * expression over the command's words joined by single spaces (`pattern`; a
 * word known only at run time, such as `$X` or a glob, is matched as
 * written, so a `deny` that must hold whatever expands should be a `prefix`
 * or `program` rule). An `allow` of a program that runs code it is handed
 * (`python3`, `awk`, `git` as a whole) allows anything.
 *
 * @example
 * ```ts
 * import type { CommandRule } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const rules: CommandRule[] = [
 *   { decision: "allow", prefix: ["npm", "test"] },
 *   { decision: "ask", prefix: ["git", "push"], reason: "publishes commits" },
 *   { decision: "deny", pattern: /^rm -rf \/( |$)/ },
 * ];
 * assert.equal(rules.length, 3);
 * ```
 */
export interface CommandRule {
  /** What to do with a matching command. */
  decision: CommandDecision;
  /** The leading words a matching command starts with. */
  prefix?: readonly string[];
  /** The program name (the last path component of the first word). */
  program?: string;
  /** Tested against the command's words joined by single spaces. */
  pattern?: RegExp;
  /** Why the rule exists, shown to the model and the person asked. */
  reason?: string;
}

/**
 * How a command line fared against the rules: `deny` when any command in it
 * is denied, else `ask` when any asks (or the line cannot be fully read),
 * else `allow`.
 *
 * @example
 * ```ts
 * import { checkCommandRules, type CommandRuleVerdict } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const verdict: CommandRuleVerdict = checkCommandRules("ls", [], "allow");
 * assert.equal(verdict.decision, "allow");
 * ```
 */
export interface CommandRuleVerdict {
  /** The decision for the whole command line. */
  decision: CommandDecision;
  /** The simple command that decided it, as written; absent for an unreadable line. */
  command?: string;
  /** The rule that decided it; absent when no rule matched or the line was unreadable. */
  rule?: CommandRule;
  /** Why, in words: the rule's reason, "no rule matched", or what could not be read. */
  reason: string;
}

/** A rule in words, for messages: `"git push"`, `program "rm"`, `pattern /.../`. */
export function describeRule(rule: CommandRule): string {
  if (rule.prefix !== undefined) return `the ${rule.decision} rule for "${rule.prefix.join(" ")}"`;
  if (rule.program !== undefined) return `the ${rule.decision} rule for program "${rule.program}"`;
  return `the ${rule.decision} rule matching ${String(rule.pattern)}`;
}
