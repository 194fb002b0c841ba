/**
 * The one way a name enters a Seatbelt regex: every character that means
 * something to a regular expression escaped, so the regex matches the name
 * and nothing else.
 *
 * @module
 */

/**
 * The characters that mean something in a Seatbelt regex (a POSIX extended
 * regular expression): outside brackets `. [ ] ( ) { } * + ? ^ $ |` and the
 * backslash itself.
 */
const METACHARACTERS = /[.[\](){}*+?^$|\\]/g;

/** `text` with each regex metacharacter escaped by a backslash: a regex that matches `text` literally. */
export function escapeRegex(text: string): string {
  return text.replace(METACHARACTERS, "\\$&");
}

/**
 * The regex for a protected `name` (relative, one or more components, such
 * as `.git` or `.config/git`) anywhere in a path: the name as whole
 * components, and everything beneath it. A profile pairs it with the
 * writable root it applies below (`(require-all (subpath ...) (regex ...))`),
 * so the root itself never enters a regex.
 */
export function protectedNameRegex(name: string): string {
  return `/${escapeRegex(name)}(/.*)?$`;
}
