import assert from "node:assert/strict";
import { BashConfigError, type BashOutputEvent, type BashOutputStream } from "../seam/mod.ts";
import { type CaseDefinition, SUITE_EXECUTOR_OPTIONS } from "./_harness.ts";
import { seqText, sha256 } from "./_output.ts";

const { maxOutputBytes, maxSpillBytes } = SUITE_EXECUTOR_OPTIONS;

// Far more than the memory window of each stream, well under the spill cap.
const STDOUT_LINES = 30_000;
const STDERR_LINES = 20_000;
const BOTH = `seq 1 ${STDOUT_LINES}; seq 1 ${STDERR_LINES} >&2`;

/** Every chunk's text per stream, and every gap, of a process's output(). */
async function readAll(
  events: AsyncIterable<BashOutputEvent>,
): Promise<{ stdout: string; stderr: string; gaps: BashOutputEvent[] }> {
  const text: Record<BashOutputStream, string> = { stdout: "", stderr: "" };
  const gaps: BashOutputEvent[] = [];
  for await (const event of events) {
    if ("text" in event) text[event.stream] += event.text;
    else gaps.push(event);
  }
  return { ...text, gaps };
}

/** The one-call form, the executor's limits, and live output (foreground and background). */
export const liveCases: readonly CaseDefinition[] = [
  {
    name: "runs a plain request and a spec from resolve() alike, and says its limits",
    async body(h) {
      const executor = await h.executor();
      assert.equal((await h.run(executor, { command: "echo hi" })).stdout.text, "hi\n");
      const { limits } = executor;
      const spec = executor.resolve({ command: "echo spec", timeoutMs: 10 ** 12 });
      assert.ok(Object.isFrozen(spec), "a resolved spec is frozen");
      assert.equal(spec.timeoutMs, limits.maxTimeoutMs ?? 10 ** 12, "the timeout is capped");
      assert.equal((await h.run(executor, spec)).stdout.text, "spec\n");
      // A copy is a request again, checked again.
      await assert.rejects(h.run(executor, { ...spec, timeoutMs: -1 }), BashConfigError);
      assert.equal(limits.outputBytes, maxOutputBytes);
      assert.equal(limits.maxSpillBytes, maxSpillBytes);
      assert.ok(limits.defaultTimeoutMs <= (limits.maxTimeoutMs ?? Infinity));
    },
  },
  {
    name: "gives onOutput every character of each stream, in order, past the memory window",
    async body(h) {
      const executor = await h.executor();
      const seen: Record<BashOutputStream, string> = { stdout: "", stderr: "" };
      const result = await h.run(executor, {
        // A character written in two parts, then far more than the window.
        command: `printf 'a\\360\\237'; sleep 0.1; printf '\\230\\200\\n'; ${BOTH}`,
        onOutput: ({ stream, text }) => void (seen[stream] += text),
      });
      assert.equal(result.exitCode, 0);
      assert.equal(result.onOutputError, undefined);
      assert.equal(result.stdout.truncated, true, "more than the window was printed");
      assert.equal(sha256(seen.stdout), sha256(`a\u{1F600}\n${seqText(STDOUT_LINES)}`));
      assert.equal(sha256(seen.stderr), sha256(seqText(STDERR_LINES)));
    },
  },
  {
    name: "keeps running when onOutput throws, and says what it threw",
    async body(h) {
      const executor = await h.executor();
      let calls = 0;
      const result = await h.run(executor, {
        command: "echo one; sleep 0.1; echo two",
        onOutput: () => {
          calls++;
          throw new Error("renderer broke");
        },
      });
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout.text, "one\ntwo\n");
      assert.equal(calls, 1, "not called again after it threw");
      assert.match(result.onOutputError ?? "", /renderer broke/);
    },
  },
  {
    name: "refuses onOutput for a background start (output() is the way there)",
    async body(h) {
      const executor = await h.executor();
      await assert.rejects(
        h.start(executor, { command: "true", onOutput: () => {} }),
        BashConfigError,
      );
    },
  },
  {
    name: "reads a background process's output from byte 0 for each output() call, losslessly",
    async body(h) {
      const executor = await h.executor();
      const process = await h.start(executor, { command: BOTH });
      // One reader follows the command while it runs; another starts after it ended.
      const following = readAll(process.output());
      await process.done;
      const late = await readAll(process.output());
      for (const read of [await following, late]) {
        assert.deepEqual(read.gaps, []);
        assert.equal(sha256(read.stdout), sha256(seqText(STDOUT_LINES)));
        assert.equal(sha256(read.stderr), sha256(seqText(STDERR_LINES)));
      }
      // readOutput()'s position is its own.
      assert.equal(process.readOutput().stdout.truncated, true);
    },
  },
  {
    name: "says exactly which bytes output() lost past maxSpillBytes, and why",
    async body(h) {
      const executor = await h.executor({ maxSpillBytes: 100_000 });
      const process = await h.start(executor, { command: `seq 1 ${STDOUT_LINES}` });
      await process.done;
      const { stdout, gaps } = await readAll(process.output());
      const whole = seqText(STDOUT_LINES);
      assert.equal(gaps.length, 1);
      const [gap] = gaps;
      assert.ok(gap !== undefined && "omittedBytes" in gap && gap.omittedBytes !== null);
      assert.equal(gap.stream, "stdout");
      assert.equal(gap.offset, 100_000, "the gap starts where the spill file stopped");
      assert.match(gap.reason, /maxSpillBytes/);
      // What is kept: the spill file's bytes, then the window's tail.
      assert.equal(stdout.length + gap.omittedBytes, whole.length);
      assert.ok(whole.startsWith(stdout.slice(0, 100_000)));
      assert.ok(whole.endsWith(stdout.slice(100_000)));
    },
  },
];
