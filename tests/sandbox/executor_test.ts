import { describe, it } from "node:test";
import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  BashConfigError,
  BashSpawnError,
  type SandboxPolicy,
  SandboxUnavailableError,
} from "../../seam/mod.ts";
import { DEFAULT_PROTECTED_PATHS, SandboxBashExecutor } from "../../sandbox/mod.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import { PROTECTED_WALK_DEPTH, protectionGaps } from "../../sandbox/protected/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { WATCHDOG_NAME } from "../../engine/_watchdog.ts";
import { runtime } from "../../local/mod.ts";
import type { Runtime } from "../../runtime/mod.ts";
import {
  executorFor,
  fakeProgram,
  linkedPrograms,
  plantedProgram,
  probeHere,
  recording,
  SANDBOX_BACKENDS,
  SET_UP_TOKEN,
  skipUnless,
  skipWithoutPython,
  STANDBY_TOKENS,
  standbys,
  tempWorkspace,
  type Workspace,
} from "./_fixtures.ts";
import { pause, until } from "../local/_helpers.ts";
import { withPlan } from "../engine/_plan.ts";

const statuses = await probeHere();
const noBwrap = skipUnless(statuses, "bwrap");
const noLandlock = skipUnless(statuses, "landlock");

// A regression that breaks a backend's probe would otherwise only turn its
// tests into skips: where its prerequisites hold (checked without our code),
// the backend must work.
describe("the backends this machine has", () => {
  const bwrap = findOnPath("bwrap", process.env.PATH);
  const bwrapRuns = bwrap !== null &&
    spawnSync(bwrap, ["--ro-bind", "/", "/", "--unshare-pid", "true"]).status === 0;
  it("bwrap works where bwrap itself runs", {
    skip: bwrapRuns ? false : "bwrap is not installed or cannot make namespaces here",
  }, () => {
    assert.equal(statuses.bwrap.works, true, statuses.bwrap.reason);
  });

  // landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION), through python's ctypes.
  const abi = Number(
    spawnSync("python3", ["-c", "import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))"])
      .stdout?.toString().trim(),
  );
  it("landlock works where the kernel offers Landlock and deno is installed", {
    skip: skipWithoutPython() ||
      ("reason" in findDeno(process.env.PATH) ? "deno is not installed here" : false) ||
      (abi >= 1 ? false : "this kernel offers no Landlock"),
  }, () => {
    assert.equal(statuses.landlock.works, true, statuses.landlock.reason);
    assert.equal(statuses.landlock.landlockAbi, abi);
  });
});

describe("SandboxBashExecutor config", () => {
  it("defaults: read-only, network deny, both backends, commands run in the workspace", async () => {
    using workspace = tempWorkspace();
    symlinkSync(workspace.root, join(workspace.base, "link"));
    await using executor = new SandboxBashExecutor({ workspaceRoot: join(workspace.base, "link") });
    assert.equal(executor.sandboxMode, "read-only");
    assert.deepEqual(executor.defaultPolicy, {
      mode: "read-only",
      workspaceRoot: workspace.root,
      network: "deny",
    });
    assert.deepEqual(executor.backends, SANDBOX_BACKENDS);
    assert.equal(executor.config.cwd, workspace.root);
  });

  it("auto takes the setsid binary on every runtime; an explicit strategy is kept", async () => {
    using workspace = tempWorkspace();
    const setsid = findOnPath("setsid", process.env.PATH);
    await using auto = new SandboxBashExecutor({ workspaceRoot: workspace.root });
    assert.deepEqual(
      [auto.config.sessionStrategy, auto.config.setsidPath],
      setsid === null ? ["detached", null] : ["setsid-binary", setsid],
    );
    await using detached = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      sessionStrategy: "detached",
    });
    assert.equal(detached.config.sessionStrategy, "detached");
    assert.throws(
      () =>
        new SandboxBashExecutor({
          workspaceRoot: workspace.root,
          sessionStrategy: "fork" as "auto",
        }),
      BashConfigError,
    );
  });

  it("sandboxMode is the configured default", async () => {
    using workspace = tempWorkspace();
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      defaultMode: "workspace-write",
      cwd: workspace.base,
    });
    assert.equal(executor.sandboxMode, "workspace-write");
    assert.equal(executor.config.cwd, workspace.base);
  });

  it("rejects bad values with BashConfigError naming them", () => {
    using workspace = tempWorkspace();
    const root = workspace.root;
    const cases: [object, RegExp][] = [
      [{}, /"workspaceRoot" is required/],
      [{ workspaceRoot: join(workspace.base, "nope") }, /does not exist; create it/],
      [{ workspaceRoot: root, defaultMode: "full" }, /"defaultMode" must be .*; pass one of them/],
      [{ workspaceRoot: root, network: "on" }, /Sandbox network "on" is not known/],
      [{ workspaceRoot: root, backends: [] }, /"backends" must list .*; omit it/],
      [{ workspaceRoot: root, backends: ["bwrap", "bwrap"] }, /"backends" must list .*; omit it/],
      [{ workspaceRoot: root, backends: ["docker"] }, /"backends" must list .*; omit it/],
      [{ workspaceRoot: root, probeTimeoutMs: 0 }, /"probeTimeoutMs" must be a positive/],
      [{ workspaceRoot: root, searchPath: 5 }, /"searchPath" must be a PATH-style .*; omit it/],
      [{ workspaceRoot: root, writableRoots: "/srv" }, /Writable roots must be a list .*"\/srv"/],
      [{ workspaceRoot: root, timeoutMs: -1 }, /"timeoutMs" must be a positive/],
      [{ workspaceRoot: root, homeDir: "home" }, /"homeDir" must be an absolute path; got "home"/],
      [{ workspaceRoot: root, denyRead: ["keys"] }, /"denyRead" entry "keys" is neither/],
      [{ workspaceRoot: root, allowUnixSockets: "/x" }, /"allowUnixSockets" must be a list/],
      [
        { workspaceRoot: root, workspace: root },
        /^The sandbox executor config has no key "workspace"; did you mean "workspaceRoot"\?/,
      ],
      [{ workspaceRoot: root, mode: "read-only" }, /has no key "mode"; .*"defaultMode"/],
      [{ workspaceRoot: root, keepSpillFiles: "yes" }, /"keepSpillFiles" must be true or false/],
    ];
    for (const [config, message] of cases) {
      assert.throws(
        () => new SandboxBashExecutor(config as never),
        (error: unknown) => error instanceof BashConfigError && message.test(error.message),
        JSON.stringify(config),
      );
    }
  });
});

describe("SandboxBashExecutor.resolve", () => {
  it("stamps a frozen copy of the default policy when the request has none", async () => {
    using workspace = tempWorkspace();
    const extra = join(workspace.base, "later");
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      writableRoots: [extra],
    });
    const spec = executor.resolve({ command: "true" });
    assert.deepEqual(spec.sandboxPolicy, { ...executor.defaultPolicy, writableRoots: [extra] });
    assert.notEqual(spec.sandboxPolicy, executor.defaultPolicy);
    assert.throws(() => spec.sandboxPolicy!.writableRoots!.push("/x"), TypeError);
    assert.ok(Object.isFrozen(spec.sandboxPolicy));
    assert.deepEqual(executor.defaultPolicy.writableRoots, [extra]);
    assert.equal(spec.workdir, workspace.root);
  });

  it("checks and canonicalises a request's own policy", async () => {
    using workspace = tempWorkspace();
    await using executor = new SandboxBashExecutor({ workspaceRoot: workspace.root });
    const spec = executor.resolve({
      command: "true",
      sandboxPolicy: {
        mode: "workspace-write",
        workspaceRoot: `${workspace.root}/.`,
        network: "allow",
      },
    });
    assert.deepEqual(spec.sandboxPolicy, {
      mode: "workspace-write",
      workspaceRoot: workspace.root,
      network: "allow",
    });
    assert.throws(
      () =>
        executor.resolve({
          command: "true",
          sandboxPolicy: {
            mode: "root" as "read-only",
            workspaceRoot: workspace.root,
            network: "deny",
          },
        }),
      BashConfigError,
    );
  });
});

describe("what a request's policy hides", () => {
  it("is the executor's unless the request says otherwise", async () => {
    using workspace = tempWorkspace();
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      denyRead: ["~/.keys"],
      allowUnixSockets: ["/run/app.sock"],
    });
    const own = { mode: "read-only", workspaceRoot: workspace.root, network: "deny" } as const;
    assert.deepEqual(executor.resolve({ command: "true", sandboxPolicy: own }).sandboxPolicy, {
      ...own,
      denyRead: ["~/.keys"],
      allowUnixSockets: ["/run/app.sock"],
    });
    const spec = executor.resolve({ command: "true", sandboxPolicy: { ...own, denyRead: [] } });
    assert.deepEqual(spec.sandboxPolicy?.denyRead, []);
    assert.throws(() => spec.sandboxPolicy!.allowUnixSockets!.push("/x"), TypeError);
    assert.deepEqual(executor.defaultPolicy.allowUnixSockets, ["/run/app.sock"]);
  });

  it("defaults to the credential stores in homeDir, and an empty list hides nothing", {
    skip: noBwrap,
  }, async () => {
    using workspace = tempWorkspace();
    const home = join(workspace.base, "home");
    mkdirSync(join(home, ".aws"), { recursive: true });
    writeFileSync(join(home, ".aws", "credentials"), "key");
    const cases: [{ denyRead?: string[] }, number][] = [[{}, 1], [{ denyRead: [] }, 0]];
    for (const [config, expected] of cases) {
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        backends: ["bwrap"],
        homeDir: home,
        ...config,
      });
      const result = await executor.run(
        executor.resolve({ command: "cat ~/.aws/credentials", env: { HOME: home } }),
      );
      assert.equal(result.exitCode, expected, result.stderr.text);
    }
  });
});

describe("danger-full-access", () => {
  it("runs unwrapped and says so", async () => {
    using workspace = tempWorkspace();
    // No backend can be found: danger-full-access does not need one.
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      defaultMode: "danger-full-access",
      searchPath: "/nonexistent",
      backends: ["bwrap"],
    });
    const outside = join(workspace.base, "outside.txt");
    const result = await executor.run(
      executor.resolve({ command: `echo x > '${outside}'; exit 3` }),
    );
    assert.equal(result.exitCode, 3);
    assert.equal(readFileSync(outside, "utf8"), "x\n");
    assert.deepEqual(result.sandbox, {
      mode: "danger-full-access",
      backend: "none",
      denied: false,
    });
    const process = await executor.start(executor.resolve({ command: "true" }));
    await process.done;
    assert.deepEqual(process.sandbox, {
      mode: "danger-full-access",
      backend: "none",
      denied: false,
    });
  });
});

describe("failing closed", () => {
  it("no backend found: run and start reject with every attempt, and nothing runs", async () => {
    using workspace = tempWorkspace();
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      defaultMode: "workspace-write",
      searchPath: "/nonexistent",
      backends: ["bwrap"],
    });
    const spec = executor.resolve({ command: "touch ran" });
    for (const call of [() => executor.run(spec), () => executor.start(spec)]) {
      await assert.rejects(call(), (error: unknown) => {
        assert.ok(error instanceof SandboxUnavailableError);
        assert.ok(error instanceof BashSpawnError);
        assert.deepEqual(error.attempts, [
          { backend: "bwrap", reason: '"bwrap" was not found on PATH; install bubblewrap' },
        ]);
        assert.match(error.message, /the "workspace-write" command was not run/);
        return true;
      });
    }
    assert.equal(existsSync(join(workspace.root, "ran")), false);
    assert.deepEqual(await executor.probeBackends(), [
      {
        backend: "bwrap",
        works: false,
        reason: '"bwrap" was not found on PATH; install bubblewrap',
      },
    ]);
  });

  const denoElsewhere = findDeno("/nonexistent");
  it("neither backend found: the error lists each, in order, with its reason", {
    skip: "path" in denoElsewhere
      ? `the deno npm package is installed (${denoElsewhere.path})`
      : false,
  }, async () => {
    using workspace = tempWorkspace();
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      searchPath: "/nonexistent",
    });
    await assert.rejects(
      executor.run(executor.resolve({ command: "touch ran" })),
      (error: unknown) => {
        assert.ok(error instanceof SandboxUnavailableError);
        assert.deepEqual(error.attempts, [
          { backend: "bwrap", reason: '"bwrap" was not found on PATH; install bubblewrap' },
          {
            backend: "landlock",
            reason: '"deno" was not found on PATH nor as the "deno" npm package; install Deno ' +
              "or the deno npm package, or a 64-bit perl (perl-base), which runs it faster",
          },
        ]);
        return true;
      },
    );
    assert.equal(existsSync(join(workspace.root, "ran")), false);
  });

  it("a spec with a null policy is confined by the default, never run unconfined", async () => {
    using workspace = tempWorkspace();
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      searchPath: "/nonexistent",
      backends: ["bwrap"],
    });
    const spec = { ...executor.resolve({ command: "touch ran" }), sandboxPolicy: null };
    await assert.rejects(executor.run(spec), SandboxUnavailableError);
    assert.equal(existsSync(join(workspace.root, "ran")), false);
  });

  it("a workspace root that vanished is a spawn error", { skip: noBwrap }, async () => {
    using workspace = tempWorkspace();
    await using executor = executorFor("bwrap", workspace, { cwd: workspace.base });
    await executor.probeBackends();
    rmSync(workspace.root, { recursive: true });
    await assert.rejects(
      executor.run(executor.resolve({ command: "true" })),
      (error: unknown) => error instanceof BashSpawnError && /does not exist/.test(error.message),
    );
  });
});

describe("a broken bwrap on the search path", () => {
  const failing = "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1";

  it(
    "is a runner failure at probe time, and the executor falls to landlock",
    { skip: noLandlock },
    async () => {
      using workspace = tempWorkspace();
      const fake = fakeProgram(workspace, "bwrap", failing);
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        searchPath: `${fake}:${process.env.PATH}`,
      });
      const result = await executor.run(executor.resolve({ command: "echo x > out.txt" }));
      assert.equal(result.sandbox?.backend, "landlock");
      assert.equal(result.sandbox?.denied, true);
      assert.equal(existsSync(join(workspace.root, "out.txt")), false);
      const [bwrap] = await executor.probeBackends();
      assert.deepEqual(bwrap, {
        backend: "bwrap",
        works: false,
        reason: "probe exited 1: bwrap: setting up uid map: Permission denied",
      });
    },
  );

  it("fails closed when the executor is restricted to bwrap", async () => {
    using workspace = tempWorkspace();
    const fake = fakeProgram(workspace, "bwrap", "exit 1");
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      defaultMode: "workspace-write",
      backends: ["bwrap"],
      searchPath: `${fake}:${process.env.PATH}`,
    });
    await assert.rejects(
      executor.run(executor.resolve({ command: "touch ran" })),
      (error: unknown) =>
        error instanceof SandboxUnavailableError &&
        error.attempts[0]?.reason === "probe exited 1 without a message",
    );
    assert.equal(existsSync(join(workspace.root, "ran")), false);
  });

  it("is probed once per executor", async () => {
    using workspace = tempWorkspace();
    // The probe's launches only (a call's runs the namespace's reporter,
    // shellseam-strays): the first call may be launched beside the probe.
    const count = join(workspace.base, "probes");
    const fake = fakeProgram(
      workspace,
      "bwrap",
      `case "$*" in *shellseam-strays*) ;; *) echo >> '${count}' ;; esac; exit 1`,
    );
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      backends: ["bwrap"],
      searchPath: `${fake}:${process.env.PATH}`,
    });
    for (let i = 0; i < 3; i++) {
      await assert.rejects(
        executor.run(executor.resolve({ command: "true" })),
        SandboxUnavailableError,
      );
    }
    await executor.probeBackends();
    assert.equal(readFileSync(count, "utf8"), "\n");
  });

  it("a probe that hangs times out and counts as not working", async () => {
    using workspace = tempWorkspace();
    const fake = fakeProgram(workspace, "bwrap", "exec sleep 30");
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      backends: ["bwrap"],
      searchPath: `${fake}:${process.env.PATH}`,
      probeTimeoutMs: 200,
      killGraceMs: 100,
    });
    assert.deepEqual(await executor.probeBackends(), [
      { backend: "bwrap", works: false, reason: "probe timed out after 200 ms" },
    ]);
  });
});

describe("a bwrap whose setup races with the host's mount table", () => {
  it("is launched again, the probe and a call alike, and the command runs once", {
    skip: noBwrap,
  }, async () => {
    using workspace = tempWorkspace();
    // Each launch takes a token if one is left and fails as bwrap does when a
    // host mount went while it remounted the root (bubblewrap issue 650).
    const tokens = join(workspace.base, "tokens");
    mkdirSync(tokens);
    const fake = fakeProgram(
      workspace,
      "bwrap",
      `for t in '${tokens}'/*; do [ -e "$t" ] || break; rm "$t"; ` +
        `echo "bwrap: Can't bind mount /oldroot/ on /newroot/: Unable to apply mount flags: ` +
        `remount \"/newroot/tmp/m\": Invalid argument" >&2; exit 1; done; ` +
        `exec '${findOnPath("bwrap", process.env.PATH)}' "$@"`,
    );
    const token = (name: string) => writeFileSync(join(tokens, name), "");
    // No cgroups: no standby starts ahead to take a token meant for a call.
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      defaultMode: "workspace-write",
      backends: ["bwrap"],
      useCgroups: false,
      searchPath: `${fake}:${process.env.PATH}`,
    });
    token("probe");
    assert.deepEqual((await executor.probeBackends()).map((s) => s.works), [true]);
    for (const name of ["call-1", "call-2"]) token(name);
    const result = await executor.run(executor.resolve({ command: "echo ran >> ran.txt" }));
    assert.equal(result.exitCode, 0, result.stderr.text);
    assert.equal(result.sandbox?.runnerFailed, false);
    assert.equal(readFileSync(join(workspace.root, "ran.txt"), "utf8"), "ran\n");
    assert.deepEqual(readdirSync(tokens), [], "both raced launches were made");
  });
});

describe("a backend that breaks after its probe worked", () => {
  const broken = (dir: string) => writeFileSync(join(dir, "broken"), "");
  const gone = (program: string) => (dir: string) => rmSync(join(dir, program));
  // The program each case fakes: the backend's runner (for Landlock, perl
  // or deno, which runs the launcher), and how it breaks.
  const cases = [
    ["bwrap", "bwrap", "fails itself", broken],
    ["bwrap", "bwrap", "vanished", gone("bwrap")],
    ["landlock", "perl", "its Perl launcher fails", broken],
    ["landlock", "perl", "its perl vanished", gone("perl")],
    ["landlock", "deno", "its Deno launcher fails", broken],
    ["landlock", "deno", "its deno vanished", gone("deno")],
  ] as const;
  // Once broken, the fake bwrap fails as bwrap does; the fake perl hands the
  // real launcher an argument too many, which it refuses; the fake deno runs the real launcher denied FFI, so the
  // launcher cannot load libc and fails.
  const whenBroken = {
    bwrap: "echo 'bwrap: Creating new namespace failed' >&2; exit 1",
    perl: `exec '${findOnPath("perl", process.env.PATH)}' "$@" one-too-many`,
    deno: `run=$1; shift; exec '${findOnPath("deno", process.env.PATH)}' "$run" --deny-ffi "$@"`,
  };
  for (const [backend, program, name, breakIt] of cases) {
    it(`${backend} ${name}: a runner failure, not a denial, and nothing runs`, {
      skip: skipUnless(statuses, backend),
    }, async () => {
      using workspace = tempWorkspace();
      const fake = fakeProgram(
        workspace,
        program,
        `[ -e "$(dirname "$0")/broken" ] && { ${whenBroken[program]}; }; ` +
          `exec '${findOnPath(program, process.env.PATH)}' "$@"`,
      );
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        defaultMode: "workspace-write",
        backends: [backend],
        // Without PATH after it, a Landlock backend finds no perl: deno runs the launcher.
        searchPath: program === "deno" ? fake : `${fake}:${process.env.PATH}`,
      });
      const works = await executor.run(executor.resolve({ command: "touch before" }));
      assert.equal(works.exitCode, 0, works.stderr.text);
      if (backend === "landlock") assert.equal(works.sandbox?.enforcement?.launcher, program);
      breakIt(fake);
      // A standby started before the break runs the next call in the program
      // that worked (Landlock's deno, or bwrap itself, which a bwrap standby
      // runs before its call comes): it goes, so that the call starts the
      // broken way (one starting now starts broken).
      for (const pid of standbys(backend)) process.kill(pid, "SIGKILL");
      const result = await executor.run(
        executor.resolve({ command: "touch ran; echo x > /etc/shellseam-never" }),
      );
      assert.equal(existsSync(join(workspace.root, "ran")), false, "the command ran");
      assert.notEqual(result.exitCode, 0);
      assert.deepEqual(
        [result.sandbox?.backend, result.sandbox?.runnerFailed, result.sandbox?.denied],
        [backend, true, false],
        result.stderr.text,
      );
    });
  }
});

describe("the runtime of the Landlock launcher", { skip: noLandlock }, () => {
  it("is perl where one passes the launcher's self-check, else deno, as the facts say", async () => {
    using workspace = tempWorkspace();
    const run = async (searchPath?: string) => {
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        backends: ["landlock"],
        ...(searchPath === undefined ? {} : { searchPath }),
      });
      const result = await executor.run(executor.resolve({ command: "echo ran" }));
      assert.equal(result.stdout.text, "ran\n", result.stderr.text);
      return result.sandbox?.enforcement?.launcher;
    };
    assert.equal(await run(), findOnPath("perl", process.env.PATH) === null ? "deno" : "perl");
    // A perl first on the search path that fails the self-check (exits 0, prints nothing).
    const fake = fakeProgram(workspace, "perl", "exit 0");
    assert.equal(await run(`${fake}:${process.env.PATH}`), "deno");
  });
});

describe("the Deno Landlock launcher's file", { skip: noLandlock }, () => {
  it("is written again when an unconfined command changed or removed it", async () => {
    using workspace = tempWorkspace();
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      backends: ["landlock"],
      // No perl there: deno runs the launcher.
      searchPath: linkedPrograms(join(workspace.base, "bin"), ["deno", "unshare"]),
    });
    const first = await executor.run(executor.resolve({ command: 'echo "$TMPDIR"' }));
    assert.equal(first.exitCode, 0, first.stderr.text);
    assert.equal(first.sandbox?.enforcement?.launcher, "deno");
    // DENO_DIR beside TMPDIR in the executor's private folder.
    const file = join(first.stdout.text.trim(), "..", "deno", "landlock-launcher.mjs");
    const script = readFileSync(file, "utf8");
    for (const change of [() => writeFileSync(file, "Deno.exit(0);\n"), () => rmSync(file)]) {
      change();
      const result = await executor.run(executor.resolve({ command: "echo ran" }));
      assert.deepEqual([result.exitCode, result.stdout.text], [0, "ran\n"], result.stderr.text);
      assert.equal(result.sandbox?.backend, "landlock");
      assert.equal(readFileSync(file, "utf8"), script);
    }
  });
});

describe("runner failure wins over denial", () => {
  for (const backend of SANDBOX_BACKENDS) {
    const skip = skipUnless(statuses, backend);
    // The command prints what the backend prints when it breaks, plus a denial signature.
    const [line, code] = backend === "bwrap"
      ? ["bwrap: Can't mount tmpfs on /newroot/tmp: Read-only file system", 1]
      : ["shellseam-landlock: landlock_restrict_self failed (EPERM): Permission denied", 125];
    it(`over ${backend}`, { skip }, async () => {
      using workspace = tempWorkspace();
      await using executor = executorFor(backend, workspace);
      const result = await executor.run(
        executor.resolve({ command: `echo "${line}" >&2; exit ${code}` }),
      );
      assert.equal(result.exitCode, code);
      assert.equal(result.sandbox?.runnerFailed, true);
      assert.equal(result.sandbox?.denied, false);
    });
  }
});

describe("the backends option", () => {
  it("orders the backends: the first that works confines", {
    skip: noLandlock || noBwrap,
  }, async () => {
    using workspace = tempWorkspace();
    for (const order of [["landlock", "bwrap"], ["bwrap", "landlock"]] as const) {
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        backends: [...order],
      });
      const result = await executor.run(executor.resolve({ command: "true" }));
      assert.equal(result.sandbox?.backend, order[0]);
      assert.deepEqual((await executor.probeBackends()).map((s) => s.backend), order);
    }
  });

  for (const runtime of ["perl", "deno"] as const) {
    it(`passes over a backend whose ${runtime} lies in the workspace, for read-only calls too`, {
      skip: noLandlock || noBwrap ||
        (findOnPath(runtime, process.env.PATH) === null ? `no ${runtime} here` : false),
    }, async () => {
      using workspace = tempWorkspace();
      const bin = linkedPrograms(join(workspace.root, "bin"), [runtime]);
      // For deno: bwrap and unshare from a folder of their own, and no perl anywhere.
      const others = runtime === "perl"
        ? process.env.PATH
        : linkedPrograms(join(workspace.base, "others"), ["bwrap", "unshare"]);
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        backends: ["landlock", "bwrap"],
        searchPath: `${bin}:${others}`,
      });
      const policy = { workspaceRoot: workspace.root, network: "deny" } as const;
      const backendFor = async (mode: "read-only" | "workspace-write") =>
        (await executor.run(
          executor.resolve({ command: "true", sandboxPolicy: { mode, ...policy } }),
        ))
          .sandbox?.backend;
      assert.equal(await backendFor("workspace-write"), "bwrap");
      // A write call (under bwrap) replaces the runner; a read-only call after it must not run it.
      const canary = join(workspace.base, "canary");
      const plant = await executor.run(executor.resolve({
        command:
          `rm bin/${runtime} && printf '#!/bin/sh\\ntouch ${canary}\\n' > bin/${runtime} && ` +
          `chmod +x bin/${runtime}`,
        sandboxPolicy: { mode: "workspace-write", ...policy },
      }));
      assert.equal(plant.exitCode, 0, plant.stderr.text);
      assert.equal(await backendFor("read-only"), "bwrap");
      assert.equal(existsSync(canary), false, "the replaced runner ran unconfined");
    });
  }
});

describe("what a new executor runs before any call", () => {
  // A confined command of an earlier session planted it in the workspace's
  // node_modules/.bin, which `npm run` puts first on the search path.
  for (
    const [program, backend] of [["perl", "landlock"], ["deno", "landlock"], [
      "bwrap",
      "bwrap",
    ]] as const
  ) {
    it(`never runs a ${program} that lies in the workspace: ${backend} is passed over, naming it`, {
      skip: skipUnless(statuses, backend),
    }, async () => {
      using workspace = tempWorkspace();
      const { bin, planted, canary } = plantedProgram(workspace, program);
      // For deno: no perl anywhere on the search path, so the Deno launcher is the one run.
      const rest = program === "deno"
        ? linkedPrograms(join(workspace.base, "others"), ["bwrap", "unshare"])
        : process.env.PATH;
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        backends: [backend],
        searchPath: `${bin}:${rest}`,
      });
      const [status] = await executor.probeBackends();
      assert.equal(status?.works, false);
      assert.ok(
        status?.reason?.startsWith(
          `"${planted}" runs before the sandbox applies, and "${planted}" lies in the ` +
            `writable root "${workspace.root}"`,
        ),
        status?.reason,
      );
      await assert.rejects(
        executor.run(executor.resolve({ command: "true" })),
        (error: unknown) =>
          error instanceof SandboxUnavailableError &&
          error.message.includes(`install "${planted}" elsewhere`) &&
          error.attempts[0]?.reason === status?.reason,
      );
      // Disposal awaits what the executor started ahead (a standby execs bwrap as it starts).
      await executor[Symbol.asyncDispose]();
      assert.equal(existsSync(canary), false, "a planted program ran unconfined");
    });
  }

  it(
    "never runs a runner that an earlier call's writable root holds, whatever the roots of the call",
    {
      skip: noLandlock || noBwrap ||
        (findOnPath("perl", process.env.PATH) === null ? "no perl here" : false),
    },
    async () => {
      using workspace = tempWorkspace();
      const [a, b] = ["a", "b"].map((name) => join(workspace.base, name));
      mkdirSync(b!);
      const bin = linkedPrograms(join(a!, "bin"), ["perl"]);
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        backends: ["landlock", "bwrap"],
        searchPath: `${bin}:${process.env.PATH}`,
      });
      const run = async (command: string, writableRoots: string[]) => {
        const result = await executor.run(executor.resolve({
          command,
          sandboxPolicy: {
            mode: "workspace-write",
            workspaceRoot: workspace.root,
            network: "deny",
            writableRoots,
          },
        }));
        assert.equal(result.exitCode, 0, result.stderr.text);
        return result.sandbox?.backend;
      };
      assert.equal(await run("true", [b!]), "landlock");
      // A call that may write a replaces the perl there (under bwrap: its perl is exposed)...
      const canary = join(workspace.base, "canary");
      assert.equal(
        await run(
          `rm ${bin}/perl && printf '#!/bin/sh\\ntouch ${canary}\\n' > ${bin}/perl && chmod +x ${bin}/perl`,
          [a!],
        ),
        "bwrap",
      );
      // ...and a later call that may write b only must not run it.
      assert.equal(await run("true", [b!]), "bwrap");
      assert.equal(await run("true", [b!]), "bwrap");
      assert.equal(existsSync(canary), false, "the replaced runner ran unconfined");
    },
  );
});

/** The refusal to start the watchdog. */
const WATCHDOG_REFUSED =
  "The watchdog that kills commands when this process dies was not started, so no command runs";

/**
 * Asserts that a read-only and a workspace-write call of `executor` are both refused at the
 * watchdog's start, for a reason that starts with `reason`, and that nothing ran.
 */
async function assertWatchdogRefused(
  executor: SandboxBashExecutor,
  workspace: Workspace,
  reason: string,
): Promise<void> {
  for (const mode of ["read-only", "workspace-write"] as const) {
    await assert.rejects(
      executor.run(executor.resolve({
        command: "touch ran",
        sandboxPolicy: { mode, workspaceRoot: workspace.root, network: "deny" },
      })),
      (error: unknown) =>
        error instanceof BashSpawnError &&
        error.message.startsWith(`${WATCHDOG_REFUSED}: ${reason}`),
    );
  }
  assert.equal(existsSync(join(workspace.root, "ran")), false);
}

/** Runs `body` with `folder` first on this process's PATH (which an executor reads when made). */
async function withFirstOnPath(folder: string, body: () => Promise<void>): Promise<void> {
  const path = process.env.PATH;
  process.env.PATH = `${folder}:${path}`;
  try {
    await body();
  } finally {
    process.env.PATH = path;
  }
}

describe("the setsid binary in a call's writable roots", () => {
  it("passes every backend over for that call: it runs before any of them", {
    skip: noBwrap,
  }, async () => {
    using workspace = tempWorkspace();
    const setsid = findOnPath("setsid", process.env.PATH);
    assert.ok(setsid !== null);
    const bin = join(workspace.root, "bin");
    mkdirSync(bin);
    symlinkSync(setsid, join(bin, "setsid"));
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        backends: ["bwrap"],
        sessionStrategy: "setsid-binary",
      });
      assert.equal(executor.config.setsidPath, join(bin, "setsid"));
      // Read-only calls too: one planted there (by an earlier executor's call) would run
      // unconfined. The watchdog, which runs it first, is refused it.
      await assertWatchdogRefused(
        executor,
        workspace,
        `"${join(bin, "setsid")}" runs before the sandbox applies`,
      );
    } finally {
      process.env.PATH = path;
    }
  });
});

describe("what the host runs outside any sandbox, as it runs it", () => {
  /** Whether `error` is the refusal of `outcome` naming `program` in `root`. */
  const refusal = (error: unknown, outcome: string, program: string, root: string) =>
    error instanceof BashSpawnError && error.message.startsWith(`${outcome}: "${program}" runs`) &&
    error.message.includes(`lies in the writable root "${root}"`) &&
    error.message.includes(`install "${program}" elsewhere`);

  /** A "danger-full-access" call of `true`. */
  const fullAccess = (executor: SandboxBashExecutor, workspace: Workspace) =>
    executor.run(executor.resolve({
      command: "true",
      sandboxPolicy: { mode: "danger-full-access", workspaceRoot: workspace.root, network: "deny" },
    }));

  /**
   * Folders a and b beside the workspace's root, `program` in `<a>/bin` (linked to the one on
   * PATH), the canary (outside every root), a workspace-write policy that may write one more
   * root, and the command that replaces the program with a script that touches the canary.
   */
  function replaceable(workspace: Workspace, program: string) {
    const [a, b] = ["a", "b"].map((name) => join(workspace.base, name)) as [string, string];
    mkdirSync(b);
    const bin = linkedPrograms(join(a, "bin"), [program]);
    const path = join(bin, program);
    const canary = join(workspace.base, "canary");
    return {
      a,
      b,
      bin,
      path,
      canary,
      policy: (root: string): SandboxPolicy => ({
        mode: "workspace-write",
        workspaceRoot: workspace.root,
        network: "deny",
        writableRoots: [root],
      }),
      replace:
        `rm ${path} && printf '#!/bin/sh\\ntouch ${canary}\\n' > ${path} && chmod +x ${path}`,
    };
  }

  it("a bash an earlier session planted in the workspace never runs as the watchdog", {
    skip: noBwrap,
  }, async () => {
    using workspace = tempWorkspace();
    // node_modules/.bin first on PATH, as `npm run` puts it: the executor's bash is found there.
    const { bin, planted, canary } = plantedProgram(workspace, "bash");
    await withFirstOnPath(bin, async () => {
      await using executor = executorFor("bwrap", workspace);
      await assert.rejects(
        executor.run(executor.resolve({ command: "true" })),
        (error: unknown) => refusal(error, WATCHDOG_REFUSED, planted, workspace.root),
      );
      await assert.rejects(
        fullAccess(executor, workspace),
        (error: unknown) => refusal(error, WATCHDOG_REFUSED, planted, workspace.root),
      );
    });
    assert.equal(existsSync(canary), false, "the planted bash ran unconfined");
  });

  it("a bash replaced while a bwrap call ran never runs as the standby that call leaves", {
    skip: noBwrap || noLandlock,
  }, async () => {
    using workspace = tempWorkspace();
    const { a, b, bin, canary, policy, replace } = replaceable(workspace, "bash");
    // The end of the first bwrap standby spawned once armed (one that ran the replaced bash
    // ends once it touched the canary).
    let armed = false;
    const standbyEnd = Promise.withResolvers<unknown>();
    const watching: Runtime = {
      ...runtime,
      spawn: async (request) => {
        const child = await runtime.spawn(request);
        if (
          armed &&
          request.args.some((arg) =>
            arg.includes(STANDBY_TOKENS.bwrap) || arg.includes(SET_UP_TOKEN)
          )
        ) {
          standbyEnd.resolve(child.exited);
        }
        return child;
      },
    };
    await withFirstOnPath(bin, async () => {
      await using executor = new SandboxBashExecutor({
        workspaceRoot: workspace.root,
        backends: ["bwrap", "landlock"],
        runtime: watching,
      });
      // Planned while a was granted to none: under bwrap, whose bash (run unconfined by a
      // standby) is no call's to write yet.
      const first = await executor.start(executor.resolve({
        command: `until [ -e ${b}/go ]; do sleep 0.05; done`,
        sandboxPolicy: policy(b),
      }));
      const plant = await executor.run(
        executor.resolve({ command: replace, sandboxPolicy: policy(a) }),
      );
      assert.equal(plant.exitCode, 0, plant.stderr.text);
      assert.equal(plant.sandbox?.backend, "landlock");
      // The planting call's standby (Landlock's) took the place of the first call's; the
      // first call's end starts a bwrap standby again (at once), with the bash it was planned
      // with: its end, or 2 s from the first call's when none is spawned.
      armed = true;
      writeFileSync(join(b, "go"), "");
      await first.done;
      assert.equal(first.sandbox?.backend, "bwrap");
      await Promise.race([standbyEnd.promise, pause(2000)]);
    });
    assert.equal(existsSync(canary), false, "the replaced bash ran unconfined");
  });

  it("a runner replaced between a call's plan and its spawn is never run", {
    skip: noBwrap || noLandlock ||
      (findOnPath("perl", process.env.PATH) === null ? "no perl here" : false),
  }, async () => {
    using workspace = tempWorkspace();
    const { a, b, bin, path: perl, canary, policy, replace } = replaceable(workspace, "perl");
    // The call that runs "gated" waits, planned, until the gate opens (as for a long walk).
    const gate = Promise.withResolvers<void>();
    const planned = Promise.withResolvers<void>();
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      backends: ["landlock", "bwrap"],
      searchPath: `${bin}:${process.env.PATH}`,
      ...withPlan(async (spec, launch, limits, inner) => {
        const plan = await inner.plan(spec, launch, limits);
        if (spec.command === "gated") {
          planned.resolve();
          await gate.promise;
        }
        return plan;
      }),
    });
    // Planned while a was granted to none: under Landlock, whose perl lies in a.
    const gated = executor.run(executor.resolve({ command: "gated", sandboxPolicy: policy(b) }));
    await planned.promise;
    const plant = await executor.run(
      executor.resolve({ command: replace, sandboxPolicy: policy(a) }),
    );
    assert.equal(plant.exitCode, 0, plant.stderr.text);
    assert.equal(plant.sandbox?.backend, "bwrap");
    gate.resolve();
    await assert.rejects(
      gated,
      (error: unknown) =>
        error instanceof BashSpawnError &&
        error.message.startsWith(`The command was not run: "${perl}" runs`) &&
        error.message.includes(`lies in the writable root "${a}"`),
    );
    assert.equal(existsSync(canary), false, "the replaced runner ran unconfined");
  });

  describe("a bash that a call's writable root holds, replaced by that call", () => {
    /**
     * An executor (Landlock first: bash is no runner of it) whose bash is
     * `<a>/bash`, linked to the real one, with its watchdog started; then a
     * call that may write `a` replaces that bash with a script that touches
     * the canary, outside every root.
     */
    async function planted(
      workspace: Workspace,
      body: (
        executor: SandboxBashExecutor,
        bash: string,
        spawned: { line: string; pid: number }[],
      ) => Promise<void>,
    ): Promise<string> {
      const { a, bin, path: bash, canary, policy, replace } = replaceable(workspace, "bash");
      const { runtime: recorder, spawned } = recording();
      await withFirstOnPath(bin, async () => {
        await using executor = executorFor("landlock", workspace, { runtime: recorder });
        // The watchdog starts with the default policy's roots alone.
        assert.equal((await executor.probeBackends())[0]?.works, true);
        const plant = await executor.run(
          executor.resolve({ command: replace, sandboxPolicy: policy(a) }),
        );
        assert.equal(plant.exitCode, 0, plant.stderr.text);
        await body(executor, bash, spawned);
      });
      return canary;
    }

    it("is never run by the watchdog when it starts again", {
      skip: noLandlock,
    }, async () => {
      using workspace = tempWorkspace();
      const canary = await planted(workspace, async (executor, bash, spawned) => {
        const watchdog = spawned.find(({ line }) => line.includes(WATCHDOG_NAME));
        assert.ok(watchdog !== undefined, JSON.stringify(spawned));
        process.kill(watchdog.pid, "SIGKILL");
        await until(() => !runtime.kill(watchdog.pid, 0), "the watchdog's end");
        await assert.rejects(
          executor.run(executor.resolve({ command: "true" })),
          (error: unknown) => refusal(error, WATCHDOG_REFUSED, bash, join(workspace.base, "a")),
        );
      });
      assert.equal(existsSync(canary), false, "the replaced bash ran unconfined");
    });

    it("is never run by a danger-full-access call", {
      skip: noLandlock,
    }, async () => {
      using workspace = tempWorkspace();
      const canary = await planted(workspace, async (executor, bash) => {
        await assert.rejects(
          fullAccess(executor, workspace),
          (error: unknown) =>
            refusal(
              error,
              "The command was not run",
              bash,
              join(workspace.base, "a"),
            ),
        );
      });
      assert.equal(existsSync(canary), false, "the replaced bash ran unconfined");
    });
  });

  it(
    "a script an earlier session planted in the workspace never runs a danger-full-access terminal",
    {
      skip: noBwrap ||
        (findOnPath("script", process.env.PATH) === null && "needs util-linux script"),
    },
    async () => {
      using workspace = tempWorkspace();
      const { bin, planted, canary } = plantedProgram(workspace, "script");
      await withFirstOnPath(bin, async () => {
        await using executor = executorFor("bwrap", workspace);
        await assert.rejects(
          executor.start(executor.resolve({
            command: "true",
            terminal: { rows: 24, cols: 80 },
            sandboxPolicy: {
              mode: "danger-full-access",
              workspaceRoot: workspace.root,
              network: "deny",
            },
          })),
          (error: unknown) => refusal(error, "The command was not run", planted, workspace.root),
        );
      });
      assert.equal(existsSync(canary), false, "the planted script ran unconfined");
    },
  );
});

describe("the host's own tools and PATH", () => {
  it("a grep or stty planted in a writable folder of PATH is never run by the host", {
    skip: noBwrap || (findOnPath("script", process.env.PATH) === null && "needs util-linux script"),
  }, async () => {
    // A workspace's node_modules/.bin, which `npm run` puts first on PATH: empty
    // when the executor is made, planted by a confined command afterwards.
    using workspace = tempWorkspace();
    const bin = join(workspace.root, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    const ran = join(workspace.base, "ran-unconfined");
    await withFirstOnPath(bin, async () => {
      {
        await using executor = executorFor("bwrap", workspace, { defaultMode: "workspace-write" });
        for (const tool of ["grep", "rm", "sleep", "stty"]) {
          const real = findOnPath(tool, process.env.PATH);
          assert.ok(real !== null, tool);
          const plant = await executor.run(executor.resolve({
            command: `printf '#!/bin/sh\\necho ${tool} >> ${ran}\\nexec ${real} "$@"\\n' > ` +
              `node_modules/.bin/${tool} && chmod +x node_modules/.bin/${tool}`,
          }));
          assert.equal(plant.exitCode, 0, plant.stderr.text);
        }
        // The host resizes a terminal by stty; its watchdog runs grep as the executor goes.
        const inTerminal = await executor.start(executor.resolve({
          command: "echo ready; exec sleep 30",
          terminal: { rows: 24, cols: 80 },
        }));
        let seen = "";
        await until(() => (seen += inTerminal.readOutput().stdout.text).includes("ready"), "ready");
        await inTerminal.resize(30, 100);
        await inTerminal.kill();
      }
      assert.equal(
        existsSync(ran) ? readFileSync(ran, "utf8") : "",
        "",
        "the host ran a program a confined command planted",
      );
    });
  });

  it(
    "a folder of PATH that holds one of them, in a call's writable roots, passes every backend over",
    {
      skip: noBwrap,
    },
    async () => {
      using workspace = tempWorkspace();
      const bin = join(workspace.root, "bin");
      mkdirSync(bin);
      const stty = findOnPath("stty", process.env.PATH);
      assert.ok(stty !== null);
      symlinkSync(stty, join(bin, "stty"));
      await withFirstOnPath(bin, async () => {
        await using executor = executorFor("bwrap", workspace);
        assert.equal(executor.config.toolPath.split(":")[0], bin);
        // Read-only calls too: one planted there (by an earlier executor's call) would run
        // unconfined. The watchdog, which runs them first, is refused the folder.
        await assertWatchdogRefused(
          executor,
          workspace,
          `"${bin}" holds programs the host runs unconfined`,
        );
        assert.equal(existsSync(join(workspace.root, "ran")), false);
      });
    },
  );
});

describe("probeBackends", () => {
  it("reports each backend with its enforcement facts for the default policy", {
    skip: noLandlock || noBwrap,
  }, async () => {
    using workspace = tempWorkspace();
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      defaultMode: "danger-full-access",
      // With no limits at all, no limit gaps either.
      limits: { processes: null, memoryBytes: null, fileSizeBytes: null },
    });
    const [bwrap, landlock] = await executor.probeBackends();
    assert.deepEqual(bwrap, {
      backend: "bwrap",
      works: true,
      enforcement: {
        filesystem: "full",
        network: "full",
        gaps: [...protectionGaps(DEFAULT_PROTECTED_PATHS)],
      },
    });
    assert.equal(landlock?.works, true);
    assert.ok((landlock?.landlockAbi ?? 0) >= 1);
    // Facts for workspace-write when the default is danger-full-access: the
    // window in which a missing .git can be planted is named on both.
    assert.ok(landlock?.enforcement?.gaps.includes(protectionGaps(DEFAULT_PROTECTED_PATHS)[0]!));
  });
});

describe("protected paths", { skip: noBwrap }, () => {
  it("come from the config, or the call's policy; an empty list protects nothing", async () => {
    using workspace = tempWorkspace();
    await using executor = executorFor("bwrap", workspace, {
      defaultMode: "workspace-write",
      protectedPaths: [".envrc"],
    });
    const planted = await executor.run(executor.resolve({ command: "touch .envrc .git" }));
    assert.deepEqual(planted.sandbox?.violations?.map((v) => v.path), [
      join(workspace.root, ".envrc"),
    ]);
    assert.equal(existsSync(join(workspace.root, ".git")), true);
    rmSync(join(workspace.root, ".git"));
    const policy: SandboxPolicy = {
      mode: "workspace-write",
      workspaceRoot: workspace.root,
      network: "deny",
      protectedPaths: [],
    };
    const open = await executor.run(
      executor.resolve({ command: "touch .envrc", sandboxPolicy: policy }),
    );
    assert.equal(open.sandbox?.violations, undefined);
    assert.equal(existsSync(join(workspace.root, ".envrc")), true);
    assert.equal(open.sandbox?.enforcement?.gaps.some((gap) => gap.includes("protected")), false);
  });

  it("read-only calls write nowhere, so nothing is walked, moved or named", async () => {
    using workspace = tempWorkspace();
    await using executor = executorFor("bwrap", workspace);
    const result = await executor.run(executor.resolve({ command: "git init -q ." }));
    assert.notEqual(result.exitCode, 0);
    assert.equal(result.sandbox?.violations, undefined);
    assert.equal(result.sandbox?.enforcement?.gaps.some((gap) => gap.includes("protected")), false);
  });

  it("a plant past the walk's depth is moved away, and the bound the command pushed the walk to is a violation", async () => {
    using workspace = tempWorkspace();
    await using executor = executorFor("bwrap", workspace, { defaultMode: "workspace-write" });
    const deep = join(...Array(PROTECTED_WALK_DEPTH + 1).fill("d"));
    const result = await executor.run(executor.resolve({ command: `mkdir -p ${deep}/.git` }));
    const violations = result.sandbox?.violations ?? [];
    assert.deepEqual(violations.map(({ path, walkBound }) => ({ path, walkBound })), [
      { path: workspace.root, walkBound: "depth" },
      { path: join(workspace.root, deep, ".git"), walkBound: undefined },
    ]);
    assert.ok(violations[1]?.quarantinedTo !== null && existsSync(violations[1]!.quarantinedTo));
    assert.ok(!existsSync(join(workspace.root, deep, ".git")));
    const gaps = result.sandbox?.enforcement?.gaps ?? [];
    for (
      const gap of protectionGaps(DEFAULT_PROTECTED_PATHS, [{
        root: workspace.root,
        bound: "depth",
      }])
    ) {
      assert.ok(gaps.includes(gap), gap);
    }
  });
});

describe("the default policy's protected paths", () => {
  it("are copied into each spec, frozen, so no spec can change another", async () => {
    using workspace = tempWorkspace();
    await using executor = new SandboxBashExecutor({
      workspaceRoot: workspace.root,
      protectedPaths: [".git", ".envrc"],
    });
    const first = executor.resolve({ command: "true" });
    assert.throws(() => first.sandboxPolicy?.protectedPaths?.push(".vscode"), TypeError);
    assert.deepEqual(executor.resolve({ command: "true" }).sandboxPolicy?.protectedPaths, [
      ".git",
      ".envrc",
    ]);
    assert.throws(
      () => new SandboxBashExecutor({ workspaceRoot: workspace.root, protectedPaths: ["/etc"] }),
      BashConfigError,
    );
  });
});
