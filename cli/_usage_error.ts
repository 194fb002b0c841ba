/**
 * The error of a command line that does not fit a command's usage, in a
 * module of its own so that `main()` can tell it without loading the
 * commands.
 *
 * @module
 */

/**
 * A command line that does not fit a command's usage: `main()` prints the
 * message and the usage on stderr and exits 2.
 */
export class UsageError extends Error {
  /** The usage text of the command whose arguments were wrong. */
  readonly usage: string;

  /** `message` says what was wrong; `usage` is the command's help text. */
  constructor(message: string, usage: string) {
    super(message);
    this.name = "UsageError";
    this.usage = usage;
  }
}
