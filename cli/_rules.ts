import { readFileSync } from "node:fs";
import { BashConfigError } from "@shellseam/bash";
import { checkRuleSet, type CommandDecision, type CommandRule } from "@shellseam/bash/tool";

/** A rules file: `{ "rules": [...], "unmatched": "ask" }`, patterns as strings. */
export interface RulesFile {
  /** The rules, in order. */
  rules: CommandRule[];
  /** The decision for commands no rule matches. */
  unmatchedCommands: CommandDecision;
}

/**
 * Reads a JSON rules file such as
 * `{ "rules": [{ "decision": "ask", "prefix": ["git", "push"] },
 * { "decision": "deny", "pattern": "^rm -rf /" }], "unmatched": "ask" }`
 * (a `pattern` is a regular expression's source). Throws `BashConfigError`
 * saying what is wrong with it.
 */
export function readRulesFile(path: string): RulesFile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new BashConfigError(
      `The rules file "${path}" cannot be read as JSON (${(error as Error).message}); pass a ` +
        `file such as { "rules": [{ "decision": "ask", "prefix": ["git", "push"] }] }`,
    );
  }
  if (typeof data !== "object" || data === null || !Array.isArray((data as RulesFile).rules)) {
    throw new BashConfigError(
      `The rules file "${path}" must hold an object with a "rules" list`,
    );
  }
  const { rules, unmatched = "ask" } = data as { rules: unknown[]; unmatched?: unknown };
  const parsed = rules.map((rule) => {
    if (typeof rule !== "object" || rule === null || !("pattern" in rule)) return rule;
    const { pattern } = rule as { pattern: unknown };
    if (typeof pattern !== "string") return rule;
    try {
      return { ...rule, pattern: new RegExp(pattern) };
    } catch (error) {
      throw new BashConfigError(
        `The rules file "${path}" has a pattern that is not a regular expression: ` +
          `${JSON.stringify(pattern)} (${(error as Error).message})`,
      );
    }
  });
  checkRuleSet(parsed, unmatched);
  return { rules: parsed as CommandRule[], unmatchedCommands: unmatched as CommandDecision };
}
