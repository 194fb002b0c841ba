import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  AF_INET,
  AF_INET6,
  AF_NETLINK,
  AF_UNIX,
  commandFilter,
  seccompFilter,
} from "../../../sandbox/backends/_seccomp.ts";

type Insn = { code: number; jt: number; jf: number; k: number };

function decode(bytes: Uint8Array): Insn[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.length / 8 }, (_, i) => ({
    code: view.getUint16(i * 8, true),
    jt: view.getUint8(i * 8 + 2),
    jf: view.getUint8(i * 8 + 3),
    k: view.getUint32(i * 8 + 4, true),
  }));
}

/** Runs the classic BPF program over one `seccomp_data` (nr, arch, first argument). */
function verdict(bytes: Uint8Array, nr: number, arch: number, arg0 = 0): number {
  const program = decode(bytes);
  const data: Record<number, number> = { 0: nr, 4: arch, 16: arg0 };
  let acc = 0;
  for (let pc = 0; pc < program.length;) {
    const { code, jt, jf, k } = program[pc]!;
    if (code === 0x20) acc = data[k] ?? assert.fail(`load of offset ${k}`);
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else assert.fail(`unknown instruction ${code}`);
    pc++;
  }
  return assert.fail("the program ran off its end");
}

const ALLOW = 0x7fff0000, EACCES = 0x0005000d, ENOSYS = 0x00050026;
const X64 = 0xc000003e, ARM64 = 0xc00000b7;

describe("seccompFilter", () => {
  it("refuses the keyring calls and io_uring, and allows the rest (x64)", () => {
    const filter = seccompFilter({}, "x64")!;
    for (const nr of [248, 249, 250]) assert.equal(verdict(filter, nr, X64), EACCES, `${nr}`);
    for (const nr of [425, 426, 427]) assert.equal(verdict(filter, nr, X64), ENOSYS, `${nr}`);
    for (const nr of [0, 1, 41, 59, 247, 251, 424, 428]) {
      assert.equal(verdict(filter, nr, X64), ALLOW);
    }
  });

  it("uses arm64's numbers on arm64", () => {
    const filter = seccompFilter({}, "arm64")!;
    for (const nr of [217, 218, 219]) assert.equal(verdict(filter, nr, ARM64), EACCES);
    assert.equal(verdict(filter, 250, ARM64), ALLOW);
  });

  it("with keepSession, setsid returns 0 without running (x64 and arm64)", () => {
    const kept = 0x00050000;
    assert.equal(verdict(seccompFilter({ keepSession: true }, "x64")!, 112, X64), kept);
    assert.equal(verdict(seccompFilter({ keepSession: true }, "arm64")!, 157, ARM64), kept);
    assert.equal(verdict(seccompFilter({}, "x64")!, 112, X64), ALLOW);
  });

  it("fails every call of another ABI: 32-bit and x32", () => {
    const filter = seccompFilter({}, "x64")!;
    assert.equal(verdict(filter, 0, 0x40000003), ENOSYS);
    assert.equal(verdict(filter, 0x40000000 + 250, X64), ENOSYS);
    assert.equal(verdict(filter, 0x40000000, X64), ENOSYS);
  });

  it("with socket families, socket() creates only those", () => {
    const filter = seccompFilter({ socketFamilies: [AF_UNIX, AF_NETLINK] }, "x64")!;
    assert.equal(verdict(filter, 41, X64, AF_UNIX), ALLOW);
    assert.equal(verdict(filter, 41, X64, AF_NETLINK), ALLOW);
    for (const family of [AF_INET, 10, 40, 0]) {
      assert.equal(verdict(filter, 41, X64, family), EACCES, `family ${family}`);
    }
    assert.equal(verdict(filter, 42, X64, AF_INET), ALLOW, "connect is not socket");
    assert.equal(verdict(filter, 250, X64), EACCES);
  });

  it("refuses System V IPC and message queues only when asked", () => {
    const open = seccompFilter({}, "x64")!;
    const closed = seccompFilter({ denyIpc: true }, "x64")!;
    for (const nr of [29, 30, 31, 64, 65, 66, 68, 69, 70, 71, 220, 240, 241]) {
      assert.equal(verdict(open, nr, X64), ALLOW, `${nr}`);
      assert.equal(verdict(closed, nr, X64), EACCES, `${nr}`);
    }
    assert.equal(verdict(closed, 67, X64), ALLOW, "shmdt");
    const arm = seccompFilter({ denyIpc: true }, "arm64")!;
    for (const nr of [180, 181, 186, 194, 196]) assert.equal(verdict(arm, nr, ARM64), EACCES);
    assert.equal(verdict(arm, 197, ARM64), ALLOW, "shmdt");
  });

  it("is undefined on an architecture it does not know", () => {
    assert.equal(seccompFilter({}, "mips"), undefined);
  });
});

describe("commandFilter", () => {
  it("refuses IPC always, and with the network denied every socket but netlink (and Unix, under unix)", () => {
    const none = commandFilter("none", "x64")!;
    const unix = commandFilter("unix", "x64")!;
    const any = commandFilter("any", "x64")!;
    for (const filter of [none, unix, any]) {
      assert.equal(verdict(filter, 29, X64), EACCES, "shmget");
    }
    for (const family of [AF_INET, AF_INET6]) {
      assert.equal(verdict(none, 41, X64, family), EACCES, `family ${family}`);
      assert.equal(verdict(unix, 41, X64, family), EACCES, `family ${family}`);
      assert.equal(verdict(any, 41, X64, family), ALLOW, `family ${family}`);
    }
    assert.equal(verdict(none, 41, X64, AF_UNIX), EACCES);
    assert.equal(verdict(unix, 41, X64, AF_UNIX), ALLOW);
    assert.equal(verdict(any, 41, X64, AF_UNIX), ALLOW);
    for (const filter of [none, unix]) assert.equal(verdict(filter, 41, X64, AF_NETLINK), ALLOW);
    // socketpair (53 on x64) is another system call: never refused.
    for (const filter of [none, unix, any]) assert.equal(verdict(filter, 53, X64, AF_UNIX), ALLOW);
    assert.equal(commandFilter("none", "mips"), undefined);
  });
});
