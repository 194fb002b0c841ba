/**
 * What the host runs outside any sandbox, remembered as found outside every
 * root granted so far.
 *
 * @module
 */

/**
 * Lists of programs found outside every writable root, each with how many
 * roots were granted then. Roots are only ever added, and a confined command
 * writes in them alone, so programs found outside every root stay so until
 * another root is granted: the same list needs no new look (a `readlink` a
 * component of each path) while the count is the same. An exposure found is
 * never kept: it is looked at again each time.
 *
 * @example
 * ```ts
 * import { OutsideRoots } from "./_outside_roots.ts";
 * import assert from "node:assert/strict";
 *
 * const outside = new OutsideRoots();
 * let looks = 0;
 * const look = () => void looks++;
 * outside.check(["/usr/bin/ssh"], 1, look);
 * outside.check(["/usr/bin/ssh"], 1, look);
 * assert.equal(looks, 1);
 * // A root granted since: looked at again.
 * outside.check(["/usr/bin/ssh"], 2, look);
 * assert.equal(looks, 2);
 * ```
 */
export class OutsideRoots {
  readonly #outside = new Map<string, number>();

  /**
   * Why `programs` must not run (what `look` says), or undefined; `look`
   * is not asked when the same programs were found outside every root with
   * `granted` roots granted.
   */
  check(
    programs: readonly string[],
    granted: number,
    look: () => string | undefined,
  ): string | undefined {
    const key = programs.join("\0");
    if (this.#outside.get(key) === granted) return undefined;
    const reason = look();
    if (reason === undefined) this.#outside.set(key, granted);
    return reason;
  }
}
