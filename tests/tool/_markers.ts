import { fileURLToPath } from "node:url";
import { renderRunResult } from "../../tool/mod.ts";
import { renderTaskOutput } from "../../tool/render/mod.ts";
import { runResult, stream } from "./_fakes.ts";

/** Any file that exists: a truncation marker names a spill file only while it exists. */
const EXISTING_FILE = fileURLToPath(import.meta.url);

/**
 * Every `[...]` marker template a text names, such as `[exit code: N]` or
 * `[output truncated: N bytes omitted; full output: <path>]`.
 */
export function markerTemplates(text: string): string[] {
  return [...new Set(text.match(/\[[^\][]*\]/g) ?? [])];
}

/** A pattern for a template: N is a number, <path> a path, SIGX a signal, ... anything. */
export function templatePattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    .replace(/\\\.\\\.\\\./g, ".*")
    .replace(/\bN\b/g, "\\d+")
    .replace(/<path>/g, "/[^\\]]+")
    .replace(/\bSIGX\b/g, "SIG[A-Z0-9]+");
  return new RegExp(escaped);
}

/** Texts the renderers really produce, covering every marker the tools document. */
export const RENDERED: readonly string[] = [
  renderRunResult(
    runResult({
      exitCode: 2,
      timedOut: true,
      stdout: stream("a\n[...]\nz\n", {
        truncated: true,
        omittedBytes: 10,
        spillPath: EXISTING_FILE,
        spillComplete: true,
      }),
      stderr: stream("warn\n"),
      strays: { killed: 1, survivors: [] },
      sandbox: { mode: "read-only", backend: "bwrap", denied: true },
    }),
    { escalationModes: ["workspace-write"] },
  ).text,
  renderRunResult(runResult({ exitCode: null, signal: "SIGKILL" })).text,
  renderRunResult(runResult({})).text,
  renderTaskOutput({
    snapshot: {
      id: "bash-1",
      kind: "bash",
      label: "make",
      status: "running",
      exitCode: null,
      signal: null,
      startedAt: 0,
    },
    output: {
      stdout: {
        text: "",
        truncated: true,
        omittedBytes: 5,
        spillPath: "/tmp/s/1",
        spillComplete: true,
      },
      stderr: { text: "", truncated: false, omittedBytes: 0, spillComplete: false },
      status: "running",
      exitCode: null,
      signal: null,
    },
  }),
];
