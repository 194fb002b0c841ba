// The tests' way to watch or change a call's launch plan, on any executor:
// a config fragment whose WRAP_CONFINER wraps the executor's own confiner,
// its plan replaced by `plan` (which may ask the executor's own, `inner`).
import type { BashExecSpec } from "../../seam/mod.ts";
import {
  type Confiner,
  type Launch,
  type LaunchLimits,
  type LaunchPlan,
  type LocalBashExecutorConfig,
  type WithConfinerWrap,
  WRAP_CONFINER,
} from "../../engine/mod.ts";

/** How a test plans a call: from the spec, the bare launch, its limits and the executor's own confiner. */
export type TestPlan = (
  spec: BashExecSpec,
  launch: Launch,
  limits: LaunchLimits,
  inner: Confiner,
) => Promise<LaunchPlan>;

/** A config fragment that plans each call by `plan`; the rest is the executor's own confiner's. */
export function withPlan(plan: TestPlan): WithConfinerWrap & LocalBashExecutorConfig {
  return {
    [WRAP_CONFINER]: (inner) => ({
      resolvePolicy: (policy) => inner.resolvePolicy(policy),
      defaultLimits: (spec) => inner.defaultLimits(spec),
      plan: (spec, launch, limits) => plan(spec, launch, limits, inner),
      unconfinedExposure: (programs) => inner.unconfinedExposure(programs),
      stop: () => inner.stop(),
      dispose: () => inner.dispose(),
    }),
  };
}
