import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { formatDoctorReport, shellseamDoctor } from "../../sandbox/mod.ts";
import { executorFor, fakeProgram, probeHere, tempWorkspace } from "./_fixtures.ts";

const statuses = await probeHere();

describe("shellseamDoctor", () => {
  it("reports every backend, the Landlock ABI and what an executor would use", async () => {
    using workspace = tempWorkspace();
    const report = await shellseamDoctor({ workspaceRoot: workspace.root });
    assert.equal(report.platform, process.platform);
    assert.equal(report.mode, "workspace-write");
    assert.equal(report.network, "deny");
    assert.deepEqual(report.backends.map((b) => b.backend), ["bwrap", "landlock"]);
    for (const status of report.backends) {
      assert.equal(status.works, statuses[status.backend].works);
      if (status.works) assert.ok(status.enforcement, `${status.backend} facts`);
      else assert.ok(status.reason, `${status.backend} reason`);
    }
    assert.equal(report.selected, report.backends.find((b) => b.works)?.backend ?? null);
    assert.equal(report.landlockAbi, statuses.landlock.landlockAbi ?? null);
  });

  it("its facts are those a command run by each working backend reports", async () => {
    using workspace = tempWorkspace();
    const report = await shellseamDoctor({ workspaceRoot: workspace.root, network: "allow" });
    for (const status of report.backends.filter((b) => b.works)) {
      await using executor = executorFor(status.backend, workspace, {
        defaultMode: "workspace-write",
        network: "allow",
      });
      const result = await executor.run(executor.resolve({ command: "true" }));
      assert.deepEqual(status.enforcement, result.sandbox?.enforcement, status.backend);
    }
  });

  it("reports a broken backend with its reason, and none selected when nothing works", async () => {
    using workspace = tempWorkspace();
    const fake = fakeProgram(
      workspace,
      "bwrap",
      "echo 'bwrap: No permissions to create new namespace' >&2; exit 1",
    );
    const report = await shellseamDoctor({
      workspaceRoot: workspace.root,
      backends: ["bwrap"],
      searchPath: fake,
      mode: "read-only",
    });
    assert.deepEqual(report, {
      platform: process.platform,
      mode: "read-only",
      network: "deny",
      landlockAbi: null,
      selected: null,
      backends: [{
        backend: "bwrap",
        works: false,
        reason: "probe exited 1: bwrap: No permissions to create new namespace",
      }],
    });
    assert.equal(
      formatDoctorReport(report),
      [
        `shellseam doctor (${process.platform})`,
        "sandbox backends, in order of preference (facts for read-only, network deny):",
        "  bwrap: does not work: probe exited 1: bwrap: No permissions to create new namespace",
        "confined commands fail closed: no backend works (install bubblewrap, or Deno on a Landlock kernel)",
        "",
      ].join("\n"),
    );
  });
});

describe("formatDoctorReport", () => {
  it("lists working backends with their facts and gaps, then the selection", () => {
    const text = formatDoctorReport({
      platform: "linux",
      mode: "workspace-write",
      network: "deny",
      landlockAbi: 7,
      selected: "bwrap",
      backends: [
        {
          backend: "bwrap",
          works: true,
          enforcement: { filesystem: "full", network: "full", gaps: [] },
        },
        {
          backend: "landlock",
          works: true,
          landlockAbi: 7,
          enforcement: { filesystem: "full", network: "partial", gaps: ["UDP not confined"] },
        },
      ],
    });
    assert.equal(
      text,
      [
        "shellseam doctor (linux)",
        "sandbox backends, in order of preference (facts for workspace-write, network deny):",
        "  bwrap: works; filesystem full, network full",
        "  landlock: works (Landlock ABI 7); filesystem full, network partial",
        "    gap: UDP not confined",
        "confined commands use: bwrap",
        "",
      ].join("\n"),
    );
  });
});
