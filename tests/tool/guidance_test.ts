import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BASH_TOOL_GUIDANCE } from "../../tool/mod.ts";
import { markerTemplates, RENDERED, templatePattern } from "./_markers.ts";

describe("BASH_TOOL_GUIDANCE", () => {
  it("tells the model to check the exit marker, and the order of the markers", () => {
    assert.match(
      BASH_TOOL_GUIDANCE,
      /Check the marker lines at the end of every bash result before you trust the output: \[timed out after N ms\] when the time limit stopped the command, then \[exit code: N\] \(0 means success\) or \[killed by signal: SIGX\]\./,
    );
  });

  it("tells the model not to busy-poll, and how to wait instead", () => {
    assert.match(
      BASH_TOOL_GUIDANCE,
      /Do not busy-poll a background task\. Call task_output with wait: true/,
    );
  });

  it("tells the model to collect background tasks before answering", () => {
    assert.match(
      BASH_TOOL_GUIDANCE,
      /Before you give your final answer, collect every background task you started: read its output with task_output, or stop it with task_kill/,
    );
  });

  it("says when to use a terminal, how to quit its programs, how to resize, and what stays off", () => {
    for (
      const phrase of [
        "use terminal: true only for programs that need one or wait for input",
        "prefer a non-interactive flag",
        "resize it with task_input's rows and cols",
        "q for less, top and man",
        '"\\u001b:q!\\r" for vi',
        'exit() or "\\u0004" (Ctrl-D) for a REPL',
        '"\\u0003" (Ctrl-C) to stop a command',
        "git and gh still never ask for credentials (GIT_TERMINAL_PROMPT=0",
      ]
    ) {
      assert.ok(BASH_TOOL_GUIDANCE.includes(phrase), phrase);
    }
  });

  it("names only markers the tools really render", () => {
    const templates = markerTemplates(BASH_TOOL_GUIDANCE);
    assert.ok(templates.length >= 5, templates.join(" "));
    for (const template of templates) {
      const pattern = templatePattern(template);
      assert.ok(RENDERED.some((text) => pattern.test(text)), `no rendering matches ${template}`);
    }
  });
});
