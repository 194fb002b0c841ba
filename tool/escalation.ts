import type { SandboxMode } from "../seam/mod.ts";
import type { CommandRuleVerdict } from "./rules/mod.ts";

/**
 * What the harness is asked to approve: one command, and why it needs a
 * person: the wider sandbox mode the model asked for (with its reason), a
 * command rule that says `ask`, or both at once (one question for both).
 *
 * @example
 * ```ts
 * import type { EscalationRequest } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const request: EscalationRequest = {
 *   command: "npm install",
 *   mode: "workspace-write",
 *   justification: "Install the dependencies into node_modules",
 * };
 * assert.equal(request.mode, "workspace-write");
 * ```
 */
export interface EscalationRequest {
  /** The command exactly as it will run. */
  command: string;
  /** The wider mode the model asked for; absent when only a command rule asks. */
  mode?: SandboxMode;
  /** Why the model says it needs that mode ("" when it asked for none). */
  justification: string;
  /** The command rule that asks for approval, with the command it matched. */
  rule?: CommandRuleVerdict;
  /**
   * Aborts when the tool call is cancelled: the command will not run, so an
   * approver may stop asking.
   */
  signal?: AbortSignal;
}

/**
 * A person's answer to an {@linkcode EscalationRequest}: run this one call
 * under the wider mode, or do not run it.
 *
 * @example
 * ```ts
 * import type { EscalationDecision } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const decision: EscalationDecision = "reject";
 * assert.equal(decision, "reject");
 * ```
 */
export type EscalationDecision = "allow-once" | "reject";

/**
 * The harness's approver: asks a person and resolves with their decision.
 * Anything but `"allow-once"` (including a rejection of the promise) means
 * the command is not run.
 *
 * @example
 * ```ts
 * import type { ApproveEscalation } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const approve: ApproveEscalation = (request) =>
 *   Promise.resolve(request.mode === "workspace-write" ? "allow-once" : "reject");
 * const request = { command: "make", mode: "danger-full-access", justification: "x" } as const;
 * assert.equal(await approve(request), "reject");
 * ```
 */
export type ApproveEscalation = (request: EscalationRequest) => Promise<EscalationDecision>;
