import type { SandboxMode } from "../../seam/mod.ts";

/** What each sandbox mode lets a command do, in words for the model. */
export const MODE_MEANINGS: Readonly<Record<SandboxMode, string>> = {
  "read-only": "reads anywhere; writes only to a private temporary directory ($TMPDIR)",
  "workspace-write": "reads anywhere; writes inside the workspace and $TMPDIR",
  "danger-full-access": "no sandbox: reads and writes whatever the user can, network included",
};

/** `"mode" (what it allows)`, for a description. */
export function describeMode(mode: SandboxMode): string {
  return `"${mode}" (${MODE_MEANINGS[mode]})`;
}
