/**
 * The message of a thrown value, as every error message and result of the
 * library quotes it. Shared by every folder above the seam, which imports
 * this file itself: it is not part of the seam's public surface (`mod.ts`
 * does not export it).
 *
 * @module
 */

/** The message of a thrown value: an Error's message, anything else as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
