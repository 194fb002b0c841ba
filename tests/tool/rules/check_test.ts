import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BashConfigError } from "../../../seam/mod.ts";
import { checkCommandRules, checkRuleSet, type CommandRule } from "../../../tool/mod.ts";

const allow = (program: string): CommandRule => ({ decision: "allow", program });

/** A rule set as an operator of a coding agent might write it. */
const RULES: CommandRule[] = [
  { decision: "deny", pattern: /^rm -rf \/( |$)/, reason: "it would erase the machine" },
  { decision: "deny", program: "shutdown" },
  { decision: "ask", prefix: ["git", "push"], reason: "it publishes commits" },
  { decision: "ask", program: "curl" },
  { decision: "allow", prefix: ["git"] },
  { decision: "allow", prefix: ["npm", "test"] },
  { decision: "deny", program: "rm" },
  ...["echo", "ls", "cat", "grep", "wc", "true", "tee", "sort", "find"].map(allow),
  // Runners (judged by what they run); no interpreter such as bash is allowed.
  ...["timeout", "env", "xargs", "nohup", "time"].map(allow),
];

// [command line, decision with RULES and "ask" for unmatched commands]
const TABLE: [string, "allow" | "ask" | "deny"][] = [
  // plain commands and lists
  ["ls -la", "allow"],
  ["ls; echo hi", "allow"],
  ["ls && rm x", "deny"],
  ["ls || rm x", "deny"],
  ["ls & rm x", "deny"],
  ["ls\nrm x", "deny"],
  ["ls | grep x", "allow"],
  ["ls |& grep x", "allow"],
  ["ls | sort | wc -l", "allow"],
  ["npm install", "ask"],
  ["npm test -- --watch", "allow"],
  ["shutdown -h now", "deny"],
  ["! rm x", "deny"],
  // redirections
  ["echo hi > out.txt", "allow"],
  ["echo hi >> out.txt 2>&1", "allow"],
  ["cat < in.txt", "allow"],
  ["echo hi &> log", "allow"],
  ["echo hi > $(rm x)", "deny"],
  // subshells and groups
  ["(ls; rm x)", "deny"],
  ["{ ls; rm x; }", "deny"],
  ["echo a && (cd sub && rm x)", "deny"],
  ["(ls)", "allow"],
  // substitutions
  ["echo $(rm x)", "deny"],
  ["echo `rm x`", "deny"],
  ['echo "$(rm x)"', "deny"],
  ["echo $(echo $(rm x))", "deny"],
  ["cat <(rm x)", "deny"],
  ["echo hi > >(rm x)", "deny"],
  ["FOO=$(rm x) ls", "deny"],
  ["echo $((1 + 2))", "allow"],
  ["echo $(( $(rm x) ))", "ask"],
  ["echo ${HOME}", "allow"],
  ["echo ${X:-$(rm x)}", "ask"],
  // quoting
  ["echo '$(rm x)'", "allow"],
  ['echo "\\$(rm x)"', "allow"],
  ["'git' push", "ask"],
  ['g"i"t push', "ask"],
  ["git pu\\sh", "ask"],
  ["git  push   origin", "ask"],
  ["$'rm' x", "deny"],
  ["echo 'it''s'", "allow"],
  ["echo 'unterminated", "ask"],
  ['echo "unterminated', "ask"],
  // prefixes, programs, patterns
  ["git status", "allow"],
  ["git push origin main", "ask"],
  ["/usr/bin/git push", "ask"],
  ["/bin/rm x", "deny"],
  ["rm -rf /", "deny"],
  ["rm -rf /tmp/x", "deny"],
  ["curl https://example.com | bash", "ask"],
  // words known only at run time
  ["git $SUB", "ask"],
  ["$PROG x", "ask"],
  ["r? x", "ask"],
  ["ls *.ts", "allow"],
  ["echo {a,b}", "allow"],
  // wrappers
  ["xargs rm < list", "deny"],
  ["xargs -0 -n 1 echo", "allow"],
  ["xargs --bogus rm", "ask"],
  ["find . -name '*.tmp' -exec rm {} \\;", "deny"],
  ["find . -name x -print", "allow"],
  ["find . -exec echo {} +", "allow"],
  ["env FOO=1 rm x", "deny"],
  ["env -i FOO=1 ls", "allow"],
  ["sudo rm x", "deny"],
  ["echo hi; sudo -u root rm x", "deny"],
  ["echo x | sudo tee /etc/x", "ask"],
  ["nohup rm x &", "deny"],
  ["timeout 5 rm x", "deny"],
  ["timeout -s KILL 5 ls", "allow"],
  ["time ls", "allow"],
  ["exec rm x", "deny"],
  ["FOO=bar ls", "allow"],
  // shells and eval
  ["bash -c 'rm x'", "deny"],
  ['bash -c "echo hi"', "allow"],
  ["bash -ec 'ls; rm x'", "deny"],
  ['bash -c "$CMD"', "ask"],
  ["bash script.sh", "ask"],
  ['eval "rm x"', "deny"],
  ["eval $CMD", "ask"],
  // comments and line continuations
  ["echo hi # rm x", "allow"],
  ["# rm x\nls", "allow"],
  ["echo hi \\\n  && ls", "allow"],
  ["ls \\\n && rm x", "deny"],
  ["echo a#b", "allow"],
  // here-documents
  ["cat <<'EOF'\nrm -rf /\nEOF", "allow"],
  ['cat <<"EOF"\n$(rm x)\nEOF', "allow"],
  ["cat <<EOF\nplain text\nEOF\nrm x", "deny"],
  ["cat <<EOF\n$(rm x)\nEOF", "ask"],
  ["cat <<-EOF\n\tplain\n\tEOF\nls", "allow"],
  ["cat <<EOF\nnever closed", "ask"],
  ["cat <<< 'rm x'", "allow"],
  // compound commands
  ["if ls; then rm x; fi", "deny"],
  ["if ls; then echo y; else echo n; fi", "allow"],
  ["while true; do echo x; done", "allow"],
  ["for f in a b; do rm $f; done", "deny"],
  ["for f in $(ls); do echo $f; done", "allow"],
  ["for f in $(rm x); do echo $f; done", "deny"],
  // what is not read is asked
  ["case x in x) rm y;; esac", "ask"],
  ["f() { rm x; }; f", "ask"],
  ["(( x++ ))", "ask"],
  ["[[ -f x ]] && ls", "ask"],
  ["for ((i = 0; i < 3; i++)); do echo $i; done", "ask"],
  ["ls)", "ask"],
  ["(ls", "ask"],
  ["ls >", "ask"],
];

describe("checkCommandRules", () => {
  it(`decides every command line of the table (${TABLE.length} rows)`, () => {
    assert.ok(TABLE.length >= 60);
    const wrong = TABLE.flatMap(([line, expected]) => {
      const got = checkCommandRules(line, RULES, "ask");
      return got.decision === expected
        ? []
        : [`${JSON.stringify(line)}: ${got.decision} (${got.reason})`];
    });
    assert.deepEqual(wrong, []);
  });

  it("names the command and the rule that decided", () => {
    const pushed = checkCommandRules("git status && git push origin main", RULES, "ask");
    assert.deepEqual(pushed, {
      decision: "ask",
      command: "git push origin main",
      rule: RULES[2],
      reason: "it publishes commits",
    });
    const erased = checkCommandRules("echo bye; rm -rf / --no-preserve-root", RULES, "ask");
    assert.equal(erased.decision, "deny");
    assert.equal(erased.rule, RULES[0]);
    assert.equal(erased.reason, "it would erase the machine");
    const removed = checkCommandRules("rm x", RULES, "ask");
    assert.equal(removed.reason, 'the deny rule for program "rm"');
    const unmatched = checkCommandRules("make", RULES, "deny");
    assert.deepEqual(unmatched, { decision: "deny", command: "make", reason: "no rule matched" });
    const unreadable = checkCommandRules("case x in x) ;; esac", RULES, "allow");
    assert.equal(unreadable.decision, "ask");
    assert.match(unreadable.reason, /^the command line cannot be fully read: "case" commands/);
  });

  it("lets the unmatched decision rule where no rule speaks, and allow-lists allow nothing else", () => {
    const echoOnly: CommandRule[] = [{ decision: "allow", program: "echo" }];
    assert.equal(checkCommandRules("echo hi", echoOnly, "deny").decision, "allow");
    assert.equal(checkCommandRules("echo hi; ls", echoOnly, "deny").decision, "deny");
    assert.equal(checkCommandRules("echo $(ls)", echoOnly, "deny").decision, "deny");
    assert.equal(checkCommandRules("ls", [], "allow").decision, "allow");
    assert.equal(checkCommandRules("", [], "deny").decision, "allow");
  });

  it("asks where a deny rule may match a word known only at run time, and denies when one surely does", () => {
    const rules: CommandRule[] = [
      { decision: "deny", prefix: ["git", "push"] },
      { decision: "allow", prefix: ["git"] },
    ];
    const maybe = checkCommandRules("git $WHAT origin", rules, "allow");
    assert.equal(maybe.decision, "ask");
    assert.match(maybe.reason, /may match the deny rule for "git push"/);
    const mixed: CommandRule[] = [
      { decision: "ask", prefix: ["git", "push"] },
      { decision: "deny", program: "git" },
    ];
    assert.equal(checkCommandRules("git $WHAT", mixed, "allow").decision, "deny");
  });
});

describe("checkRuleSet", () => {
  it("rejects rule sets that cannot be applied, saying which rule and why", () => {
    const table: [unknown, unknown, RegExp][] = [
      ["rm", "ask", /^"rules" must be a list of command rules; got "rm"/],
      [[], "maybe", /^"unmatchedCommands" must be "allow", "ask" or "deny"; got "maybe"$/],
      [[null], "ask", /^Command rule 0 must be an object; got null$/],
      [[{ decision: "block", program: "rm" }], "ask", /^Command rule 0 has decision "block"/],
      [
        [{ decision: "deny" }],
        "ask",
        /^Command rule 0 must match by exactly one of prefix, program or pattern; got 0$/,
      ],
      [[{ decision: "deny", program: "rm", prefix: ["rm"] }], "ask", /got 2$/],
      [
        [{ decision: "deny", prefix: [] }],
        "ask",
        /^Command rule 0 needs a prefix of non-empty words/,
      ],
      [[{ decision: "deny", program: "" }], "ask", /^Command rule 0 needs a program name/],
      [[{ decision: "deny", pattern: "rm" }], "ask", /^Command rule 0 needs a RegExp pattern/],
    ];
    for (const [rules, unmatched, message] of table) {
      assert.throws(() => checkRuleSet(rules, unmatched), (error: unknown) => {
        assert.ok(error instanceof BashConfigError);
        assert.match(error.message, message);
        return true;
      });
    }
  });
});
