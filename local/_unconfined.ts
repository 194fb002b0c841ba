import { BashConfigError } from "../seam/mod.ts";
import type { Confiner, ConfinerHost } from "../engine/mod.ts";

/**
 * The local executor's confiner, which confines nothing: bash runs as it
 * is, with the config's limits. It keeps `null` or a `danger-full-access`
 * policy and refuses a confined one, since running it would be a silently
 * unconfined run.
 */
export function unconfined(host: ConfinerHost): Confiner {
  return {
    resolvePolicy(policy) {
      if (policy === undefined || policy === null) return null;
      const mode = typeof policy === "object" ? (policy as { mode?: unknown }).mode : undefined;
      if (mode === "danger-full-access") return policy;
      throw new BashConfigError(
        `This executor does not sandbox, so a "sandboxPolicy" with mode ${
          JSON.stringify(mode) ?? "undefined"
        } would run unconfined; use a SandboxBashExecutor, or pass no policy (or "danger-full-access") to run unconfined`,
      );
    },
    defaultLimits: () => host.config.limits,
    plan: (_spec, launch) => Promise.resolve({ launch }),
    // No command it runs is confined, so none was granted a root to plant in.
    unconfinedExposure: () => undefined,
    // Nothing is started ahead of a call, nor held.
    stop: () => Promise.resolve(),
    dispose: () => Promise.resolve(),
  };
}
