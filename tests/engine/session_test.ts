// How the engine starts a helper process (an ssh channel) in a session of its own: through
// util-linux setsid where the runtime's own way forks the whole process, and only when this
// process may run setsid.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { findSetsid, helperSetsid, inOwnSession } from "../../engine/mod.ts";
import { type Runtime, runtime } from "../../runtime/mod.ts";

const setsid = findSetsid();

describe("helperSetsid", () => {
  it("takes no setsid where the runtime's detached spawn forks anyway (Node)", () => {
    assert.equal(helperSetsid({ ...runtime, autoSession: "detached" }), null);
  });

  it("takes util-linux setsid where the runtime's detached would fork the process (Deno)", {
    skip: setsid === null ? "no util-linux setsid on PATH" : false,
  }, () => {
    assert.equal(helperSetsid({ ...runtime, autoSession: "setsid-binary" }), setsid);
  });

  it("takes none that this process may not run, so a scoped --allow-run still works", {
    skip: setsid === null ? "no util-linux setsid on PATH" : false,
  }, () => {
    const asked: string[] = [];
    const refusing: Runtime = {
      ...runtime,
      autoSession: "setsid-binary",
      mayRun: (program) => {
        asked.push(program);
        return false;
      },
    };
    assert.equal(helperSetsid(refusing), null);
    assert.deepEqual(asked, [setsid]);
  });
});

describe("inOwnSession", () => {
  it("puts setsid in front, which execs the program in its session", () => {
    assert.deepEqual(inOwnSession("/usr/bin/setsid", "/usr/bin/ssh", ["-T", "h"]), {
      program: "/usr/bin/setsid",
      args: ["/usr/bin/ssh", "-T", "h"],
      session: "setsid-binary",
    });
  });

  it("leaves the program as it is for the runtime's detached without one", () => {
    assert.deepEqual(inOwnSession(null, "/usr/bin/ssh", ["-T", "h"]), {
      program: "/usr/bin/ssh",
      args: ["-T", "h"],
      session: "detached",
    });
  });
});
