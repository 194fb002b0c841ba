/**
 * The size of a background command's pseudo-terminal, in character cells
 * (see `BashExecRequest.terminal` and `BashProcess.resize`).
 *
 * @example
 * ```ts
 * import type { BashTerminalSize } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const size: BashTerminalSize = { rows: 24, cols: 80 };
 * assert.equal(size.rows * size.cols, 1920);
 * ```
 */
export interface BashTerminalSize {
  /** Lines, 1 to {@linkcode MAX_TERMINAL_CELLS}. */
  rows: number;
  /** Columns, 1 to {@linkcode MAX_TERMINAL_CELLS}. */
  cols: number;
}

/**
 * The most rows, and the most columns, a terminal may have: a screen this
 * size is already more text than a model should read at once.
 *
 * @example
 * ```ts
 * import { MAX_TERMINAL_CELLS } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * assert.equal(MAX_TERMINAL_CELLS, 1000);
 * ```
 */
export const MAX_TERMINAL_CELLS = 1000;
