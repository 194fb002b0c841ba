import assert from "node:assert/strict";
import process from "node:process";
import type { CaseDefinition } from "./_harness.ts";

/**
 * What every command's environment sets, so that nothing waits for a person.
 * Written out here, not read from the local executor's `ENV_OVERRIDES`: the
 * suite states the contract, so a change to the implementation shows here.
 */
const NON_INTERACTIVE: Readonly<Record<string, string>> = {
  NO_COLOR: "1",
  TERM: "dumb",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
  GIT_EDITOR: "true",
  DEBIAN_FRONTEND: "noninteractive",
};

/** Ambient names that must not reach a command: credential-shaped, and in the managed namespace. */
const AMBIENT = {
  CONFORMANCE_API_TOKEN: "ambient-credential",
  SHELLSEAM_CONFORMANCE_AMBIENT: "ambient-managed",
};

/** A shell line that prints `name=value` for each name, or `name unset`. */
function printEach(names: readonly string[]): string {
  return names.map((name) =>
    `if [ -n "\${${name}+set}" ]; then printf '%s=%s\\n' ${name} "$${name}"; ` +
    `else echo '${name} unset'; fi`
  ).join("; ");
}

/** What a command reads on stdin and finds in its environment. */
export const inputCases: readonly CaseDefinition[] = [
  {
    name: "writes the given stdin, text or bytes, and then closes it",
    async body(h) {
      const executor = await h.executor();
      const text = await h.run(executor, { command: "cat; echo end", stdin: "line 1\nline 2" });
      assert.equal(text.stdout.text, "line 1\nline 2end\n");
      const bytes = await h.run(executor, {
        command: "od -An -v -tx1 | tr -s ' \\n' ' '",
        stdin: new Uint8Array([0, 255, 10, 0xc3]),
      });
      assert.equal(bytes.stdout.text.trim(), "00 ff 0a c3");
    },
  },
  {
    name: "gives a command without stdin an immediate end of file",
    async body(h) {
      const executor = await h.executor();
      const result = await h.run(executor, { command: "cat; echo end", timeoutMs: 30_000 });
      assert.equal(result.timedOut, false);
      assert.equal(result.stdout.text, "end\n");
    },
  },
  {
    name: "passes env and managedEnv values exactly",
    async body(h) {
      const executor = await h.executor();
      const value = `a b 'c' "d" $HOME \`e\` \\ \u00e9\nsecond line`;
      const result = await h.run(executor, {
        command: printEach(["CONFORMANCE_VALUE", "SHELLSEAM_CONFORMANCE"]),
        env: { CONFORMANCE_VALUE: value },
        managedEnv: { SHELLSEAM_CONFORMANCE: "managed" },
      });
      assert.equal(
        result.stdout.text,
        `CONFORMANCE_VALUE=${value}\nSHELLSEAM_CONFORMANCE=managed\n`,
      );
    },
  },
  {
    name:
      "keeps ambient credentials and managed names from the command, and sets no-prompt defaults",
    // The executor may read the environment when it is made.
    fresh: true,
    async body(h) {
      const saved = Object.keys(AMBIENT).map((name) => [name, process.env[name]] as const);
      const names = [...Object.keys(AMBIENT), ...Object.keys(NON_INTERACTIVE)];
      let result;
      // Set while the executor is made and while it runs (it may read either time).
      Object.assign(process.env, AMBIENT);
      try {
        const executor = await h.executor();
        result = await h.run(executor, { command: printEach(names) });
      } finally {
        for (const [name, value] of saved) {
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
        }
      }
      const expected = [
        ...Object.keys(AMBIENT).map((name) => `${name} unset`),
        ...Object.entries(NON_INTERACTIVE).map(([name, value]) => `${name}=${value}`),
      ];
      assert.deepEqual(result.stdout.text.split("\n").slice(0, -1), expected);
    },
  },
];
