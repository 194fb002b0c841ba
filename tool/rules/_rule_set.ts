import { BashConfigError } from "../../seam/mod.ts";
import type { CommandRule } from "./_rule.ts";

/**
 * Throws `BashConfigError` unless `rules` is a list of rules, each with a
 * known decision and exactly one of a non-empty `prefix`, a `program` or a
 * `pattern`, and `unmatched` is a decision.
 *
 * @example
 * ```ts
 * import { checkRuleSet } from "@shellseam/bash/tool";
 * import { BashConfigError } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * checkRuleSet([{ decision: "deny", program: "rm" }], "allow");
 * assert.throws(() => checkRuleSet([{ decision: "deny" }], "allow"), BashConfigError);
 * ```
 */
export function checkRuleSet(rules: unknown, unmatched: unknown): void {
  if (!Array.isArray(rules)) {
    throw new BashConfigError(
      `"rules" must be a list of command rules; got ${JSON.stringify(rules)}; pass an array such ` +
        `as [{ decision: "ask", prefix: ["git", "push"] }]`,
    );
  }
  const decisions = ["allow", "ask", "deny"];
  if (!decisions.includes(unmatched as string)) {
    throw new BashConfigError(
      `"unmatchedCommands" must be "allow", "ask" or "deny"; got ${JSON.stringify(unmatched)}`,
    );
  }
  rules.forEach((rule: Partial<CommandRule> | null, index) => {
    const where = `Command rule ${index}`;
    if (typeof rule !== "object" || rule === null) {
      throw new BashConfigError(`${where} must be an object; got ${JSON.stringify(rule)}`);
    }
    if (!decisions.includes(rule.decision as string)) {
      throw new BashConfigError(
        `${where} has decision ${JSON.stringify(rule.decision)}; use "allow", "ask" or "deny"`,
      );
    }
    const kinds = [rule.prefix, rule.program, rule.pattern].filter((kind) => kind !== undefined);
    if (kinds.length !== 1) {
      throw new BashConfigError(
        `${where} must match by exactly one of prefix, program or pattern; got ${kinds.length}`,
      );
    }
    if (
      rule.prefix !== undefined &&
      (!Array.isArray(rule.prefix) || rule.prefix.length === 0 ||
        !rule.prefix.every((word) => typeof word === "string" && word !== ""))
    ) {
      throw new BashConfigError(
        `${where} needs a prefix of non-empty words, such as ["git", "push"]`,
      );
    }
    if (rule.program !== undefined && (typeof rule.program !== "string" || rule.program === "")) {
      throw new BashConfigError(`${where} needs a program name, such as "rm"`);
    }
    if (rule.pattern !== undefined && !(rule.pattern instanceof RegExp)) {
      throw new BashConfigError(`${where} needs a RegExp pattern, such as /^rm -rf \\//`);
    }
  });
}
