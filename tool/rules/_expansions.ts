/**
 * The checks on what bash expands inside a word, for the command-line
 * reader (`_shell.ts`): arithmetic, `${...}` and `$'...'`. Arithmetic and
 * some `${...}` forms can run a command hidden in a variable's value, so
 * each accepts only the plain forms and throws `Unreadable` for the rest.
 *
 * @module
 */
import { Unreadable } from "./_unreadable.ts";

/**
 * Checks the text of an arithmetic expansion. Bash evaluates a variable
 * named in it as arithmetic too, and an array subscript in that value runs
 * its command substitutions (`x='a[$(cmd)]'; echo $((x))` runs `cmd`), so
 * only numbers and operators are read.
 */
export function arithmetic(text: string): void {
  if (!/^[\s0-9+\-*/%<>=!&|^~?:,()]*$/.test(text)) {
    throw new Unreadable(
      "arithmetic over anything but numbers is not read (a variable's value can hold a command)",
    );
  }
}

/** What may follow a parameter's name in `${...}`: an operator and the word after it. */
const PARAMETER_OPERATOR = /^(:[-=?+]|[-=?+]|##?|%%?|\/[/#%]?|\^\^?|,,?)/;

/**
 * Checks the text of a `${...}` (it holds no quote, backslash, backtick,
 * `$(` or `$[`): a name (`x`, `1`, `@`, `#x` for its length) with at most a
 * numeric subscript, then nothing, a plain transformation (`@Q`), a numeric
 * substring, or an operator and a word whose `${...}` are checked the same
 * way. Anything else is unreadable: `${!x}` and a subscript or offset that
 * is not a number evaluate a value as arithmetic (which can run a command,
 * see `arithmetic`), and `${x@P}` expands a value as a prompt, which runs
 * the command substitutions in it.
 */
export function parameterForm(text: string): void {
  const form = /^#?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(\[([0-9]+|@|\*)\])?/.exec(text);
  const refuse = (why: string): never => {
    throw new Unreadable(`"\${${text}}" is not read: ${why}`);
  };
  if (form === null || (text.startsWith("!") && text !== "!")) {
    return refuse("an indirection, or a subscript that is not a number, evaluates a value");
  }
  const rest = text.slice(form[0].length);
  if (rest === "" || /^@[QEULuaAKk]$/.test(rest)) return;
  if (/^:\s*-?\s*[0-9]*\s*(:\s*-?\s*[0-9]+\s*)?$/.test(rest) && !/^:[-=?+]/.test(rest)) return;
  const operator = PARAMETER_OPERATOR.exec(rest);
  if (operator === null) return refuse("an offset or transformation that is not plain");
  // The word after the operator: every nested `${...}` in it is checked too.
  const word = rest.slice(operator[0].length);
  for (let at = word.indexOf("${"); at !== -1; at = word.indexOf("${", at)) {
    let depth = 0;
    let end = at;
    for (; end < word.length; end++) {
      if (word.startsWith("${", end)) {
        depth++;
        end++;
      } else if (word[end] === "}" && --depth === 0) break;
    }
    parameterForm(word.slice(at + 2, end));
    at = end + 1;
  }
}

/** The value of `$'...'` text: its backslash escapes decoded. */
export function ansiC(text: string): string {
  const simple: Record<string, string> = {
    n: "\n",
    t: "\t",
    r: "\r",
    a: "\x07",
    b: "\b",
    e: "\x1b",
    E: "\x1b",
    f: "\f",
    v: "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
  };
  return text.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/g,
    (all, escape: string) => {
      const head = escape[0]!;
      if (head === "x" || head === "u" || head === "U") {
        return String.fromCodePoint(parseInt(escape.slice(1), 16));
      }
      if (/[0-7]/.test(head)) return String.fromCharCode(parseInt(escape, 8));
      if (head === "c") throw new Unreadable(`"\\c" in $'...' is not read`);
      return simple[head] ?? all;
    },
  );
}
