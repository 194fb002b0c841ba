// Attempts to walk around command rules with a program's global options, a
// runner, words read at run time, a variable that runs code, or an
// interpreter: each row is a command line and the decision it must get.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { checkCommandRules, type CommandDecision, type CommandRule } from "../../../tool/mod.ts";

const allow = (program: string): CommandRule => ({ decision: "allow", program });

/** The README's example rule set, word for word. */
const README: CommandRule[] = [
  { decision: "deny", pattern: /^rm -rf (\/|~)( |$)/, reason: "it would erase the machine" },
  { decision: "deny", prefix: ["git", "push", "--force"] },
  { decision: "ask", prefix: ["git", "push"], reason: "it publishes commits" },
  { decision: "ask", prefix: ["npm", "publish"] },
  { decision: "ask", program: "curl" },
  { decision: "ask", program: "sudo" },
  ...["status", "diff", "log", "show", "add"]
    .map((command): CommandRule => ({ decision: "allow", prefix: ["git", command] })),
  { decision: "allow", prefix: ["npm", "test"] },
  { decision: "allow", prefix: ["npm", "run"] },
  ...["ls", "cat", "head", "tail", "grep", "rg", "find", "wc", "echo", "mkdir", "cp", "mv"]
    .map(allow),
];

/**
 * Not an example to follow: it allows git as a whole (an interpreter, through
 * `-c alias.x=!...`), as the README's example once did, and the runners
 * themselves, to show that a deny still holds behind them.
 */
const PERMISSIVE: CommandRule[] = [
  { decision: "deny", prefix: ["git", "push", "--force"] },
  { decision: "ask", prefix: ["git", "push"] },
  { decision: "allow", prefix: ["git"] },
  ...["echo", "ls", "grep", "find", "xargs", "env", "watch", "parallel", "timeout"].map(allow),
];

/** Subcommands of the other programs whose global options we know. */
const TOOLS: CommandRule[] = [
  ...["npm", "pnpm", "yarn", "cargo"].flatMap((program): CommandRule[] => [
    { decision: "deny", prefix: [program, "publish"] },
    { decision: "allow", prefix: [program, "test"] },
  ]),
  { decision: "deny", prefix: ["docker", "push"] },
  { decision: "deny", prefix: ["kubectl", "delete"] },
  { decision: "deny", prefix: ["python3", "-m", "pip"] },
  { decision: "allow", prefix: ["docker", "ps"] },
  { decision: "allow", prefix: ["kubectl", "get"] },
  { decision: "allow", prefix: ["python3", "-m", "pytest"] },
];

/** The review's set: two denies and three allows, nothing else. */
const BRIEF: CommandRule[] = [
  { decision: "deny", prefix: ["git", "push"] },
  { decision: "deny", prefix: ["rm", "-rf"] },
  { decision: "allow", prefix: ["git", "status"] },
  { decision: "allow", prefix: ["npm", "test"] },
  { decision: "allow", program: "ls" },
];

const SETS = { README, PERMISSIVE, TOOLS, BRIEF };

// [rule set, command line, decision with "ask" for unmatched commands]
const TABLE: [keyof typeof SETS, string, CommandDecision][] = [
  // git's global options before the subcommand
  ["README", "git push --force", "deny"],
  ["README", "git -C . push --force", "deny"],
  ["README", "git --no-pager push --force", "deny"],
  ["README", "git -c x.y=z push --force", "deny"],
  ["README", "git --git-dir=.git push --force", "deny"],
  ["README", "git --git-dir .git push --force", "deny"],
  ["README", "git --work-tree=. --git-dir=.git push --force", "deny"],
  ["README", "git --namespace=x push --force", "deny"],
  ["README", "git --namespace x push --force", "deny"],
  ["README", "git -p push --force", "deny"],
  ["README", "git --paginate push --force", "deny"],
  ["README", "git -P push --force", "deny"],
  ["README", "git --bare push --force", "deny"],
  ["README", "git --literal-pathspecs --glob-pathspecs push --force", "deny"],
  ["README", "git --icase-pathspecs --noglob-pathspecs push --force", "deny"],
  ["README", "git --no-replace-objects push --force", "deny"],
  ["README", "git --config-env=x.y=HOME push --force", "deny"],
  ["README", "git --no-optional-locks push --force", "deny"],
  ["README", "git --super-prefix=x/ push --force", "deny"],
  ["README", "git --exec-path=/tmp push --force", "deny"],
  ["README", "/usr/bin/git -C sub --no-pager push --force origin", "deny"],
  ["README", "git -C $DIR push --force", "deny"],
  ["README", "git $OPTS push --force", "deny"],
  ["PERMISSIVE", "git -C . push --force", "deny"],
  ["PERMISSIVE", "git --no-pager push --force", "deny"],
  ["PERMISSIVE", "git -c x.y=z push --force", "deny"],
  ["PERMISSIVE", "git --git-dir=.git push --force", "deny"],
  ["PERMISSIVE", "git -C . push origin main", "ask"],
  ["README", "git -C . push origin main", "ask"],
  ["README", "git -C . status", "allow"],
  ["README", "git -C $DIR status", "allow"],
  ["README", "git --no-pager log -5", "allow"],
  ["README", "git -c color.ui=never diff", "allow"],
  ["README", "git -c user.name=bot -c user.email=bot@x show", "allow"],
  ["README", "git -c safe.directory=* status", "ask"],
  // an option we do not know: a deny still matches, an allow never does
  ["README", "git --frobnicate push --force", "deny"],
  ["README", "git --frobnicate value push --force", "deny"],
  ["README", "git --frobnicate status", "ask"],
  ["README", "git $OPTS status", "ask"],
  ["PERMISSIVE", "git --frobnicate status", "allow"],
  // so many options that they are not read: a deny asks, an allow never applies
  ["README", `git ${"--frobnicate ".repeat(70)}push --force`, "ask"],
  ["README", `git ${"-C . ".repeat(40)}status`, "ask"],
  // git options that run another program never satisfy an allow after the program
  ["README", "git -c core.pager=sh status", "ask"],
  ["README", "git -c core.fsmonitor='rm -rf ~' status", "ask"],
  ["README", "git -c core.sshCommand='rm -rf ~' log", "ask"],
  ["README", "git -c alias.st=push st --force", "ask"],
  ["README", "git -c 'alias.x=!rm -rf ~' x", "ask"],
  ["README", "git -c alias.x=y push --force", "deny"],
  ["README", "git --exec-path=/tmp/x status", "ask"],
  ["PERMISSIVE", "git -c alias.st=push st --force", "ask"],
  // the other programs' global options
  ["TOOLS", "npm --prefix sub publish", "deny"],
  ["TOOLS", "npm -C sub publish", "deny"],
  ["TOOLS", "npm -w pkg publish", "deny"],
  ["TOOLS", "npm --workspace=pkg publish", "deny"],
  ["TOOLS", "npm --workspaces --include-workspace-root publish", "deny"],
  ["TOOLS", "npm --prefix sub test", "allow"],
  ["TOOLS", "npm --script-shell=/tmp/x test", "ask"],
  ["TOOLS", "pnpm --filter app publish", "deny"],
  ["TOOLS", "pnpm -C sub --dir sub publish", "deny"],
  ["TOOLS", "pnpm -r publish", "deny"],
  ["TOOLS", "pnpm --filter app test", "allow"],
  ["TOOLS", "yarn --cwd sub publish", "deny"],
  ["TOOLS", "yarn workspace app publish", "deny"],
  ["TOOLS", "yarn workspace app test", "allow"],
  ["TOOLS", "docker --context prod push img", "deny"],
  ["TOOLS", "docker -H tcp://h:2375 push img", "deny"],
  ["TOOLS", "docker --host=unix:///x.sock push img", "deny"],
  ["TOOLS", "docker -c prod ps", "allow"],
  ["TOOLS", "docker --config /tmp/x ps", "ask"],
  ["TOOLS", "kubectl -n prod delete pod x", "deny"],
  ["TOOLS", "kubectl --namespace=prod --context prod delete pod x", "deny"],
  ["TOOLS", "kubectl -nprod delete pod x", "deny"],
  ["TOOLS", "kubectl --kubeconfig /tmp/k delete pod x", "deny"],
  ["TOOLS", "kubectl --kubeconfig /tmp/k get pods", "ask"],
  ["TOOLS", "kubectl --context prod -n x get pods", "allow"],
  ["TOOLS", "cargo +nightly publish", "deny"],
  ["TOOLS", "cargo -v --locked publish", "deny"],
  ["TOOLS", "cargo +nightly test", "allow"],
  ["TOOLS", "cargo --config build.rustc-wrapper=/tmp/x test", "ask"],
  ["TOOLS", "python3 -m pip install x", "deny"],
  ["TOOLS", "python3 -u -m pip install x", "deny"],
  ["TOOLS", "python3 -mpip install x", "deny"],
  ["TOOLS", "python3 -uB -m pip install x", "deny"],
  ["TOOLS", "python3 -um pip install x", "deny"],
  ["TOOLS", "python3 -uBmpip install x", "ask"],
  ["TOOLS", "/usr/bin/python3 -I -m pip install x", "deny"],
  ["TOOLS", "python3 -m pytest -q", "allow"],
  ["TOOLS", "python3 -W error::evil.X -m pytest", "ask"],
  // words read at run time by xargs, parallel and find
  ["README", "echo push | xargs git", "ask"],
  ["PERMISSIVE", "echo push | xargs git", "ask"],
  ["PERMISSIVE", "echo --force | xargs git push", "ask"],
  ["PERMISSIVE", "xargs -0 git < list", "ask"],
  ["PERMISSIVE", "xargs -I{} git {} --force < list", "ask"],
  ["PERMISSIVE", "xargs -i git {} --force < list", "ask"],
  ["PERMISSIVE", "xargs -0 -n1 grep foo < list", "allow"],
  ["PERMISSIVE", "find . -name x -exec git {} \\;", "ask"],
  ["PERMISSIVE", "find . -execdir git push --force \\;", "deny"],
  ["PERMISSIVE", "find . -ok git push --force \\;", "deny"],
  ["PERMISSIVE", "find . -okdir git -C . push --force \\;", "deny"],
  ["PERMISSIVE", "find . -exec grep foo {} +", "allow"],
  ["PERMISSIVE", "parallel git ::: push", "ask"],
  ["PERMISSIVE", "echo 'git push --force' | parallel", "ask"],
  ["PERMISSIVE", "parallel 'git -C {} push --force' ::: a b", "deny"],
  ["PERMISSIVE", "parallel -j 2 grep foo ::: a b", "allow"],
  ["PERMISSIVE", "xargs sh -c < scripts", "ask"],
  ["PERMISSIVE", "xargs timeout 5 < list", "ask"],
  ["PERMISSIVE", "xargs env < list", "ask"],
  ["PERMISSIVE", "xargs find . < list", "ask"],
  ["PERMISSIVE", "xargs xargs < list", "ask"],
  ["PERMISSIVE", "xargs bash < list", "ask"],
  // runners are judged by what they run
  ["PERMISSIVE", "env -i PATH=/usr/bin git -C . push --force", "deny"],
  ["README", "nice -n 5 git -C . push --force", "deny"],
  ["README", "ionice -c 3 git --no-pager push --force", "deny"],
  ["README", "timeout 5 git -c x.y=z push --force", "deny"],
  ["README", "time git --git-dir=.git push --force", "deny"],
  ["README", "nohup git -C . push --force &", "deny"],
  ["README", "setsid git -C . push --force", "deny"],
  ["README", "stdbuf -oL git -C . push --force", "deny"],
  ["README", "chrt -b 0 git -C . push --force", "deny"],
  ["README", "taskset -c 0 git push --force", "deny"],
  ["README", "sudo git -C . push --force", "deny"],
  ["README", "doas git -C . push --force", "deny"],
  ["README", "command git -C . push --force", "deny"],
  ["README", "exec git -C . push --force", "deny"],
  ["README", "builtin eval 'git -C . push --force'", "deny"],
  ["README", "eval 'git -C . push --force'", "deny"],
  ["README", "sh -c 'git -C . push --force'", "deny"],
  ["README", "bash -c 'git --no-pager push --force'", "deny"],
  ["README", "dash -c 'git -c a.b=c push --force'", "deny"],
  ["README", "zsh -c 'git --git-dir=.git push --force'", "deny"],
  ["PERMISSIVE", "watch -n 1 'git -C . push --force'", "deny"],
  ["README", "watch 'rm -rf ~'", "deny"],
  ["README", "script -qc 'git -C . push --force' /dev/null", "deny"],
  ["README", "script --command='rm -rf /' /dev/null", "deny"],
  ["README", "su -c 'git -C . push --force'", "deny"],
  ["README", "su root -c 'rm -rf /'", "deny"],
  ["README", "timeout 60 npm test", "allow"],
  ["README", "bash -c 'git status && npm test'", "allow"],
  ["README", "sudo -u root git status", "ask"],
  ["README", "strace -f git status", "ask"],
  ["README", ". ./script.sh", "ask"],
  ["README", "source ./script.sh", "ask"],
  ["README", "bash ./script.sh", "ask"],
  // variables that make a program run other code
  ["README", "LD_PRELOAD=./x.so ls", "ask"],
  ["README", "PATH=.:$PATH ls", "ask"],
  ["README", "PATH=/tmp/evil; ls", "ask"],
  ["README", "export PATH=/tmp/evil; ls", "ask"],
  ["README", "GIT_PAGER='rm -rf ~' git log", "ask"],
  ["README", "HOME=/tmp/evil git status", "ask"],
  ["README", "NODE_OPTIONS=--require=./x.js npm test", "ask"],
  ["PERMISSIVE", "env LD_PRELOAD=./x.so ls", "ask"],
  ["README", "LD_PRELOAD=./x.so timeout 5 ls", "ask"],
  ["README", "LD_PRELOAD=./x.so bash -c ls", "ask"],
  ["README", "GIT_AUTHOR_NAME=bot git log", "allow"],
  ["README", "CI=1 npm test", "allow"],
  // interpreters run whatever they are handed: the README's rules allow none
  ["README", "python3 -c 'import os; os.system(\"rm -rf ~\")'", "ask"],
  ["README", "perl -e 'system q(rm -rf ~)'", "ask"],
  ["README", 'node -e \'require("child_process").execSync("rm -rf ~")\'', "ask"],
  ["README", "awk 'BEGIN { system(\"rm -rf ~\") }'", "ask"],
  ["README", "sed -n '1e rm -rf ~' README.md", "ask"],
  ["README", "git -c core.sshCommand='rm -rf ~' fetch", "ask"],
  // spellings that hide a command from the reader, where bash still runs it (each was allowed)
  ["BRIEF", "ls $'\\' ' ; git push #'", "deny"],
  ["README", "ls $'\\' ' ; rm -rf / #'", "deny"],
  ["BRIEF", 'ls "$\'" ; git push #\'"', "deny"],
  ["BRIEF", "ls $(ls # ) '\ngit push\n) #'", "deny"],
  ["BRIEF", "ls ${x:-'}'} ; git push #'", "ask"],
  ["README", 'ls ${x:-"}"} ; rm -rf / #"', "ask"],
  ["BRIEF", "x='a[$(git push)]'; ls $((x))", "ask"],
  ["BRIEF", "x=$(ls); ls $((x + 1))", "ask"],
  ["BRIEF", "x='a[$(git push)]'; ls $[x]", "ask"],
  ["BRIEF", "x='a[$(git push)]'; ls ${a[x]}", "ask"],
  ["BRIEF", "x='a[$(git push)]'; ls ${HOME:x}", "ask"],
  ["BRIEF", "x='a[$(git push)]'; ls ${!x}", "ask"],
  ["BRIEF", "x='$(git push)'; ls ${x@P}", "ask"],
  ["BRIEF", "x='b[$(git push)]'; a[x]=1; ls", "ask"],
  ["README", "x='b[$(git push)]'; a[x]=1 ls", "ask"],
  ["README", "echo ${x:-a} ${#x} ${x%.*} ${x//a/b} ${x:1:2} ${x: -3} ${x@Q} ${x:-${y}}", "allow"],
  ["README", "echo $((1 + 2)) $[3 * 4]; a[1]=2; ls {a,b}.txt", "allow"],
  ["BRIEF", "ls $(echo ')' ; git push)", "deny"],
  ["BRIEF", "ls $(ls <<'E'\n)\nE\n); git push", "deny"],
  ["PERMISSIVE", "git {push,'a b'}", "ask"],
  // a path outside the folders of installed programs may be a copy of another program
  ["README", "cp /bin/sh ./ls; ./ls -c 'git push --force'", "ask"],
  ["README", "cp /usr/bin/git cat && ./cat push --force", "ask"],
  ["BRIEF", "sub/ls -c x", "ask"],
  ["BRIEF", "/tmp/ls", "ask"],
  ["BRIEF", "/usr/bin/ls -la", "allow"],
  ["BRIEF", "./git push", "deny"],
  // npm reads every option before `--` as its configuration
  ["BRIEF", "npm test --script-shell=/bin/sh", "ask"],
  ["BRIEF", "npm test --node-options=--require=./x.js", "ask"],
  ["BRIEF", "npm test --userconfig ./evil.npmrc", "ask"],
  ["README", "npm run build --globalconfig=./x", "ask"],
  ["BRIEF", "npm test $OPTS", "ask"],
  ["BRIEF", "npm test -- --script-shell=/bin/sh", "allow"],
  ["BRIEF", "npm test --silent", "allow"],
  // builtins that run a string, rebind a name, or evaluate a subscript
  ["BRIEF", "trap 'git push' EXIT; ls", "deny"],
  ["BRIEF", "hash -p /usr/bin/git ls; ls push", "ask"],
  ["BRIEF", "alias ls='git push'", "ask"],
  ["BRIEF", "mapfile -C 'git push' -c 1 a < f", "ask"],
  ["BRIEF", "compgen -C 'git push' x", "ask"],
  // and the rest of the review's spellings, which held
  ["BRIEF", "g\\it push", "deny"],
  ["BRIEF", '"git" push', "deny"],
  ["BRIEF", "$'\\x67it' push", "deny"],
  ["BRIEF", "{git,push}", "ask"],
  ["BRIEF", "command -p git push", "deny"],
  ["BRIEF", "f(){ git push; }; f", "ask"],
  ["BRIEF", 'git -C "$(pwd)" push', "deny"],
  ["BRIEF", 'ls <<< "$(git push)"', "deny"],
  ["BRIEF", "exec git push", "deny"],
  ["BRIEF", "ls <(git push)", "deny"],
  ["BRIEF", "ls $(( $(git push) ))", "ask"],
  ["BRIEF", "ls |& git push", "deny"],
  ["BRIEF", "ls\ngit push", "deny"],
  ["BRIEF", ">x git push", "deny"],
  ["BRIEF", "env -S 'git push'", "ask"],
  ["BRIEF", "nice -n5 git push", "deny"],
  ["BRIEF", "timeout -s KILL 5 git push", "deny"],
  ["BRIEF", "xargs -a file git", "ask"],
  ["BRIEF", "find . -exec sh -c 'git push' \\;", "deny"],
  ["BRIEF", "git --exec-path=/tmp status", "ask"],
  ["BRIEF", "git -c core.pager='git push' status", "ask"],
  ["BRIEF", "npm test -- --foo; git push", "deny"],
  // a shell's or a runner's grammar read wrong ran what the reader did not see
  ["BRIEF", "bash -eo pipefail -c 'git push'", "deny"],
  ["BRIEF", "bash -c -x 'git push'", "deny"],
  ["BRIEF", "sh -c -- 'rm -rf /'", "deny"],
  ["BRIEF", "bash --rcfile x -c 'git push'", "deny"],
  ["BRIEF", "bash -c ls -c 'git push'", "allow"],
  ["BRIEF", "timeout -- 5 git push", "deny"],
  ["BRIEF", "taskset -- 1 git push", "deny"],
  ["BRIEF", "busybox sh -c 'git push'", "deny"],
  ["BRIEF", "busybox env git push", "deny"],
];

/** Lines a deny list with everything else allowed must still deny or ask. */
const DENY_LIST: [string, CommandDecision][] = [
  // the table's "ask" rows of builtins and runners, where "ask" is not the default
  ["hash -p /usr/bin/git ls; ls push", "ask"],
  ["alias ls='git push'", "ask"],
  ["mapfile -C 'git push' -c 1 a < f", "ask"],
  ["compgen -C 'git push' x", "ask"],
  ["{git,push}", "ask"],
  ["f(){ git push; }; f", "ask"],
  ["env -S 'git push'", "ask"],
  ["xargs -a file git", "ask"],
  // a subscript evaluated as a name runs what it holds
  ["echo 1 | read -e 'b[$(git push)]'", "ask"],
  ["echo 1 | read -e -r line", "allow"],
  ["printf -v'c[$(git push)]' x", "ask"],
  ["printf -vname x", "allow"],
  ["unset -v 'a[$(git push)]'", "ask"],
  ["unset -v name other", "allow"],
  ["trap 'git push' EXIT", "deny"],
  ["git {push,'a b'}", "ask"],
  ["shopt -s expand_aliases\nalias g='git push'\ng", "ask"],
  ["hash -p /usr/bin/git g; g push", "ask"],
  ['ls "$\'" ; git push #\'"', "deny"],
  ["bash -eo pipefail -c 'git push'", "deny"],
  ["timeout -- 5 git push", "deny"],
  ["busybox sh -c 'git push'", "deny"],
  // npm runs any unambiguous start of a command's name
  ["npm pub", "ask"],
  ["npm --prefix x publis --tag next", "ask"],
  ["npm test", "allow"],
];

describe("command rules against attempts to walk around them", () => {
  it(`decide every attempt of the table (${TABLE.length} rows)`, () => {
    assert.ok(TABLE.length >= 60);
    const wrong = TABLE.flatMap(([set, line, expected]) => {
      const got = checkCommandRules(line, SETS[set], "ask");
      return got.decision === expected
        ? []
        : [`${set} ${JSON.stringify(line)}: ${got.decision} (${got.reason})`];
    });
    assert.deepEqual(wrong, []);
  });

  it(`hold a deny where every other command is allowed (${DENY_LIST.length} rows)`, () => {
    const rules: CommandRule[] = [
      ...BRIEF.filter((rule) => rule.decision === "deny"),
      { decision: "deny", prefix: ["npm", "publish"] },
    ];
    const wrong = DENY_LIST.flatMap(([line, expected]) => {
      const got = checkCommandRules(line, rules, "allow");
      return got.decision === expected ? [] : [`${JSON.stringify(line)}: ${got.decision}`];
    });
    assert.deepEqual(wrong, []);
  });

  it("decide as docs/command-rules.md says they do", () => {
    const decide = (line: string, rules: CommandRule[], unmatched: CommandDecision) =>
      checkCommandRules(line, rules, unmatched).decision;
    // A rule naming a path allows it; a copy under an allowed name is no installed program.
    assert.equal(
      decide("./scripts/check.sh", [{ decision: "allow", prefix: ["./scripts/check.sh"] }], "ask"),
      "allow",
    );
    const copies: CommandRule[] = [
      { decision: "allow", program: "ls" },
      { decision: "allow", program: "cp" },
    ];
    assert.equal(decide("cp /bin/sh ./ls; ./ls -c 'git push'", copies, "ask"), "ask");
    // A prefix is the leading words only.
    const push: CommandRule[] = [
      { decision: "deny", prefix: ["git", "push", "--force"] },
      { decision: "ask", prefix: ["git", "push"] },
    ];
    assert.equal(decide("git push origin --force", push, "allow"), "ask");
    // After npm's subcommand, only these options keep an allow.
    const npmTest: CommandRule[] = [{ decision: "allow", prefix: ["npm", "test"] }];
    for (const option of ["--if-present", "--ignore-scripts", "--foreground-scripts"]) {
      assert.equal(decide(`npm test ${option}`, npmTest, "ask"), "allow", option);
    }
    assert.equal(decide("npm test --script-shell=/bin/sh", npmTest, "ask"), "ask");
    // Arithmetic over names, and builtins that rebind or run what they are handed.
    for (
      const line of [
        "let x=1",
        "declare -i x",
        "printf -v 'a[i]' x",
        "read 'a[i]'",
        "enable -f ./x.so y",
        "bind -x '\"\\C-a\":ls'",
        "complete -C ls x",
      ]
    ) {
      assert.equal(decide(line, [], "allow"), "ask", line);
    }
  });

  it("say why an allow rule did not apply, and why a run-time word asks", () => {
    assert.deepEqual(checkCommandRules("git --frob status", README, "ask"), {
      decision: "ask",
      command: "git --frob status",
      reason: 'no rule matched (the allow rule for "git status" does not apply: "--frob" is an ' +
        "option of git that is not known here)",
    });
    assert.match(
      checkCommandRules("git -c core.pager=sh log", README, "deny").reason,
      /does not apply: "-c core\.pager=sh" can make git run another program/,
    );
    assert.match(
      checkCommandRules("LD_PRELOAD=./x.so ls", README, "deny").reason,
      /does not apply: it sets LD_PRELOAD, which can make it run other code/,
    );
    assert.match(
      checkCommandRules("./ls", README, "deny").reason,
      /"\.\/ls" is a path outside the folders of installed programs/,
    );
    assert.match(
      checkCommandRules("npm test --script-shell=/bin/sh", README, "deny").reason,
      /npm reads "--script-shell=\/bin\/sh" as its configuration/,
    );
    const piped = checkCommandRules("echo push | xargs git", README, "deny");
    assert.equal(piped.decision, "ask");
    assert.equal(piped.command, "git");
    assert.match(piped.reason, /may match the deny rule for "git push --force"/);
  });

  it("judge a runner by its own rule where it denies, and a privileged one and find always", () => {
    const rules: CommandRule[] = [
      { decision: "deny", program: "nohup" },
      { decision: "allow", program: "ls" },
      { decision: "allow", program: "doas" },
    ];
    assert.equal(checkCommandRules("find . -delete -exec ls {} +", rules, "ask").decision, "ask");
    assert.equal(checkCommandRules("nohup ls", rules, "allow").decision, "deny");
    assert.equal(checkCommandRules("timeout 5 ls", rules, "deny").decision, "allow");
    assert.equal(checkCommandRules("sudo ls", rules, "deny").decision, "deny");
    assert.equal(checkCommandRules("doas ls", rules, "deny").decision, "allow");
  });
});
