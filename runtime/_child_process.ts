/**
 * `node:child_process`, loaded on first use rather than imported: the
 * runtime module imports both runtimes statically (no top-level `await`, so
 * Node can `require()` the package), and Deno must still never load Node's
 * child_process (tests/node/runtime_test.ts checks it).
 *
 * @module
 */
import type * as ChildProcessModule from "node:child_process";
import { createRequire } from "node:module";

let loaded: typeof ChildProcessModule | undefined;

/** The `node:child_process` module, required synchronously the first time. */
export function childProcess(): typeof ChildProcessModule {
  loaded ??= createRequire(import.meta.url)("node:child_process") as typeof ChildProcessModule;
  return loaded;
}
