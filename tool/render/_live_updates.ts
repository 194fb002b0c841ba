import type { BashOutputChunk } from "../../seam/mod.ts";
import { outputLines } from "./_markers.ts";
import type { ToolUpdate } from "../tool.ts";

/** The least time between two updates, in milliseconds. */
export const UPDATE_INTERVAL_MS = 250;

/**
 * Turns a foreground command's output, as it arrives, into throttled
 * updates for a harness: the cleaned-up text so far (terminal controls,
 * progress-bar redraws and the values of secrets removed, as in the result), at most one per
 * `UPDATE_INTERVAL_MS`, and a last one with everything when the command
 * ends. Each stream keeps its last `keepChars` characters. An `onUpdate`
 * that throws is not called again; the call and its result go on.
 */
export class LiveUpdates {
  readonly #onUpdate: (update: ToolUpdate) => void;
  readonly #keepChars: number;
  readonly #secrets: Readonly<Record<string, string>>;
  readonly #text = { stdout: "", stderr: "" };
  readonly #dropped = { stdout: 0, stderr: 0 };
  #last = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #changed = false;
  #broken = false;

  constructor(
    onUpdate: (update: ToolUpdate) => void,
    keepChars: number,
    secrets: Readonly<Record<string, string>>,
  ) {
    this.#onUpdate = onUpdate;
    this.#keepChars = keepChars;
    this.#secrets = secrets;
  }

  /** Takes one chunk (the executor's `onOutput`). */
  take = (chunk: BashOutputChunk): void => {
    let text = this.#text[chunk.stream] + chunk.text;
    if (text.length > this.#keepChars) {
      this.#dropped[chunk.stream] += text.length - this.#keepChars;
      text = text.slice(text.length - this.#keepChars);
    }
    this.#text[chunk.stream] = text;
    this.#changed = true;
    if (this.#timer !== undefined) return;
    const wait = this.#last + UPDATE_INTERVAL_MS - performance.now();
    if (wait <= 0) this.#send();
    else this.#timer = setTimeout(() => this.#send(), wait);
  };

  /** Sends what is new, once more, and stops. */
  finish(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#changed) this.#send();
    this.#broken = true;
  }

  #send(): void {
    this.#timer = undefined;
    if (this.#broken || !this.#changed) return;
    this.#changed = false;
    const earlier = (stream: "stdout" | "stderr"): string[] =>
      this.#dropped[stream] > 0 ? [`[${this.#dropped[stream]} earlier characters not shown]`] : [];
    const text = outputLines(
      {
        stdout: this.#text.stdout,
        stdoutMarkers: earlier("stdout"),
        stderr: this.#text.stderr,
        stderrMarkers: earlier("stderr"),
      },
      "(no output yet)",
      this.#secrets,
    ).join("\n");
    // The interval counts from the delivery, after the text was made (which can take a while).
    this.#last = performance.now();
    try {
      this.#onUpdate({ text });
    } catch {
      // Documented: a harness's failing renderer is not called again.
      this.#broken = true;
    }
  }
}
