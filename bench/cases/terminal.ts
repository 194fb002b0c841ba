/**
 * `terminal-echo`: how long a typed character takes to come back as the
 * terminal's echo, through a background process started with a terminal
 * (`start({ command: "cat", terminal })`, its `write()`, and its
 * `output()` iterator), against the same round trip through a bare
 * pseudo-terminal relay.
 *
 * The floor: neither Deno nor Node can open a pseudo-terminal without a
 * native addon, so a program that runs a command in one always relays
 * through a process that holds the terminal's master side. The fairest
 * floor is the least such relay: a Python loop over `pty.openpty()` that
 * copies its stdin to the master and the master to its stdout, with `cat`
 * on the slave side, spawned and read by `Deno.Command` with no library in
 * between. The echo itself (the kernel's line discipline, measured inside
 * one Python process with no relay) is in the note, for scale.
 *
 * @module
 */
import { LocalBashExecutor } from "../../local/mod.ts";
import { findOnPath } from "../../engine/_session.ts";
import type { BashProcess } from "../../seam/mod.ts";
import { type BenchCase, row, type RowHeader, skippedRow } from "../_case.ts";
import { interleave } from "../_interleave.ts";
import { rounds } from "./_spawn.ts";
import { summarize } from "../_stats.ts";

const HEADER: RowHeader = {
  id: "terminal-echo",
  what: 'write() of one character to its echo in output() of start({ command: "cat", terminal }) ' +
    "(the engine's stdin pipe, util-linux script's copy loops, the output collector)",
  baseline: "Deno.Command on a Python pty.openpty() relay (stdin to master, master to stdout) " +
    "with cat on the slave, read raw",
  unit: "ms",
  goal: 1.5,
  better: "lower",
};

/** The relay of the floor: stdin to the master, the master to stdout, until stdin ends. */
const RELAY = `
import os, pty, select, subprocess
master, slave = pty.openpty()
child = subprocess.Popen(["cat"], stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
os.close(slave)
while True:
    ready, _, _ = select.select([0, master], [], [])
    if 0 in ready:
        data = os.read(0, 4096)
        if not data:
            break
        os.write(master, data)
    if master in ready:
        os.write(1, os.read(master, 4096))
child.kill()
`;

/** The echo alone: one Python process types into the master and reads the echo, in microseconds. */
const ECHO_ALONE = `
import os, pty, subprocess, time, statistics
master, slave = pty.openpty()
child = subprocess.Popen(["cat"], stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
os.close(slave)
samples = []
for i in range(200):
    start = time.perf_counter()
    os.write(master, b"x")
    assert os.read(master, 16) == b"x"
    samples.append((time.perf_counter() - start) * 1e6)
child.kill()
print(round(statistics.median(samples)))
`;

/** Follows text as it arrives and wakes whoever waits for a length of it. */
class Echoes {
  text = "";
  #wake: (() => void) | undefined;

  take(text: string): void {
    this.text += text;
    this.#wake?.();
  }

  /** Resolves once the text holds `typed` and is no longer; throws when it differs. */
  async until(typed: string): Promise<void> {
    while (this.text.length < typed.length) {
      await new Promise<void>((wake) => this.#wake = wake);
    }
    if (this.text !== typed) {
      throw new Error(
        `the echo differs: typed ${JSON.stringify(typed)}, saw ${JSON.stringify(this.text)}`,
      );
    }
  }
}

/** The character of round `i`: they cycle through the alphabet, so a lost or doubled one shows. */
function letter(i: number): string {
  return String.fromCharCode(97 + i % 26);
}

/** Ours: a terminal process of the local executor running `cat`. */
async function ours(
  executor: LocalBashExecutor,
): Promise<{ type(): Promise<void>; stop(): Promise<void> }> {
  const process: BashProcess = await executor.start({
    command: "cat",
    terminal: { rows: 24, cols: 80 },
  });
  const echoes = new Echoes();
  const reading = (async () => {
    for await (const event of process.output()) {
      if ("text" in event && event.stream === "stdout") echoes.take(event.text);
    }
  })();
  let typed = "";
  return {
    async type() {
      typed += letter(typed.length);
      await process.write(typed.slice(-1));
      await echoes.until(typed);
    },
    async stop() {
      await process.kill();
      await process.done;
      await reading;
      await process.release();
    },
  };
}

/**
 * A relay written to and read with no library in between: the floor (the
 * Python relay), or util-linux `script` itself (what the engine runs).
 */
function raw(program: string, args: string[]): { type(): Promise<void>; stop(): Promise<void> } {
  const child = new Deno.Command(program, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const decoder = new TextDecoder();
  const echoes = new Echoes();
  const reading = (async () => {
    for await (const chunk of child.stdout) echoes.take(decoder.decode(chunk, { stream: true }));
  })();
  let typed = "";
  const encoder = new TextEncoder();
  return {
    async type() {
      typed += letter(typed.length);
      await writer.write(encoder.encode(typed.slice(-1)));
      await echoes.until(typed);
    },
    async stop() {
      await writer.close();
      try {
        child.kill("SIGTERM");
      } catch {
        // It ended with its stdin.
      }
      await reading;
      await child.status;
    },
  };
}

/** The echo alone, in microseconds, from one Python process. */
async function echoAlone(python: string): Promise<number> {
  const { stdout } = await new Deno.Command(python, { args: ["-c", ECHO_ALONE] }).output();
  return Number(new TextDecoder().decode(stdout).trim());
}

/** See the module's header. */
export const terminalEcho: BenchCase = {
  ids: [HEADER.id],
  async run(context) {
    const python = findOnPath("python3");
    if (python === null) return [skippedRow(HEADER, "python3 is not on PATH")];
    const scriptPath = findOnPath("script");
    if (scriptPath === null) return [skippedRow(HEADER, "util-linux script is not on PATH")];
    await using executor = new LocalBashExecutor({ cwd: "/tmp" });
    const subject = await ours(executor);
    const floor = raw(python, ["-c", RELAY]);
    const script = raw(scriptPath, ["-q", "-c", "cat", "/dev/null"]);
    try {
      const samples = await interleave(
        { ours: subject.type, raw: floor.type, script: script.type },
        rounds(context, { warmup: 50, iterations: 1000 }, { warmup: 2, iterations: 10 }),
      );
      const alone = await echoAlone(python);
      const bare = summarize(samples.script ?? []);
      const mine = summarize(samples.ours ?? []);
      return [
        row(HEADER, samples.ours ?? [], samples.raw ?? [], {
          note:
            `bare util-linux script (Deno.Command on script -q -c cat, read raw): ${
              bare.median.toFixed(3)
            } ms median (p90 ${bare.p90.toFixed(3)}), ratio ${
              (mine.median / bare.median).toFixed(2)
            } against it (what the engine adds); the echo alone (a Python process typing into ` +
            `pty.openpty() and reading it back): ${alone} µs median`,
        }),
      ];
    } finally {
      await subject.stop();
      await floor.stop();
      await script.stop();
    }
  },
};
