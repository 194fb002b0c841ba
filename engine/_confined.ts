import type { ResourceLimits, SandboxMode } from "../seam/mod.ts";
import { CONFINED_DEFAULT_LIMITS, mergeLimits } from "./_limits.ts";

/**
 * Whether a call in `mode` is confined: it has a mode, and the mode is not
 * `danger-full-access`. The one place this is decided, for every executor.
 */
export function confines(mode: SandboxMode | null | undefined): boolean {
  return mode !== undefined && mode !== null && mode !== "danger-full-access";
}

/**
 * A call's default resource limits: a confined call gets the sandbox's
 * defaults ({@linkcode CONFINED_DEFAULT_LIMITS}) with the config's `limits`
 * over them; an unconfined one gets the config's alone.
 */
export function callDefaultLimits(confined: boolean, configLimits: ResourceLimits): ResourceLimits {
  return confined ? mergeLimits(CONFINED_DEFAULT_LIMITS, configLimits) : configLimits;
}
