import type { BackendKind, SandboxBackendName } from "./backends/mod.ts";
import { BWRAP_KIND } from "./backends/bwrap/mod.ts";
import { LANDLOCK_KIND } from "./backends/landlock/mod.ts";

/**
 * Every kind of backend by its name. A new backend is a folder under
 * `backends/` that exports its {@linkcode BackendKind}, its name in
 * `SandboxBackendName` (which makes this record ask for it) and its line
 * here; `SANDBOX_BACKENDS` says the default order.
 */
export const BACKEND_KINDS: Readonly<Record<SandboxBackendName, BackendKind>> = {
  bwrap: BWRAP_KIND,
  landlock: LANDLOCK_KIND,
};
