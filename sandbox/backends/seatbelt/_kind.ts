import { dirname } from "node:path";
import type { BackendKind, PrepareContext, PrepareRefusal, SandboxBackend } from "../mod.ts";
import { findSandboxExec } from "./_launch.ts";
import { createSeatbeltBackend } from "./_seatbelt.ts";
import { seatbeltSelfProbe, selfProbeFailure } from "./_self_probe.ts";

/**
 * The Seatbelt backend as the sandbox finds it on macOS: it needs
 * `sandbox-exec` on the search path and the commands' TMPDIR in the
 * executor's private folder, and it must pass its self-probe (see
 * `_self_probe.ts`), which runs here, so before the executor's first
 * confined command; when a probe is not refused, every confined command
 * fails closed with the reason, which names it.
 */
export const SEATBELT_KIND: BackendKind = {
  name: "seatbelt",
  platform: "darwin",
  async prepare(context: PrepareContext): Promise<SandboxBackend | PrepareRefusal> {
    const sandboxExec = findSandboxExec(context.searchPath);
    if ("reason" in sandboxExec) return sandboxExec;
    const tmpDir = await context.privateFolder("tmp", "TMPDIR");
    if (typeof tmpDir !== "string") return tmpDir;
    const privateDir = dirname(tmpDir);
    const probe = await seatbeltSelfProbe(sandboxExec.path, privateDir, context);
    if ("reason" in probe) return probe;
    const { checks } = probe;
    const failure = selfProbeFailure(checks);
    if (failure !== undefined) return { reason: failure, selfProbe: checks };
    const backend = createSeatbeltBackend(sandboxExec.path, { privateDir, tmpDir });
    return { ...backend, selfProbe: () => checks.map((check) => ({ ...check })) };
  },
};
