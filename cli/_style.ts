import process from "node:process";

/** The styles the command line uses: each returns its text, coloured or as it is. */
export interface Style {
  /** For headings. */
  bold(text: string): string;
  /** For what the command line adds around a command's own output. */
  dim(text: string): string;
  /** For a failure. */
  red(text: string): string;
}

/** The stream a {@linkcode styleFor} colours: what it needs of `process.stdout`/`stderr`. */
export interface StyledStream {
  readonly isTTY?: boolean;
}

/**
 * The styles for text written to `stream`: colours (ANSI SGR codes) only when
 * `stream` is a terminal and `NO_COLOR` is unset or empty (no-color.org), the
 * text as it is otherwise.
 */
export function styleFor(stream: StyledStream): Style {
  const noColor = process.env.NO_COLOR;
  const on = stream.isTTY === true && (noColor === undefined || noColor === "");
  const sgr = (open: number, close: number) => (text: string): string =>
    on ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39) };
}
