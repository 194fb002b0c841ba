/**
 * The internals of the local executor that another executor reuses, in one
 * place so that the dependency is visible: `remote/` runs each command's
 * lifecycle (clocks, abort, kill, output pumps) with {@linkcode RunningCommand}
 * fed by a reaper of its own, collects output with the same head + tail +
 * spill collector, hands out the same background process handle, and checks
 * calls and limits with the same functions.
 *
 * @module
 */
export { type Reaper, RunningCommand } from "./_command.ts";
export {
  checkKnownKeys,
  outputBudget,
  positiveFinite,
  resolveConfig,
  wholeNumber,
} from "./_config.ts";
export { BASH_FLAGS, ENV_OVERRIDES } from "./_env.ts";
export { OutputCollector } from "./_output.ts";
export { LocalBashProcess } from "./_process.ts";
export { checkCallValues, checkText } from "./_request.ts";
export { findOnPath } from "./_session.ts";
