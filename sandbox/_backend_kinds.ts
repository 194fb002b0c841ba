import type { BackendKind, SandboxBackendName } from "./backends/mod.ts";
import { BWRAP_KIND } from "./backends/bwrap/mod.ts";
import { LANDLOCK_KIND } from "./backends/landlock/mod.ts";
import { SEATBELT_KIND } from "./backends/seatbelt/mod.ts";

/**
 * Every kind of backend by its name, in the order of preference on its
 * platform. A new backend is a folder under `backends/` that exports its
 * {@linkcode BackendKind}, its name in `SandboxBackendName` (which makes
 * this record ask for it) and its line here.
 */
export const BACKEND_KINDS: Readonly<Record<SandboxBackendName, BackendKind>> = {
  bwrap: BWRAP_KIND,
  landlock: LANDLOCK_KIND,
  seatbelt: SEATBELT_KIND,
};

/** How a platform is named in a reason. */
const PLATFORM_NAMES: Readonly<Record<BackendKind["platform"], string>> = {
  linux: "Linux",
  darwin: "macOS",
};

/** What to do on `platform` when no backend works there. */
const REMEDIES: Readonly<Record<BackendKind["platform"], string>> = {
  linux: "install bubblewrap or Deno (with a Landlock kernel)",
  darwin: "put /usr/bin, where macOS keeps sandbox-exec, on the search path",
};

/**
 * The backends an executor tries on `platform` by default: those made for
 * it, in the order of preference (Linux: bwrap, then landlock; macOS:
 * seatbelt). On a platform none is made for, every one, so that each is
 * refused with a reason that names the platform.
 */
export function defaultBackends(platform: string): SandboxBackendName[] {
  const names = Object.keys(BACKEND_KINDS) as SandboxBackendName[];
  const own = names.filter((name) => BACKEND_KINDS[name].platform === platform);
  return own.length > 0 ? own : names;
}

/** Why backend `name` cannot run on `platform`, or undefined when it is made for it. */
export function platformRefusal(name: SandboxBackendName, platform: string): string | undefined {
  const made = BACKEND_KINDS[name].platform;
  if (made === platform) return undefined;
  return `the ${name} backend confines commands on ${PLATFORM_NAMES[made]} only, and this ` +
    `machine runs ${JSON.stringify(platform)}; leave "backends" out to use this platform's`;
}

/** What to do on `platform` when no backend can confine a command there. */
export function noBackendRemedy(platform: string): string {
  return platform in REMEDIES
    ? REMEDIES[platform as BackendKind["platform"]]
    : `no backend confines commands on ${
      JSON.stringify(platform)
    }; run on Linux (on Windows, under WSL2) or macOS`;
}
