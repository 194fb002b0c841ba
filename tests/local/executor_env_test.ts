import { it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { LocalBashExecutor } from "../../local/mod.ts";
import { BashConfigError } from "../../seam/mod.ts";
import { forEachStrategy, it } from "./_executor.ts";

forEachStrategy("LocalBashExecutor: the environment a command gets", (make) => {
  it("sets the non-interactive env overrides over ambient values", async () => {
    const ambient = { PAGER: process.env.PAGER, TERM: process.env.TERM };
    process.env.PAGER = "less";
    process.env.TERM = "xterm-256color";
    let executor: LocalBashExecutor;
    try {
      executor = make();
    } finally {
      for (const [name, value] of Object.entries(ambient)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    await using _ = executor;
    const result = await executor.run(executor.resolve({
      command: 'echo "$NO_COLOR $TERM $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $GIT_EDITOR ' +
        "$DEBIAN_FRONTEND $GH_PROMPT_DISABLED $GCM_INTERACTIVE [$GIT_ASKPASS] [$SSH_ASKPASS] " +
        '$GIT_SSH_COMMAND $EDITOR $VISUAL"',
    }));
    assert.equal(
      result.stdout.text,
      "1 dumb cat cat 0 true noninteractive 1 never [] [] ssh -o BatchMode=yes false false\n",
    );
  });

  nodeIt("lets programs that start an editor fail at once instead of waiting", {
    skip: existsSync("/usr/bin/sensible-editor") ? false : "needs /usr/bin/sensible-editor",
  }, async () => {
    await using executor = make();
    const result = await executor.run(executor.resolve({
      command: "sensible-editor notes.txt; echo exit=$?",
      timeoutMs: 20_000,
    }));
    assert.equal(result.timedOut, false);
    assert.equal(result.stdout.text, "exit=1\n");
  });

  it("keeps ambient credentials and managed names from the child, passes explicit ones", async () => {
    process.env.MY_API_TOKEN = "ambient-secret";
    process.env.SHELLSEAM_X = "ambient-managed";
    let executor: LocalBashExecutor;
    try {
      executor = make();
    } finally {
      delete process.env.MY_API_TOKEN;
      delete process.env.SHELLSEAM_X;
    }
    await using _ = executor;
    const ambient = await executor.run(executor.resolve({
      command: 'echo "[${MY_API_TOKEN-unset}] [${SHELLSEAM_X-unset}]"',
    }));
    assert.equal(ambient.stdout.text, "[unset] [unset]\n");
    assert.ok(ambient.scrubbedEnv.includes("MY_API_TOKEN"));
    assert.ok(ambient.scrubbedEnv.includes("SHELLSEAM_X"));
    const explicit = await executor.run(executor.resolve({
      command: 'echo "$MY_API_TOKEN $SHELLSEAM_X $HOME_AWAY"',
      env: { MY_API_TOKEN: "given", HOME_AWAY: "yes" },
      managedEnv: { SHELLSEAM_X: "managed" },
    }));
    assert.equal(explicit.stdout.text, "given managed yes\n");
  });

  it("takes no shell options or functions from the agent's environment", async () => {
    const names = ["SHELLOPTS", "BASHOPTS", "BASH_FUNC_ls%%"] as const;
    const saved = names.map((name) => process.env[name]);
    process.env.SHELLOPTS = "xtrace";
    process.env.BASHOPTS = "nullglob";
    process.env["BASH_FUNC_ls%%"] = "() {  echo hijacked; }";
    let executor: LocalBashExecutor;
    try {
      executor = make();
    } finally {
      names.forEach((name, i) => {
        const value = saved[i];
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      });
    }
    await using _ = executor;
    const result = await executor.run(executor.resolve({
      command: "ls -d /; shopt -q nullglob && echo nullglob; [[ $- == *x* ]] && echo xtrace; :",
    }));
    assert.equal(result.stdout.text, "/\n");
    assert.equal(result.stderr.text, "");
    for (const name of names) assert.ok(result.scrubbedEnv.includes(name), name);
    const explicit = await executor.run(executor.resolve({
      command: "ls -d /",
      env: { "BASH_FUNC_ls%%": "() {  echo given; }" },
    }));
    assert.equal(explicit.stdout.text, "given\n", "an explicit exported function is honoured");
  });

  it("reads no rc file: ambient BASH_ENV and ENV are dropped, ~/.bashrc is not read", async () => {
    const home = mkdtempSync(join(tmpdir(), "shellseam-rc-"));
    const rc = join(home, "rc.sh");
    writeFileSync(rc, "echo sourced-rc\n");
    writeFileSync(join(home, ".bashrc"), "echo sourced-bashrc\n");
    writeFileSync(join(home, ".bash_profile"), "echo sourced-profile\n");
    const saved = {
      BASH_ENV: process.env.BASH_ENV,
      ENV: process.env.ENV,
      SHLVL: process.env.SHLVL,
    };
    process.env.BASH_ENV = rc;
    process.env.ENV = rc;
    // Without SHLVL, bash reads ~/.bashrc when stdin is a socket (as Node gives it).
    delete process.env.SHLVL;
    let executor: LocalBashExecutor;
    try {
      executor = make();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    try {
      await using _ = executor;
      // With limits, a limiter bash runs first: it reads no rc file either.
      for (const limits of [undefined, { cpuSeconds: 100 }]) {
        for (const keepStdinOpen of [false, true]) {
          const spec = executor.resolve({
            command: "echo body",
            env: { HOME: home },
            keepStdinOpen,
            ...(limits === undefined ? {} : { limits }),
          });
          const started = await executor.start(spec);
          if (keepStdinOpen) await started.closeStdin();
          await started.done;
          assert.equal(
            started.readOutput().stdout.text,
            "body\n",
            `keepStdinOpen: ${keepStdinOpen}, limits: ${JSON.stringify(limits)}`,
          );
        }
      }
      const result = await executor.run(executor.resolve({ command: "echo body" }));
      assert.equal(result.stdout.text, "body\n");
      assert.ok(result.scrubbedEnv.includes("BASH_ENV"));
      assert.ok(result.scrubbedEnv.includes("ENV"));
      const explicit = await executor.run(executor.resolve({
        command: "echo body",
        env: { BASH_ENV: rc },
      }));
      assert.equal(
        explicit.stdout.text,
        "sourced-rc\nbody\n",
        "an explicit BASH_ENV is honoured",
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("merges managedEnv last and keeps managed names out of env", async () => {
    await using executor = make();
    const result = await executor.run(executor.resolve({
      command: 'echo "$PAGER $SHELLSEAM_SESSION"',
      env: { PAGER: "less" },
      managedEnv: { SHELLSEAM_SESSION: "s-1" },
    }));
    assert.equal(result.stdout.text, "less s-1\n");
    const spec = executor.resolve({ command: "true" });
    const smuggled = { ...spec, env: { SHELLSEAM_SESSION: "forged" } };
    await assert.rejects(executor.run(smuggled), BashConfigError);
  });
});
