/**
 * The command rules of the `bash` tool: what decides whether a command line
 * runs (`allow`), asks a person first (`ask`) or never runs (`deny`). A
 * conservative reader of bash command lines (`_shell.ts`) finds every simple
 * command a line would run; the runners (`_runners.ts`, `_wrappers.ts`) and
 * the global options of known programs (`_global_options.ts`) are set aside
 * so that a rule meets the command behind them; `_check.ts` matches the
 * rules. An interactive editor, which would only wait without a terminal, is
 * refused before any rule.
 *
 * @example
 * ```ts
 * import { checkCommandRules, interactiveEditor } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const verdict = checkCommandRules("sudo rm -rf /tmp/x", [{ decision: "deny", program: "rm" }], "allow");
 * assert.equal(verdict.decision, "deny");
 * assert.match(interactiveEditor("git status && vim notes.txt") ?? "", /interactive editor/);
 * assert.equal(interactiveEditor("ls"), undefined);
 * ```
 *
 * @module
 */
export { checkCommandRules } from "./_check.ts";
export { interactiveEditor } from "./_editors.ts";
export type { CommandDecision, CommandRule, CommandRuleVerdict } from "./_rule.ts";
export { checkRuleSet } from "./_rule_set.ts";
