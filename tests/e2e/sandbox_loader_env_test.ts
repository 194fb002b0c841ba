// The programs that run before confinement (the setsid binary, bwrap's
// wrapper shell, bwrap, the perl or deno that runs the Landlock launcher) must not
// load what a confined command can plant: an agent running with
// LD_LIBRARY_PATH and LD_PRELOAD into its workspace gets fake copies of a
// library each of them really loads, whose constructor writes a canary
// outside the workspace. No canary may appear, as root and as nobody; the
// command inside still sees both variables.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chownSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import type { SandboxBackendName } from "../../sandbox/mod.ts";
import {
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  tempWorkspace,
  type Workspace,
} from "../sandbox/_fixtures.ts";

const statuses = await probeHere();
const NOBODY = 65534;
const deno = findDeno(process.env.PATH);
const tools = ["cc", "ldd", "readelf", "setpriv"];
const missingTool = tools.find((tool) => findOnPath(tool, process.env.PATH) === null);
const skip = !("Deno" in globalThis)
  ? "runs a Deno script over the TypeScript sources, which only a Deno checkout has"
  : process.getuid?.() !== 0
  ? "needs root to run the agent as root and as nobody"
  : missingTool !== undefined
  ? `"${missingTool}" is not installed here; install it (build-essential, binutils, util-linux)`
  : "reason" in deno
  ? deno.reason
  : false;

/** The runners of each backend, each with the first library `ldd` shows it loads (not libc). */
function runners(backend: SandboxBackendName): string[] {
  const programs = [findOnPath("setsid", process.env.PATH), findOnPath("bash", process.env.PATH)];
  const denoPath = "reason" in deno ? null : deno.path;
  // Landlock's launcher runs under perl where one passes its self-check, else under deno.
  if (backend === "bwrap") programs.push(findOnPath("bwrap", process.env.PATH));
  else programs.push(findOnPath("perl", process.env.PATH), denoPath);
  return programs.filter((program): program is string => program !== null);
}

/** The first library `program` loads that is not libc, the loader or the vDSO, with its path. */
function loadedLibrary(program: string): { soname: string; path: string } | undefined {
  const out = spawnSync("ldd", [program], { encoding: "utf8" }).stdout;
  for (const match of out.matchAll(/^\s*(\S+) => (\/\S+)/gm)) {
    const [, soname, path] = match;
    if (!/^(?:libc|libdl|libm|librt|libpthread)\.so/.test(soname!)) {
      return { soname: soname!, path: path! };
    }
  }
  return undefined;
}

/** The symbol versions `program` needs from the library `soname`. */
function versionsNeeded(program: string, soname: string): string[] {
  const out = spawnSync("readelf", ["-V", "--wide", program], { encoding: "utf8" }).stdout;
  const versions: string[] = [];
  let file = "";
  for (const line of out.split("\n")) {
    const needed = line.match(/File: (\S+)/);
    if (needed) file = needed[1]!;
    const name = line.match(/^\s*0x[0-9a-f]+:\s+Name: (\S+)/);
    if (name && file === soname) versions.push(name[1]!);
  }
  return versions;
}

/** cc, or a failed assertion with its output. */
function cc(args: string[]): void {
  const result = spawnSync("cc", args, { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
}

const CANARY_SOURCE = (dir: string) => `
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void canary(void) {
  char exe[256] = {0}, path[512];
  readlink("/proc/self/exe", exe, sizeof exe - 1);
  const char *slash = exe;
  for (const char *p = exe; *p; p++) if (*p == '/') slash = p + 1;
  snprintf(path, sizeof path, "%s/%s.%d", ${JSON.stringify(dir)}, slash, (int)getpid());
  int fd = open(path, O_WRONLY | O_CREAT, 0644);
  if (fd >= 0) close(fd);
}
`;

/**
 * Builds, in `libDir`, a fake copy of each library the runners load (a
 * constructor that drops a canary in `canaryDir`, the symbol versions the
 * runner needs, and the real library as a dependency, so the runner works)
 * and `preload.so` for LD_PRELOAD.
 */
function plantLibraries(
  workspace: Workspace,
  libDir: string,
  canaryDir: string,
  programs: string[],
) {
  const build = join(workspace.base, "build");
  mkdirSync(build, { recursive: true });
  mkdirSync(libDir, { recursive: true });
  const source = join(build, "canary.c");
  writeFileSync(source, CANARY_SOURCE(canaryDir));
  cc(["-shared", "-fPIC", "-o", join(libDir, "preload.so"), source]);
  for (const program of programs) {
    const library = loadedLibrary(program);
    if (library === undefined) continue;
    // An empty library whose soname is the real library's path: the fake
    // then needs the real one by path, not by the name it takes over.
    const stub = join(build, `stub-${library.soname}`);
    writeFileSync(join(build, "empty.c"), "");
    cc(["-shared", "-fPIC", "-o", stub, join(build, "empty.c"), `-Wl,-soname,${library.path}`]);
    const map = join(build, `${library.soname}.map`);
    writeFileSync(map, versionsNeeded(program, library.soname).map((v) => `${v} { };\n`).join(""));
    cc([
      "-shared",
      "-fPIC",
      "-o",
      join(libDir, library.soname),
      source,
      `-Wl,--version-script=${map}`,
      `-Wl,-soname,${library.soname}`,
      "-Wl,--no-as-needed",
      stub,
    ]);
  }
}

/** Gives `path` and everything beneath it to nobody. */
function giveToNobody(path: string): void {
  chownSync(path, NOBODY, NOBODY);
  for (const name of readdirSync(path, { recursive: true, encoding: "utf8" })) {
    chownSync(join(path, name), NOBODY, NOBODY);
  }
}

for (const backend of SANDBOX_BACKENDS) {
  for (const user of ["root", "nobody"] as const) {
    describe(`programs run before confinement over ${backend}, as ${user}`, {
      skip: skip || skipUnless(statuses, backend),
    }, () => {
      it("load nothing from LD_LIBRARY_PATH or LD_PRELOAD; the command still sees both", async () => {
        assert.ok(!("reason" in deno));
        using workspace = tempWorkspace();
        const libDir = join(workspace.root, "lib");
        const canaryDir = join(workspace.base, "canary");
        mkdirSync(canaryDir);
        const programs = runners(backend);
        plantLibraries(workspace, libDir, canaryDir, programs);
        const planted = readdirSync(libDir).sort();
        assert.ok(planted.length >= programs.length, `fakes built: ${planted}`);
        const home = join(workspace.base, "home");
        mkdirSync(home);
        if (user === "nobody") giveToNobody(workspace.base);
        const script = fileURLToPath(new URL("./_loader_probe.ts", import.meta.url));
        await using runner = new LocalBashExecutor({ cwd: workspace.base });
        const preload = join(libDir, "preload.so");
        const setpriv = user === "nobody"
          ? `setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups `
          : "";
        const result = await runner.run(runner.resolve({
          command: `exec ${setpriv}"$DENO" run --no-config --no-lock --allow-all "$SCRIPT" ` +
            `"$BACKEND" "$WORKSPACE" "$LIBS" "$PRELOAD"`,
          env: {
            DENO: deno.path,
            SCRIPT: script,
            BACKEND: backend,
            WORKSPACE: workspace.root,
            LIBS: libDir,
            PRELOAD: preload,
            HOME: home,
            DENO_DIR: join(home, "deno-dir"),
            TMPDIR: home,
          },
          timeoutMs: 120_000,
        }));
        assert.equal(result.exitCode, 0, result.stderr.text);
        const calls = JSON.parse(result.stdout.text) as {
          exitCode: number;
          stdout: string;
          stderr: string;
          backend: string;
        }[];
        for (const call of calls) {
          assert.equal(call.backend, backend);
          assert.equal(call.exitCode, 0, call.stderr);
          assert.equal(call.stdout, `${libDir}|${preload}`);
        }
        assert.deepEqual(readdirSync(canaryDir), [], "a planted library ran unconfined");
      });
    });
  }
}
