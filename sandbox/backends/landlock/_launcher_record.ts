/**
 * The launcher record: how the Perl launcher (`_perl_launcher.ts`) is handed
 * what the Deno launcher reads as JSON. The perl of a minimal system
 * (perl-base) has no JSON module, so the same values are written in a form
 * Perl reads with `substr` and a regular expression: every string is
 * prefixed by its length in UTF-8 bytes, so no byte in it needs escaping.
 *
 * | value | form |
 * |---|---|
 * | string | `s<UTF-8 byte length>:<bytes>` |
 * | number | `n<String(number)>;` |
 * | true, false, null | `t`, `f`, `z` |
 * | array | `l<values>e` |
 * | object | `d<key string><value>...e` (undefined fields left out, as JSON does) |
 *
 * @module
 */

const encoder = new TextEncoder();

/** The string form of `text`: its UTF-8 length, then the text. */
function stringForm(text: string): string {
  return `s${encoder.encode(text).length}:${text}`;
}

/**
 * `value` (JSON-like: strings, numbers, booleans, null, lists and plain
 * objects) as a launcher record; throws a `TypeError` for anything else. A string's length counts the bytes its text
 * becomes in UTF-8 (a lone surrogate as U+FFFD, as on any command line),
 * which is how the record reaches the launcher.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { launcherRecord } from "./_launcher_record.ts";
 *
 * assert.equal(
 *   launcherRecord({ args: ["ü", 2], keep: true, gone: undefined }),
 *   "ds4:argsls2:ün2;es4:keepte",
 * );
 * ```
 */
export function launcherRecord(value: unknown): string {
  if (value === null) return "z";
  if (typeof value === "string") return stringForm(value);
  if (typeof value === "number") return `n${String(value)};`;
  if (typeof value === "boolean") return value ? "t" : "f";
  // An undefined item of a list is null, as in JSON.
  if (Array.isArray(value)) {
    return `l${value.map((item) => launcherRecord(item ?? null)).join("")}e`;
  }
  if (typeof value !== "object") {
    throw new TypeError(`A launcher record holds no ${typeof value}; pass JSON-like values`);
  }
  const fields = Object.entries(value).flatMap(([key, field]) =>
    field === undefined ? [] : [stringForm(key) + launcherRecord(field)]
  );
  return `d${fields.join("")}e`;
}
