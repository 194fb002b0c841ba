import { readFileSync, realpathSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
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
 * saying what is wrong with it, and for a file inside `workspace`: a confined
 * command could rewrite it, and the next server would obey its rules.
 */
export function readRulesFile(path: string, workspace: string): RulesFile {
  if (isInside(path, workspace)) {
    throw new BashConfigError(
      `The rules file "${path}" lies in the workspace, where a confined command could rewrite ` +
        "it; keep it outside the workspace",
    );
  }
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

/** True when `path` (resolved through symlinks where it exists) lies in `folder`. */
function isInside(path: string, folder: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const inner = relative(real(folder), real(path));
  // `..rules.json` is a name inside the folder; only `..` itself or `../...` leave it.
  return !(inner === ".." || inner.startsWith(`..${sep}`) || isAbsolute(inner));
}
