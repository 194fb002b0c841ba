import { readCommandLine } from "./_shell.ts";
import { commandsRun, programName } from "./_wrappers.ts";

/** Full-screen editors: without a terminal they wait on the wall clock. */
const EDITORS = new Set([
  "vi",
  "vim",
  "nvim",
  "view",
  "vimdiff",
  "ex",
  "nano",
  "pico",
  "emacs",
  "emacsclient",
  "joe",
  "jed",
  "mcedit",
  "micro",
  "ne",
  "kak",
  "hx",
  "helix",
]);

/**
 * The text to answer at once when `commandLine` runs an interactive editor
 * (directly, in a pipeline or behind a wrapper), or undefined when it runs
 * none as far as it can be read.
 */
export function interactiveEditor(commandLine: string): string | undefined {
  const read = readCommandLine(commandLine);
  if (!read.ok) return undefined;
  for (const command of read.commands) {
    const run = commandsRun(command);
    if (!run.ok) continue;
    for (const { words: [program] } of run.commands) {
      if (typeof program !== "string" || !EDITORS.has(programName(program))) continue;
      return `[not run: "${
        programName(program)
      }" is an interactive editor, and commands here have no terminal, so it would only wait]\n` +
        "Edit files with commands instead: sed -i for small changes, a here-document " +
        "(cat > file <<'EOF' ... EOF) to write a whole file, or a short script";
    }
  }
  return undefined;
}
