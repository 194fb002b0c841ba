/**
 * A conservative reader of bash command lines, for command rules: it finds
 * every simple command a line would run (in pipelines, lists, subshells,
 * groups, `if`/`while`/`for` bodies, `$(...)`, backticks, process
 * substitutions and redirection targets) with its words after quote removal.
 * A word whose value is known only at run time (a parameter expansion, a
 * command substitution, a glob, brace expansion) is `null`. Whatever it does
 * not fully understand (`case`, `for ((...))`, here-documents that expand
 * commands, unbalanced quotes, ...) makes the whole line unreadable, with the
 * reason: a rule engine must then treat it as unknown, never as allowed.
 *
 * @module
 */
import { ansiC, arithmetic, parameterForm } from "./_expansions.ts";
import { Unreadable } from "./_unreadable.ts";

/** One simple command: its words (null where only run time knows) and its text. */
export interface SimpleCommand {
  /** The words after quote removal; `null` for a word that expands at run time. */
  words: (string | null)[];
  /** The same words as written (quotes and expansions as they stand). */
  raw: string[];
  /** The command as written (trimmed), for messages. */
  text: string;
  /**
   * The names of the variables it sets for itself (`NAME=value cmd`, or
   * `env NAME=value cmd`), or, with no words, for the rest of the line (a
   * bare `NAME=value`).
   */
  assigned?: string[];
  /** More words, read only at run time, follow the known ones (what `xargs CMD` appends). */
  runtimeTail?: boolean;
}

/** What reading a command line gave. */
export type ReadCommandLine =
  | { ok: true; commands: SimpleCommand[] }
  | { ok: false; reason: string };

const MAX_DEPTH = 16;

/** `NAME=`, `NAME+=` or `NAME[i]=` at the start of a word: an assignment. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

/** Words that, where a command would start, open or close a compound command. */
const KEYWORDS_AS_SEPARATORS = new Set([
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "while",
  "until",
  "do",
  "done",
  "{",
  "}",
  "!",
]);
/** Compound forms this reader does not follow: the line is unreadable. */
const UNSUPPORTED_KEYWORDS = new Set(["case", "esac", "select", "function", "coproc", "[[", "]]"]);

/**
 * Reads `line` into its simple commands, or says why it cannot.
 *
 * @example
 * ```ts ignore
 * readCommandLine("git add . && git commit -m 'x' | tee log");
 * // { ok: true, commands: [{ words: ["git","add","."] }, { words: ["git","commit","-m","x"] }, { words: ["tee","log"] }] }
 * ```
 */
export function readCommandLine(line: string): ReadCommandLine {
  try {
    return { ok: true, commands: new Reader(line, 0).list(null) };
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, reason: error.message };
    throw error;
  }
}

/** A word being read: its value so far, and whether run time decides it. */
interface WordState {
  value: string;
  dynamic: boolean;
  /** Whether any part was quoted (an empty quoted word is still a word). */
  quoted: boolean;
}

class Reader {
  #pos = 0;
  readonly #src: string;
  readonly #depth: number;
  /** Here-document delimiters waiting for the end of the current line. */
  readonly #heredocs: { delimiter: string; expands: boolean; stripTabs: boolean }[] = [];
  /** Commands found inside words (substitutions), in order. */
  readonly #found: SimpleCommand[] = [];

  constructor(src: string, depth: number, start = 0) {
    if (depth > MAX_DEPTH) throw new Unreadable("commands are nested too deeply");
    this.#src = src;
    this.#depth = depth;
    this.#pos = start;
  }

  /**
   * The commands of the `$(...)`, `<(...)` or `>(...)` whose `(` was just
   * read, found by the same grammar as the rest of the line (quotes,
   * comments, nesting), so that where it ends is where bash ends it.
   */
  #substitution(): SimpleCommand[] {
    const inner = new Reader(this.#src, this.#depth + 1, this.#pos);
    const commands = inner.list(")");
    if (inner.#heredocs.length > 0) {
      throw new Unreadable("a here-document inside a substitution is not read");
    }
    this.#pos = inner.#pos;
    return commands;
  }

  /** Reads commands until the end, or until `close` (a `)` of a subshell or substitution). */
  list(close: ")" | null): SimpleCommand[] {
    const commands: SimpleCommand[] = [];
    for (;;) {
      this.#skipBlanks();
      const c = this.#peek();
      if (c === undefined) {
        if (close !== null) throw new Unreadable(`a "(" is not closed`);
        break;
      }
      if (c === ")") {
        if (close === null) throw new Unreadable(`a ")" closes nothing`);
        this.#pos++;
        break;
      }
      if (c === "\n") {
        this.#pos++;
        this.#readHeredocBodies();
        continue;
      }
      if (c === ";" || c === "&" || c === "|") {
        if (this.#src.startsWith(";;", this.#pos)) throw new Unreadable(`";;" outside a case`);
        this.#pos +=
          this.#src.startsWith("&&", this.#pos) || this.#src.startsWith("||", this.#pos) ||
            this.#src.startsWith("|&", this.#pos)
            ? 2
            : 1;
        continue;
      }
      if (c === "(") {
        if (this.#src.startsWith("((", this.#pos)) {
          throw new Unreadable(`arithmetic commands "((...))" are not read`);
        }
        this.#pos++;
        commands.push(...this.list(")"));
        continue;
      }
      commands.push(...this.#command());
    }
    return commands;
  }

  /** One simple command (or a keyword), with the commands found in its words first. */
  #command(): SimpleCommand[] {
    const start = this.#pos;
    const words: (string | null)[] = [];
    const raw: string[] = [];
    const assigned: string[] = [];
    const found: SimpleCommand[] = [];
    for (;;) {
      this.#skipBlanks();
      const c = this.#peek();
      if (c === undefined || c === "\n" || c === ";" || c === "&" || c === "|" || c === ")") {
        break;
      }
      if (c === "(") {
        // `name() {` defines a function; anything else here is a syntax bash rejects too.
        throw new Unreadable(`a "(" inside a command (a function definition?) is not read`);
      }
      if (this.#redirection()) continue;
      const wordStart = this.#pos;
      const word = this.#word();
      found.push(...this.#found.splice(0));
      if (words.length === 0) {
        // Assignments before the program set variables (their values were read); the names
        // matter, since some make a program run other code (`LD_PRELOAD=x ls`).
        const assignment = ASSIGNMENT.exec(this.#src.slice(wordStart, this.#pos));
        if (assignment?.[1] !== undefined && !/^\[[0-9]*\]$/.test(assignment[1])) {
          // Bash evaluates the subscript as arithmetic, which can run a command (see arithmetic).
          throw new Unreadable(`an assignment to "${assignment[0]}" with a subscript is not read`);
        }
        if (assignment !== null) {
          assigned.push(assignment[0].replace(/(\[.*)?\+?=$/, ""));
          continue;
        }
        if (!word.dynamic && !word.quoted) {
          if (UNSUPPORTED_KEYWORDS.has(word.value)) {
            throw new Unreadable(`"${word.value}" commands are not read`);
          }
          if (KEYWORDS_AS_SEPARATORS.has(word.value)) return found;
          if (word.value === "for") return [...found, ...this.#forHead()];
        }
      }
      words.push(word.dynamic ? null : word.value);
      raw.push(this.#src.slice(wordStart, this.#pos));
    }
    // Substitutions in redirection targets after the last word.
    found.push(...this.#found.splice(0));
    const text = this.#src.slice(start, this.#pos).trim();
    if (words.length === 0) {
      return assigned.length === 0 ? found : [...found, { words, raw, text, assigned }];
    }
    return [...found, { words, raw, text, ...(assigned.length === 0 ? {} : { assigned }) }];
  }

  /** After `for`: `NAME [in WORDS] ;` (the loop body follows as ordinary commands). */
  #forHead(): SimpleCommand[] {
    this.#skipBlanks();
    if (this.#src.startsWith("((", this.#pos)) {
      throw new Unreadable(`arithmetic for loops "for ((...))" are not read`);
    }
    const name = this.#word();
    if (name.dynamic || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name.value)) {
      throw new Unreadable("a for loop without a plain variable name is not read");
    }
    const found: SimpleCommand[] = [...this.#found.splice(0)];
    for (;;) {
      this.#skipBlanks();
      const c = this.#peek();
      if (c === undefined || c === "\n" || c === ";") break;
      if (c === "&" || c === "|" || c === "(" || c === ")" || this.#redirection()) {
        throw new Unreadable("a for loop's word list is not read");
      }
      this.#word();
      found.push(...this.#found.splice(0));
    }
    return found;
  }

  /** Reads a redirection operator and its target, when one starts here. */
  #redirection(): boolean {
    const rest = this.#src.slice(this.#pos);
    const match = /^(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(<<<|<<-|<<|&>>|&>|>>|>&|<&|<>|>\||>|<)/
      .exec(rest);
    if (match === null) return false;
    // `<(` and `>(` are process substitutions, read as words.
    if (/^[<>]\(/.test(rest.slice(match[0].length - 1)) && match[0].length === 1) return false;
    const operator = match[1]!;
    this.#pos += match[0].length;
    this.#skipBlanks();
    if (operator === "<<" || operator === "<<-") {
      const target = this.#word();
      if (target.dynamic) {
        throw new Unreadable("a here-document delimiter that expands is not read");
      }
      this.#heredocs.push({
        delimiter: target.value,
        expands: !target.quoted,
        stripTabs: operator === "<<-",
      });
      return true;
    }
    const c = this.#peek();
    if (c === undefined || c === "\n" || /[;&|()]/.test(c)) {
      throw new Unreadable(`a redirection "${operator}" has no target`);
    }
    this.#word();
    return true;
  }

  /** Skips the bodies of the here-documents opened on the line just ended. */
  #readHeredocBodies(): void {
    for (const { delimiter, expands, stripTabs } of this.#heredocs.splice(0)) {
      for (;;) {
        if (this.#pos >= this.#src.length) {
          throw new Unreadable(`the here-document "${delimiter}" is not closed`);
        }
        const end = this.#src.indexOf("\n", this.#pos);
        const lineEnd = end === -1 ? this.#src.length : end;
        let line = this.#src.slice(this.#pos, lineEnd);
        this.#pos = end === -1 ? this.#src.length : end + 1;
        if (stripTabs) line = line.replace(/^\t+/, "");
        if (line === delimiter) break;
        if (expands && /\$\(|`|\$\{|\$[A-Za-z_0-9@*#?$!-]/.test(line)) {
          throw new Unreadable("a here-document that expands at run time is not read");
        }
      }
    }
  }

  /** One word: quotes removed, substitutions read (into #found), dynamic parts marked. */
  #word(): WordState {
    const word: WordState = { value: "", dynamic: false, quoted: false };
    const startPos = this.#pos;
    let braces = 0;
    let listed = false;
    for (;;) {
      const c = this.#peek();
      if (
        c === undefined || /[\s;&|()<>]/.test(c) &&
          !((c === "<" || c === ">") && this.#src[this.#pos + 1] === "(")
      ) {
        break;
      }
      this.#pos++;
      if (c === "\\") {
        const next = this.#peek();
        if (next === undefined) break;
        this.#pos++;
        if (next !== "\n") word.value += next;
        word.quoted = true;
      } else if (c === "'") {
        word.value += this.#until("'");
        word.quoted = true;
      } else if (c === '"') {
        this.#doubleQuoted(word);
        word.quoted = true;
      } else if (c === "$") {
        this.#dollar(word, false);
      } else if (c === "`") {
        this.#backtick();
        word.dynamic = true;
      } else if ((c === "<" || c === ">") && this.#peek() === "(") {
        this.#pos++;
        this.#found.push(...this.#substitution());
        word.dynamic = true;
      } else if (c === "*" || c === "?" || c === "[") {
        word.value += c;
        word.dynamic = true;
      } else {
        // Brace expansion: an unquoted `{`, then an unquoted `,` or `..`, then an unquoted
        // `}` (quoted parts between them count, so `{push,'a b'}` is two words).
        if (c === "{") braces++;
        else if (braces > 0 && (c === "," || (c === "." && this.#peek() === "."))) listed = true;
        else if (c === "}" && braces > 0 && listed) word.dynamic = true;
        word.value += c;
      }
    }
    if (this.#pos === startPos && !word.quoted && word.value === "") {
      if (this.#peek() === undefined || this.#peek() === "\n") return word;
      throw new Unreadable(`unexpected "${this.#peek()}"`);
    }
    return word;
  }

  #doubleQuoted(word: WordState): void {
    for (;;) {
      const c = this.#peek();
      if (c === undefined) throw new Unreadable("a double quote is not closed");
      this.#pos++;
      if (c === '"') return;
      if (c === "\\") {
        const next = this.#peek();
        if (next !== undefined && '$`"\\\n'.includes(next)) {
          this.#pos++;
          if (next !== "\n") word.value += next;
        } else {
          word.value += c;
        }
      } else if (c === "$") {
        this.#dollar(word, true);
      } else if (c === "`") {
        this.#backtick();
        word.dynamic = true;
      } else {
        word.value += c;
      }
    }
  }

  /**
   * After a `$`: a substitution, an expansion, ANSI-C quoting (not inside
   * double quotes, where `$'` is two plain characters), or a plain `$`.
   */
  #dollar(word: WordState, inDoubleQuotes: boolean): void {
    const c = this.#peek();
    if (c === "(") {
      this.#pos++;
      if (this.#peek() === "(") {
        arithmetic(this.#balanced());
      } else {
        this.#found.push(...this.#substitution());
      }
      word.dynamic = true;
    } else if (c === "[") {
      // `$[...]` is the old spelling of `$((...))`.
      this.#pos++;
      arithmetic(this.#until("]"));
      word.dynamic = true;
    } else if (c === "{") {
      this.#pos++;
      this.#parameter();
      word.dynamic = true;
    } else if (c === "'" && !inDoubleQuotes) {
      this.#pos++;
      word.value += ansiC(this.#ansiCBody());
      word.quoted = true;
    } else if (c === '"') {
      // $"..." is a translated string: the quotes that follow are read as usual.
    } else if (c !== undefined && /[A-Za-z_0-9@*#?$!-]/.test(c)) {
      this.#pos++;
      if (/[A-Za-z_]/.test(c)) {
        while (/[A-Za-z_0-9]/.test(this.#peek() ?? "")) this.#pos++;
      }
      word.dynamic = true;
    } else {
      word.value += "$";
    }
  }

  /**
   * The text of a `$'...'` whose `$'` was just read, up to its closing `'`
   * (consumed): in it, `\'` is a quote and `\\` a backslash, so the first
   * `'` is not always the end.
   */
  #ansiCBody(): string {
    const start = this.#pos;
    for (;;) {
      const c = this.#peek();
      if (c === undefined) throw new Unreadable(`a "$'" is not closed`);
      this.#pos++;
      if (c === "\\") this.#pos++;
      else if (c === "'") return this.#src.slice(start, this.#pos - 1);
    }
  }

  /**
   * A `${...}` whose `${` was just read, up to its `}` (consumed). Only the
   * plain forms are read (see `parameterForm`); anything else makes the line
   * unreadable, since the end of the expansion and what it runs depend on
   * quoting and arithmetic this reader does not follow.
   */
  #parameter(): void {
    const start = this.#pos;
    let depth = 1;
    for (;;) {
      const c = this.#peek();
      if (c === undefined) throw new Unreadable(`a "\${" is not closed`);
      this.#pos++;
      if (c === "'" || c === '"' || c === "\\" || c === "`") {
        throw new Unreadable("quotes, backslashes or backticks inside ${...} are not read");
      }
      if (c === "$" && this.#peek() === "{") {
        this.#pos++;
        depth++;
      } else if (c === "$" && (this.#peek() === "(" || this.#peek() === "[")) {
        throw new Unreadable("a substitution or arithmetic inside ${...} is not read");
      } else if (c === "}") {
        depth--;
        if (depth === 0) break;
      }
    }
    parameterForm(this.#src.slice(start, this.#pos - 1));
  }

  #backtick(): void {
    let inner = "";
    for (;;) {
      const c = this.#peek();
      if (c === undefined) throw new Unreadable("a backtick is not closed");
      this.#pos++;
      if (c === "`") break;
      if (c === "\\" && this.#peek() !== undefined && "$`\\".includes(this.#peek()!)) {
        inner += this.#peek();
        this.#pos++;
      } else {
        inner += c;
      }
    }
    this.#found.push(...new Reader(inner, this.#depth + 1).list(null));
  }

  /**
   * The text up to the `)` that closes the `(` just read, counting nested
   * parentheses: for arithmetic `$((...))`, whose text `arithmetic` then
   * checks (it holds no quote, so no `)` in it is quoted).
   */
  #balanced(): string {
    const start = this.#pos;
    let depth = 1;
    while (depth > 0) {
      const c = this.#peek();
      if (c === undefined) throw new Unreadable(`a "(" is not closed`);
      this.#pos++;
      if (c === "(") depth++;
      else if (c === ")") depth--;
    }
    return this.#src.slice(start, this.#pos - 1);
  }

  /** The text up to `end` (consumed), which must come. */
  #until(end: string): string {
    const at = this.#src.indexOf(end, this.#pos);
    if (at === -1) throw new Unreadable(`a "${end === "'" ? "'" : end}" is not closed`);
    const text = this.#src.slice(this.#pos, at);
    this.#pos = at + 1;
    return text;
  }

  #skipBlanks(): void {
    for (;;) {
      const c = this.#peek();
      if (c === " " || c === "\t") this.#pos++;
      else if (c === "\\" && this.#src[this.#pos + 1] === "\n") this.#pos += 2;
      else if (c === "#") {
        const end = this.#src.indexOf("\n", this.#pos);
        this.#pos = end === -1 ? this.#src.length : end;
      } else return;
    }
  }

  #peek(): string | undefined {
    return this.#src[this.#pos];
  }
}
