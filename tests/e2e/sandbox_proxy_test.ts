// Network allow-lists over each backend: a local HTTP server stands in for
// the internet (a fake resolver in the proxy gives it its names); commands
// reach an allowed name through the proxy with curl (HTTP, CONNECT, SOCKS5),
// git, npm and pip; a denied name and a raw IP are refused and reported; a
// direct connection that ignores the proxy variables, and a Unix socket,
// fail; the proxy stops with the executor.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  lchownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { fileURLToPath } from "node:url";
import type { BashSandboxInfo } from "../../seam/mod.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { findDeno } from "../../sandbox/backends/landlock/_deno.ts";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import process from "node:process";
import { findOnPath } from "../../engine/_session.ts";
import type { SandboxBashExecutorConfig } from "../../sandbox/mod.ts";
import { MAX_LAUNCH_CONNECTIONS, PROXY_OPTIONS } from "../../sandbox/network/_proxy.ts";
import { cgroupSupport } from "../../engine/_cgroup_support.ts";
import { findBridgeTools } from "../../sandbox/network/_bridge.ts";
import {
  executorFor,
  probeHere,
  SANDBOX_BACKENDS_HERE,
  skipUnless,
  tempWorkspace,
  type Workspace,
} from "../sandbox/_fixtures.ts";
import { fakeResolve, startInternet } from "../sandbox/network/_internet.ts";
import { renderRunResult } from "../../tool/mod.ts";
import { until } from "../local/_helpers.ts";

const statuses = await probeHere();
const tools = findBridgeTools(process.env.PATH ?? "", process.getuid?.() === 0);
const missing = (name: string) =>
  findOnPath(name, process.env.PATH ?? "") === null ? `${name} is not installed here` : false;
const bridgeSkip = "reason" in tools ? tools.reason : missing("curl");
/**
 * The interpreter itself, not a version manager's shim (pyenv's rehashes
 * after pip installs), when it has pip (Debian's python3 comes without it),
 * else undefined: one run that imports pip (`python3 -m pip --version` took about
 * half a second of CPU more).
 */
function pipPython(): string | undefined {
  try {
    return execFileSync("python3", ["-c", "import sys, pip; print(sys.executable)"], {
      stdio: ["ignore", "pipe", "ignore"],
    }).toString().trim();
  } catch {
    return undefined;
  }
}
const withPip = missing("python3") ? undefined : pipPython();
const toolsSkip = missing("git") || missing("npm") || missing("python3") ||
  (withPip === undefined ? "pip is not installed here (python3 -m pip)" : false);
const python = withPip ?? "python3";

/** Files the stand-in serves by path: a bare git repository, an npm tarball, a wheel. */
function packages(dir: string, origin: () => string): Map<string, () => Uint8Array | string> {
  const files = new Map<string, () => Uint8Array | string>();
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "pipe" });
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "README"), "cloned through the proxy\n");
  git("-C", "src", "init", "-q");
  git("-C", "src", "-c", "user.name=t", "-c", "user.email=t@t", "add", "README");
  git("-C", "src", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
  git("clone", "-q", "--bare", "src", "repo.git");
  git("-C", "repo.git", "update-server-info");
  const walk = (relative: string) => {
    const path = join(dir, relative);
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else files.set(`/${child}`, () => readFileSync(join(dir, child)));
    }
  };
  walk("repo.git");
  // npm: one package's metadata and tarball.
  mkdirSync(join(dir, "package"));
  writeFileSync(
    join(dir, "package", "package.json"),
    JSON.stringify({ name: "tiny-pkg", version: "1.0.0", main: "index.js" }),
  );
  writeFileSync(join(dir, "package", "index.js"), "module.exports = 'tiny';\n");
  execFileSync("tar", ["czf", "tiny-pkg-1.0.0.tgz", "package"], { cwd: dir });
  const tarball = readFileSync(join(dir, "tiny-pkg-1.0.0.tgz"));
  files.set("/tiny-pkg/-/tiny-pkg-1.0.0.tgz", () => tarball);
  files.set("/tiny-pkg", () =>
    JSON.stringify({
      name: "tiny-pkg",
      "dist-tags": { latest: "1.0.0" },
      versions: {
        "1.0.0": {
          name: "tiny-pkg",
          version: "1.0.0",
          main: "index.js",
          dist: {
            tarball: `${origin()}/tiny-pkg/-/tiny-pkg-1.0.0.tgz`,
            shasum: createHash("sha1").update(tarball).digest("hex"),
            integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
          },
        },
      },
    }));
  // pip: a simple index with one wheel.
  const wheel = "tiny_pkg-1.0-py3-none-any.whl";
  execFileSync("python3", [
    "-c",
    "import zipfile, sys\n" +
    "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n" +
    "  z.writestr('tiny_pkg/__init__.py', 'VALUE = \"from pip\"\\n')\n" +
    "  z.writestr('tiny_pkg-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: tiny-pkg\\nVersion: 1.0\\n')\n" +
    "  z.writestr('tiny_pkg-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n" +
    "  z.writestr('tiny_pkg-1.0.dist-info/RECORD', '')\n",
    join(dir, wheel),
  ]);
  const wheelBytes = readFileSync(join(dir, wheel));
  const sha = createHash("sha256").update(wheelBytes).digest("hex");
  files.set(`/files/${wheel}`, () => wheelBytes);
  files.set(
    "/simple/tiny-pkg/",
    () => `<html><body><a href="/files/${wheel}#sha256=${sha}">${wheel}</a></body></html>`,
  );
  return files;
}

/** A workspace-write executor on `backend` whose network is `allow` (the fake internet's names). */
function proxied(backend: (typeof SANDBOX_BACKENDS_HERE)[number], workspace: Workspace) {
  return executorFor(backend, workspace, {
    defaultMode: "workspace-write",
    network: { allow: ["allowed.test", "*.allowed.test", "127.0.0.1"], deny: ["bad.allowed.test"] },
    [PROXY_OPTIONS]: { resolve: fakeResolve },
  } as Partial<SandboxBashExecutorConfig>);
}

for (const backend of SANDBOX_BACKENDS_HERE) {
  describe(`network allow-list through the proxy (${backend})`, {
    skip: skipUnless(statuses, backend) || bridgeSkip,
  }, () => {
    it("reaches an allowed name with curl over HTTP, CONNECT and SOCKS5", async () => {
      await using internet = await startInternet();
      using workspace = tempWorkspace();
      await using executor = proxied(backend, workspace);
      const url = `http://allowed.test:${internet.port}`;
      const result = await executor.run(executor.resolve({
        command: `curl -sS ${url}/plain && curl -sS -p ${url}/tunnel && ` +
          `curl -sS -x "$ALL_PROXY" http://also.allowed.test:${internet.port}/socks`,
      }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(
        result.stdout.text,
        `hello allowed.test:${internet.port} /plain\nhello allowed.test:${internet.port} /tunnel\n` +
          `hello also.allowed.test:${internet.port} /socks\n`,
      );
      assert.equal(result.sandbox?.denied, false);
      assert.equal(result.sandbox?.refusedDestinations, undefined);
      // The bridge holds no output: nothing was left running.
      assert.deepEqual(result.strays, { killed: 0, survivors: [] });
      const state = await executor.networkProxyState();
      assert.equal(state?.listening, true);
    });

    it("refuses a denied name and a raw IP, and reports them per call", async () => {
      await using internet = await startInternet();
      using workspace = tempWorkspace();
      await using executor = proxied(backend, workspace);
      const [evil, raw, ok] = await Promise.all([
        executor.run(executor.resolve({
          command: `curl -sS -f http://evil.test:${internet.port}/ ; ` +
            `curl -sS -f -p http://bad.allowed.test:${internet.port}/`,
        })),
        executor.run(
          executor.resolve({ command: `curl -sS -f http://10.9.8.7:${internet.port}/` }),
        ),
        executor.run(
          executor.resolve({ command: `curl -sS -f http://allowed.test:${internet.port}/` }),
        ),
      ]);
      assert.notEqual(evil.exitCode, 0);
      assert.equal(evil.sandbox?.denied, true);
      assert.equal(evil.sandbox?.denial, "network");
      assert.deepEqual(evil.sandbox?.refusedDestinations, ["evil.test", "bad.allowed.test"]);
      assert.deepEqual(raw.sandbox?.refusedDestinations, ["10.9.8.7"]);
      assert.equal(raw.sandbox?.denial, "network");
      assert.equal(ok.exitCode, 0, ok.stderr.text);
      assert.equal(ok.sandbox?.refusedDestinations, undefined);
      assert.deepEqual(internet.hosts, [`allowed.test:${internet.port}`]);
      // Each settled launch's credentials are dropped.
      assert.equal((await executor.networkProxyState())?.launches, 0);
      const { text } = renderRunResult(evil);
      assert.match(text, /\[sandbox: network access to evil\.test denied by policy\]/);
      assert.match(text, /\[sandbox: network access to bad\.allowed\.test denied by policy\]/);
    });

    it("leaves no way out that ignores the proxy, and no Unix socket", async () => {
      await using internet = await startInternet();
      using workspace = tempWorkspace();
      await using executor = proxied(backend, workspace);
      const state = await executor.run(executor.resolve({ command: "true" }));
      assert.equal(state.exitCode, 0, state.stderr.text);
      const socket = join((await executor.networkProxyState())?.socketDir ?? "", "any.sock");
      const direct = await executor.run(executor.resolve({
        command: `curl -sS --noproxy '*' http://127.0.0.1:${internet.port}/direct; ` +
          `echo > /dev/tcp/127.0.0.1/${internet.port} && echo CONNECTED; ` +
          `python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("${socket}"); print("UNIX")'`,
      }));
      assert.doesNotMatch(direct.stdout.text, /hello|CONNECTED|UNIX/);
      assert.match(direct.stderr.text, /Couldn't connect|Connection refused/);
      assert.match(direct.stderr.text, /PermissionError/);
      assert.deepEqual(internet.hosts, []);
    });

    it("reaches an allowed name with git, npm and pip", { skip: toolsSkip }, async () => {
      using workspace = tempWorkspace();
      const served = join(workspace.base, "served");
      mkdirSync(served);
      let origin = "";
      const files = packages(served, () => origin);
      await using internet = await startInternet((request, response) => {
        const path = (request.url ?? "").split("?")[0] ?? "";
        const body = files.get(path);
        if (body === undefined) return false;
        if (path.startsWith("/simple/")) response.setHeader("content-type", "text/html");
        response.end(body());
        return true;
      });
      origin = `http://allowed.test:${internet.port}`;
      await using executor = proxied(backend, workspace);
      const result = await executor.run(executor.resolve({
        command: `set -e; git clone -q ${origin}/repo.git cloned && cat cloned/README; ` +
          `npm install --registry ${origin}/ --cache "$TMPDIR/npm" --no-audit --no-fund ` +
          `--no-update-notifier --loglevel=error tiny-pkg >/dev/null && ` +
          `node -p 'require("tiny-pkg")'; ` +
          `PIP_CONFIG_FILE=/dev/null ${python} -m pip install -q --no-cache-dir --disable-pip-version-check --index-url ` +
          `${origin}/simple/ --trusted-host allowed.test --target "$TMPDIR/py" tiny-pkg && ` +
          `PYTHONPATH="$TMPDIR/py" ${python} -c 'import tiny_pkg; print(tiny_pkg.VALUE)'`,
        timeoutMs: 120_000,
      }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      assert.equal(result.stdout.text, "cloned through the proxy\ntiny\nfrom pip\n");
      assert.equal(result.sandbox?.refusedDestinations, undefined);
    });

    it("keeps a background command's credentials until it settles", async () => {
      await using internet = await startInternet();
      using workspace = tempWorkspace();
      await using executor = proxied(backend, workspace);
      const task = await executor.start(executor.resolve({
        command: `read -r _; curl -sS http://allowed.test:${internet.port}/late; ` +
          `curl -sS -f http://evil.test:${internet.port}/`,
        keepStdinOpen: true,
      }));
      assert.equal((await executor.networkProxyState())?.launches, 1);
      await task.write("go\n");
      await task.done;
      assert.equal(task.readOutput().stdout.text, `hello allowed.test:${internet.port} /late\n`);
      assert.deepEqual(task.sandbox?.refusedDestinations, ["evil.test"]);
      assert.equal(task.sandbox?.denial, "network");
      assert.equal((await executor.networkProxyState())?.launches, 0);
    });

    it("shows no call's credentials or environment on a command line, and a token opens nothing on another call's socket", async () => {
      await using internet = await startInternet();
      using workspace = tempWorkspace();
      await using executor = proxied(backend, workspace);
      const wide = {
        allow: ["allowed.test", "evil.test", "127.0.0.1"],
      };
      const secret = `per-call-${crypto.randomUUID()}`;
      // Call A: a wider list, a per-call env value; it says its proxy URL and waits.
      const a = await executor.start(executor.resolve({
        command: 'printf %s "$HTTP_PROXY" > a.url; exec sleep 60',
        env: { CALL_SECRET: secret },
        sandboxPolicy: { ...executor.defaultPolicy, network: wide },
      }));
      const url = join(workspace.root, "a.url");
      await until(() => existsSync(url) && readFileSync(url, "utf8") !== "", "a.url");
      const token = new URL(readFileSync(url, "utf8")).password;
      assert.match(token, /^[0-9a-f]{32}$/);
      writeFileSync(join(workspace.root, "needles.txt"), `${token}\n${secret}\n`);
      // Call B: reads every command line and environment it can, looking for A's.
      const scan = await executor.run(executor.resolve({
        command: "python3 -c '\n" +
          "import os\n" +
          'needles = open("needles.txt").read().split()\n' +
          'pids = [p for p in os.listdir("/proc") if p.isdigit()]\n' +
          "for p in pids:\n" +
          '  for f in ("cmdline", "environ"):\n' +
          '    try: text = open(f"/proc/{p}/{f}", "rb").read().decode("latin1")\n' +
          "    except OSError: continue\n" +
          '    if any(n in text for n in needles): print("found", p, f)\n' +
          'print("scanned", len(pids))\'',
      }));
      assert.equal(scan.exitCode, 0, scan.stderr.text);
      assert.match(scan.stdout.text, /^scanned \d+\n$/, scan.stdout.text);
      // From the host, as any local user (ps auxww) and root: no command line holds
      // them, and no environment but the command's own.
      const found: string[] = [];
      for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
        const read = (file: string) => {
          try {
            return readFileSync(`/proc/${pid}/${file}`, "latin1");
          } catch {
            return "";
          }
        };
        const cmdline = read("cmdline");
        if (cmdline.includes(token) || cmdline.includes(secret)) found.push(`${pid} cmdline`);
        const environ = read("environ");
        if (
          !environ.includes("SHELLSEAM_WATCHDOG=") &&
          (environ.includes(token) || environ.includes(secret))
        ) found.push(`${pid} environ: ${cmdline.replaceAll("\0", " ").slice(0, 200)}`);
      }
      assert.deepEqual(found, []);
      // Call B presenting A's token: its own socket refuses it, while A runs and after.
      const steal = `curl -sS -o /dev/null -w '%{http_code}\\n' ` +
        `-x "http://shellseam:$A_TOKEN@127.0.0.1:3128" http://evil.test:${internet.port}/stolen`;
      const during = await executor.run(
        executor.resolve({ command: steal, env: { A_TOKEN: token } }),
      );
      assert.equal(during.stdout.text, "407\n", during.stderr.text);
      await a.kill();
      await a.done;
      assert.equal(a.sandbox?.refusedDestinations, undefined);
      const after = await executor.run(
        executor.resolve({ command: steal, env: { A_TOKEN: token } }),
      );
      assert.equal(after.stdout.text, "407\n", after.stderr.text);
      assert.deepEqual(internet.hosts, []);
    });

    it(
      `bounds a command's connections: ${MAX_LAUNCH_CONNECTIONS} at most, and the bridge counts against its process limit`,
      {
        skip: "unavailable" in cgroupSupport().processes
          ? "no cgroup this process can make for processes here"
          : false,
      },
      async () => {
        await using internet = await startInternet();
        using workspace = tempWorkspace();
        await using executor = proxied(backend, workspace);
        // 150 connections, each a CONNECT tunnel it holds open; it says what each got.
        const hold = (file: string) =>
          "exec python3 -c '\n" +
          "import base64, os, socket, time, urllib.parse\n" +
          'u = urllib.parse.urlsplit(os.environ["HTTP_PROXY"])\n' +
          'auth = base64.b64encode(f"{u.username}:{u.password}".encode()).decode()\n' +
          "held, codes = [], {}\n" +
          "for i in range(150):\n" +
          "  try:\n" +
          '    s = socket.create_connection(("127.0.0.1", 3128), timeout=5)\n' +
          `    s.sendall(f"CONNECT allowed.test:${internet.port} HTTP/1.1\\r\\n` +
          'Proxy-Authorization: Basic {auth}\\r\\n\\r\\n".encode())\n' +
          '    key = s.recv(64).split(b" ")[1].decode() or "closed"\n' +
          '    held.append(s) if key == "200" else s.close()\n' +
          "  except (OSError, IndexError) as error:\n" +
          "    key = type(error).__name__\n" +
          "  codes[key] = codes.get(key, 0) + 1\n" +
          `open("${file}.tmp", "w").write(repr(sorted(codes.items())))\n` +
          `os.rename("${file}.tmp", "${file}")\n` +
          "time.sleep(120)'";
        const observe = async (file: string) => {
          const path = join(workspace.root, file);
          await until(() => existsSync(path), file);
          const state = await executor.networkProxyState();
          const bridges = readdirSync("/proc").filter((pid) => {
            try {
              const cmdline = readFileSync(`/proc/${pid}/cmdline`, "latin1");
              return cmdline.includes(`UNIX-CONNECT:${state?.socketDir}/`);
            } catch {
              return false;
            }
          });
          return { codes: readFileSync(path, "utf8"), connections: state?.connections, bridges };
        };
        const limited = await executor.start(executor.resolve({
          command: hold("limited.txt"),
          limits: { processes: 60 },
        }));
        const small = await observe("limited.txt");
        // The bridge's processes are the command's: together they stay under 60.
        assert.ok(small.bridges.length < 60, `${small.bridges.length} bridge processes`);
        assert.ok(
          (small.connections ?? 0) < 60,
          `${small.connections} connections: ${small.codes}`,
        );
        await limited.kill();
        await limited.done;
        const open = await executor.start(executor.resolve({ command: hold("open.txt") }));
        const wide = await observe("open.txt");
        // Past the bound, the client is told, and the connection goes.
        const codes = new Map(
          [...wide.codes.matchAll(/\('(\w+)', (\d+)\)/g)].map((
            [, key, count],
          ) => [key, Number(count)]),
        );
        assert.equal(codes.get("200"), MAX_LAUNCH_CONNECTIONS, wide.codes);
        assert.equal(codes.get("503"), 150 - MAX_LAUNCH_CONNECTIONS, wide.codes);
        assert.ok(
          (wide.connections ?? 0) <= MAX_LAUNCH_CONNECTIONS,
          `${wide.connections} connections`,
        );
        await open.kill();
        await open.done;
      },
    );

    it("lets no command connect to another's proxy socket, even with Unix sockets open to it", async () => {
      using workspace = tempWorkspace();
      await using executor = proxied(backend, workspace);
      const a = await executor.start(executor.resolve({ command: "exec sleep 60" }));
      const dir = (await executor.networkProxyState())?.socketDir ?? "";
      const [name] = readdirSync(dir);
      const socket = join(dir, name ?? "");
      const b = await executor.run(executor.resolve({
        command: `ls '${dir}'; python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); ` +
          `s.connect("${socket}"); print("UNIX")'`,
        sandboxPolicy: { ...executor.defaultPolicy, network: "allow" },
      }));
      assert.doesNotMatch(b.stdout.text, /UNIX|\.sock/);
      assert.match(b.stderr.text, /Permission denied/);
      assert.match(b.stderr.text, /PermissionError/);
      await a.kill();
      await a.done;
    });

    it("listens again when an unconfined command removed the private folder", async () => {
      await using internet = await startInternet();
      using workspace = tempWorkspace();
      await using executor = proxied(backend, workspace);
      const url = `http://allowed.test:${internet.port}`;
      const first = await executor.run(executor.resolve({ command: `curl -sS ${url}/one` }));
      assert.equal(first.exitCode, 0, first.stderr.text);
      const socket = (await executor.networkProxyState())?.socketDir ?? "";
      const removed = await executor.run(executor.resolve({
        command: `rm -rf '${dirname(socket)}'`,
        sandboxPolicy: { ...executor.defaultPolicy, mode: "danger-full-access" },
      }));
      assert.equal(removed.exitCode, 0, removed.stderr.text);
      assert.equal(existsSync(socket), false);
      const again = await executor.run(executor.resolve({ command: `curl -sS ${url}/two` }));
      assert.equal(again.exitCode, 0, again.stderr.text);
      assert.equal(again.stdout.text, `hello allowed.test:${internet.port} /two\n`);
    });

    it("gives each command a socket of its own, removed when it settles, and stops the proxy with the executor", async () => {
      using workspace = tempWorkspace();
      const executor = proxied(backend, workspace);
      const result = await executor.run(executor.resolve({ command: "true" }));
      assert.equal(result.exitCode, 0, result.stderr.text);
      const dir = (await executor.networkProxyState())?.socketDir ?? "";
      assert.deepEqual(readdirSync(dir), [], "a settled command's socket is gone");
      const task = await executor.start(executor.resolve({ command: "sleep 60" }));
      const [name, ...others] = readdirSync(dir);
      assert.deepEqual(others, []);
      const socket = join(dir, name ?? "");
      assert.ok(existsSync(socket));
      await executor[Symbol.asyncDispose]();
      await task.done;
      assert.equal(existsSync(socket), false);
      assert.equal((await executor.networkProxyState())?.listening, false);
      const refused = await new Promise<string>((resolve) => {
        const client = connect(socket);
        client.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? ""));
        client.on("connect", () => resolve("connected"));
      });
      assert.equal(refused, "ENOENT");
    });
  });
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NOBODY = 65534;
const deno = findDeno(process.env.PATH);
const nobodySkip = !("Deno" in globalThis)
  ? "runs a Deno script over the TypeScript sources, which only a Deno checkout has"
  : process.getuid?.() !== 0 || findOnPath("setpriv", process.env.PATH) === null
  ? "needs root and util-linux setpriv to run the executor as nobody"
  : "reason" in deno
  ? deno.reason
  : bridgeSkip;

describe("network allow-list for a user who is not root", { skip: nobodySkip }, () => {
  it("reaches an allowed name and refuses the rest on each backend that works", async () => {
    assert.ok(!("reason" in deno));
    await using internet = await startInternet();
    using workspace = tempWorkspace();
    const home = join(workspace.base, "home");
    mkdirSync(home);
    const script = join(workspace.base, "nonroot.ts");
    writeFileSync(
      script,
      `import { SandboxBashExecutor } from ${JSON.stringify(join(ROOT, "sandbox/mod.ts"))};
import { PROXY_OPTIONS } from ${JSON.stringify(join(ROOT, "sandbox/network/_proxy.ts"))};
import { fakeResolve } from ${JSON.stringify(join(ROOT, "tests/sandbox/network/_internet.ts"))};
const facts: Record<string, unknown> = {};
for (const backend of ["bwrap", "landlock"] as const) {
  await using executor = new SandboxBashExecutor({
    workspaceRoot: ${JSON.stringify(workspace.root)},
    defaultMode: "workspace-write",
    backends: [backend],
    network: { allow: ["allowed.test", "127.0.0.1"] },
    [PROXY_OPTIONS]: { resolve: fakeResolve },
  } as never);
  const works = (await executor.probeBackends())[0]?.works;
  const result = works ? await executor.run(executor.resolve({
    command: "id -u; curl -sS http://allowed.test:${internet.port}/nobody; " +
      "curl -sS -f http://evil.test:${internet.port}/; " +
      "curl -sS --noproxy '*' http://127.0.0.1:${internet.port}/direct",
  })) : undefined;
  facts[backend] = result && { stdout: result.stdout.text, stderr: result.stderr.text, sandbox: result.sandbox };
}
console.log(JSON.stringify(facts));
`,
    );
    for (
      const path of [
        workspace.base,
        ...readdirSync(workspace.base, { recursive: true, encoding: "utf8" }).map((name) =>
          join(workspace.base, name)
        ),
      ]
    ) {
      lchownSync(path, NOBODY, NOBODY);
    }
    await using executor = new LocalBashExecutor({ cwd: workspace.base });
    const nobody = `setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups`;
    const result = await executor.run(executor.resolve({
      command: `exec ${nobody} "$DENO" run --no-config --no-lock --allow-all nonroot.ts`,
      env: { DENO: deno.path, HOME: home, DENO_DIR: join(home, "deno-dir") },
      timeoutMs: 60_000,
    }));
    assert.equal(result.exitCode, 0, result.stderr.text);
    type Facts = { stdout: string; stderr: string; sandbox: BashSandboxInfo } | undefined;
    const facts = JSON.parse(result.stdout.text) as Record<string, Facts>;
    let ran = 0;
    for (const [backend, fact] of Object.entries(facts)) {
      if (fact === undefined || fact === null) continue;
      ran++;
      assert.equal(
        fact.stdout,
        `${NOBODY}\nhello allowed.test:${internet.port} /nobody\n`,
        backend + ": " + fact.stderr,
      );
      assert.deepEqual(fact.sandbox.refusedDestinations, ["evil.test"], backend);
      assert.match(fact.stderr, /Couldn't connect|Connection refused/, backend);
    }
    assert.ok(ran > 0, "no backend works for nobody here");
    assert.deepEqual(internet.hosts, Array(ran).fill(`allowed.test:${internet.port}`));
  });
});
