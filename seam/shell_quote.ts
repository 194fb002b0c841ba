/** Characters a word may hold and still be one literal word to bash without quotes. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+:,./-]+$/;

/**
 * Bash's reserved words: made of plain characters, yet read as syntax where
 * a command starts, so they are quoted too.
 */
const RESERVED_WORDS = new Set([
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "time",
  "until",
  "while",
]);

/**
 * Quotes `words` into a bash command line that runs them as they are: the
 * first word is the program and the others its arguments, with no expansion,
 * splitting, globbing or redirection. A word of plain characters
 * (`A-Z a-z 0-9 _ @ % + : , . / -`) stays as it is; any other is put in single
 * quotes, each `'` in it written as `'\''`. The result is what a
 * `BashExecRequest.command` takes.
 *
 * @example
 * ```ts
 * import { shellQuote } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * assert.equal(shellQuote(["echo", "a  b", "$HOME", "it's"]), `echo 'a  b' '$HOME' 'it'\\''s'`);
 * assert.equal(shellQuote(["printf", ""]), "printf ''");
 * ```
 */
export function shellQuote(words: readonly string[]): string {
  return words.map(quoteWord).join(" ");
}

function quoteWord(word: string): string {
  if (PLAIN_WORD.test(word) && !RESERVED_WORDS.has(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
