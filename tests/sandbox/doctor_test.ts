import { describe, it } from "node:test";
import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { formatDoctorReport, shellseamDoctor } from "../../sandbox/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { findBridgeTools } from "../../sandbox/network/_bridge.ts";
import { executorFor, fakeProgram, probeHere, skipUnless, tempWorkspace } from "./_fixtures.ts";

const onDeno = "Deno" in globalThis;
const DENO_PERMISSIONS = ["read", "write", "net", "env", "sys", "run", "ffi", "import"];

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
    assert.deepEqual(report.unusable, []);
    assert.equal(report.landlockAbi, statuses.landlock.landlockAbi ?? null);
  });

  it(
    "names a backend whose runner lies in the workspace, never runs it, and selects the next one",
    {
      skip: skipUnless(statuses, "landlock") || skipUnless(statuses, "bwrap"),
    },
    async () => {
      using workspace = tempWorkspace();
      // A perl in the workspace, first on the search path: the launcher would
      // run a program that a workspace-write command can replace.
      const perl = findOnPath("perl", process.env.PATH);
      assert.ok(perl !== null);
      const bin = join(workspace.root, "node_modules", ".bin");
      mkdirSync(bin, { recursive: true });
      symlinkSync(perl, join(bin, "perl"));
      const searchPath = `${bin}:${process.env.PATH}`;
      const refusal = `"${join(bin, "perl")}" runs before the sandbox applies`;
      const landlockOnly = await shellseamDoctor({
        workspaceRoot: workspace.root,
        backends: ["landlock"],
        searchPath,
      });
      // Its probe never runs that perl: an earlier session's command may have replaced it.
      assert.equal(landlockOnly.backends[0]?.works, false);
      assert.equal(landlockOnly.selected, null);
      assert.ok(
        landlockOnly.backends[0]?.reason?.startsWith(refusal),
        landlockOnly.backends[0]?.reason,
      );
      assert.match(
        formatDoctorReport(landlockOnly),
        /\n {2}landlock: does not work: "[^"]+" runs before the sandbox applies/,
      );
      // Installing a backend would not help: what makes this one usable does.
      assert.ok(
        formatDoctorReport(landlockOnly).includes(
          `\nconfined commands fail closed: no backend works (install "${
            join(bin, "perl")
          }" elsewhere (or take its folder off the search path) or narrow the writable roots)\n`,
        ),
        formatDoctorReport(landlockOnly),
      );
      const both = await shellseamDoctor({
        workspaceRoot: workspace.root,
        backends: ["landlock", "bwrap"],
        searchPath,
      });
      assert.equal(both.selected, "bwrap");
      assert.deepEqual(both.unusable, []);
      const readOnly = await shellseamDoctor({
        workspaceRoot: workspace.root,
        backends: ["landlock"],
        searchPath,
        mode: "read-only",
      });
      // A write call before a read-only one could replace it: read-only calls pass it over too.
      assert.equal(readOnly.selected, null);
      assert.equal(readOnly.backends[0]?.reason, landlockOnly.backends[0]?.reason);
    },
  );

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
      unusable: [],
      spill: report.spill,
      runtime: onDeno ? "deno" : "node",
      // Run with --allow-all (Deno), or without --permission (Node).
      permissions: onDeno
        ? Object.fromEntries(DENO_PERMISSIONS.map((name) => [name, "granted"]))
        : null,
    });
    assert.equal(
      formatDoctorReport(report),
      [
        `shellseam doctor (${process.platform})`,
        "sandbox backends, in order of preference (facts for read-only, network deny):",
        "  bwrap: does not work: probe exited 1: bwrap: No permissions to create new namespace",
        "confined commands fail closed: no backend works (install bubblewrap or Deno (with a Landlock kernel))",
        onDeno
          ? `deno permissions: ${DENO_PERMISSIONS.map((name) => `${name} granted`).join(", ")}`
          : "node permissions: no permission model in effect (started without --permission)",
        formatDoctorReport(report).split("\n").at(-2),
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
      unusable: [],
      spill: {
        dir: "/srv/spill",
        filesystem: "ext4",
        ramBacked: false,
        freeBytes: 512 * 1024 ** 2,
        budgetBytes: 1024 ** 3,
      },
      runtime: "node",
      permissions: null,
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
        "node permissions: no permission model in effect (started without --permission)",
        "spill folder: /srv/spill (ext4); 512.0 MiB free; budget 1.0 GiB per executor",
        "",
      ].join("\n"),
    );
  });

  it("says when the spill folder is RAM-backed, and when its facts are unknown", () => {
    const base = {
      platform: "linux",
      mode: "read-only" as const,
      network: "deny" as const,
      landlockAbi: null,
      selected: null,
      backends: [],
      unusable: [],
      runtime: "deno" as const,
      permissions: null,
    };
    const ram = { dir: "/tmp", filesystem: "tmpfs", ramBacked: true, budgetBytes: 1024 ** 3 };
    assert.match(
      formatDoctorReport({ ...base, spill: { ...ram, freeBytes: 3 * 1024 ** 3 } }),
      /\nspill folder: \/tmp \(tmpfs, RAM-backed: spill files use memory; set spillDir to a disk folder to avoid it\); 3\.0 GiB free; budget 1\.0 GiB per executor\n$/,
    );
    const unknown = { ...ram, filesystem: null, ramBacked: null, freeBytes: null };
    assert.match(
      formatDoctorReport({ ...base, spill: unknown }),
      /\nspill folder: \/tmp \(filesystem unknown\); free space unknown; budget 1\.0 GiB per executor\n$/,
    );
  });

  it("says why the network proxy stopped when an error stopped it", () => {
    const state = {
      listening: false,
      socketDir: "/tmp/x/proxy",
      launches: 1,
      connections: 0,
      error:
        "a command's proxy socket stopped listening after an error (accept EMFILE); that command's later connections fail, and the next command gets a socket of its own",
    };
    const text = formatDoctorReport({
      platform: "linux",
      mode: "read-only",
      network: "deny",
      landlockAbi: null,
      selected: null,
      backends: [],
      unusable: [],
      runtime: "deno",
      permissions: null,
      spill: { dir: "/tmp", filesystem: "ext4", ramBacked: false, freeBytes: 1, budgetBytes: 1 },
      networkProxy: { works: true, bridge: { socat: "/usr/bin/socat" }, state },
    });
    assert.match(
      text,
      /\nnetwork allow-lists: work \(proxy stopped in \/tmp\/x\/proxy: a command's proxy socket stopped listening after an error \(accept EMFILE\); that command's later connections fail, and the next command gets a socket of its own; bridge: socat \/usr\/bin\/socat\)\n/,
    );
  });
});

describe("shellseamDoctor: the spill folder", () => {
  it("reports the spill folder's filesystem, free space and budget, as statfs and df see them", async () => {
    using workspace = tempWorkspace();
    const spillDir = join(workspace.base, "spill");
    mkdirSync(spillDir);
    // No bwrap on an empty search path: the spill facts do not depend on a backend, and a
    // doctor that finds none runs no command and checks no allow-list.
    const searchPath = join(workspace.base, "no-programs");
    mkdirSync(searchPath);
    const report = await shellseamDoctor({
      workspaceRoot: workspace.root,
      backends: ["bwrap"],
      searchPath,
      spillDir,
      maxSpillTotalBytes: 5_000_000,
    });
    assert.equal(report.spill.dir, spillDir);
    assert.equal(report.spill.budgetBytes, 5_000_000);
    const df = spawnSync("df", ["--output=fstype,avail", "-B1", spillDir], { encoding: "utf8" });
    const [type, avail] = df.stdout.trim().split("\n")[1]?.trim().split(/\s+/) ?? [];
    const expected = type === "ext2" || type === "ext3" ? "ext4" : type; // one magic number
    assert.equal(report.spill.filesystem, expected);
    assert.equal(report.spill.ramBacked, type === "tmpfs");
    const free = report.spill.freeBytes ?? -1;
    assert.ok(Math.abs(free - Number(avail)) < 64 * 1024 ** 2, `${free} vs df ${avail}`);
    const shm = await shellseamDoctor({
      workspaceRoot: workspace.root,
      backends: ["bwrap"],
      searchPath,
      spillDir: "/dev/shm",
    });
    assert.deepEqual([shm.spill.filesystem, shm.spill.ramBacked], ["tmpfs", true]);
  });
});

describe("shellseamDoctor: network allow-lists", () => {
  it("says whether a command reaches the proxy through the bridge, and why not", async () => {
    const statuses = await probeHere();
    const skip = skipUnless(statuses, "bwrap") ||
      ("reason" in findBridgeTools(process.env.PATH ?? "", process.getuid?.() === 0)
        ? "the bridge's programs (socat, ip, unshare) are not all installed here"
        : false);
    if (skip) return;
    using workspace = tempWorkspace();
    const report = await shellseamDoctor({ workspaceRoot: workspace.root, backends: ["bwrap"] });
    assert.equal(report.networkProxy?.works, true, report.networkProxy?.reason);
    assert.equal(report.networkProxy?.bridge?.socat, findOnPath("socat", process.env.PATH ?? ""));
    // The check's command settled: its credentials open nothing any more.
    assert.equal(report.networkProxy?.state?.launches, 0);
    assert.match(
      formatDoctorReport(report),
      /\nnetwork allow-lists: work \(proxy listening in .*\/proxy; bridge: unshare .*socat .*\)\n/,
    );
    // A search path without socat: allow-lists fail closed, and the doctor says why.
    const bin = join(workspace.base, "bin");
    mkdirSync(bin);
    for (const name of ["bwrap", "bash", "setsid", "unshare", "ip", "setpriv"]) {
      const path = findOnPath(name, process.env.PATH ?? "");
      if (path !== null) symlinkSync(path, join(bin, name));
    }
    const without = await shellseamDoctor({
      workspaceRoot: workspace.root,
      backends: ["bwrap"],
      searchPath: bin,
    });
    assert.equal(without.networkProxy?.works, false);
    assert.match(
      formatDoctorReport(without),
      /\nnetwork allow-lists: do not work, so commands with one fail closed: "socat" was not found on PATH; install socat/,
    );
  });
});
