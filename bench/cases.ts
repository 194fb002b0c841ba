/**
 * Every benchmark case, in the order they run and are reported. To add a
 * case, write a module that exports a `BenchCase` (see `_case.ts` and
 * bench/README.md) and list it here.
 *
 * @module
 */
import type { BenchCase } from "./_case.ts";
import { background200 } from "./cases/background.ts";
import { foregroundDeno } from "./cases/foreground_deno.ts";
import { foregroundNode } from "./cases/foreground_node.ts";
import { growthSlope } from "./cases/growth.ts";
import { longSession } from "./cases/long_session.ts";
import { proxyRequest, sandboxAllowList } from "./cases/proxy.ts";
import { sandboxBwrap, sandboxLandlock, sandboxVsCodex, sandboxVsSrt } from "./cases/sandbox.ts";
import { sshRunTrue } from "./cases/ssh.ts";
import { sandboxStandby } from "./cases/standby.ts";
import { sandboxBwrap20k, sandboxFirstCall } from "./cases/sandbox_walk.ts";
import { agentSession } from "./cases/agent_session.ts";
import { terminalEcho } from "./cases/terminal.ts";
import { memory, throughputDeno, throughputNode } from "./cases/throughput.ts";

/** The cases of `deno task bench`, in order. */
export const CASES: readonly BenchCase[] = [
  foregroundDeno,
  foregroundNode,
  throughputDeno,
  throughputNode,
  memory,
  background200,
  sandboxBwrap,
  sandboxLandlock,
  sandboxStandby,
  sandboxBwrap20k,
  sandboxFirstCall,
  agentSession,
  sandboxVsSrt,
  sandboxVsCodex,
  proxyRequest,
  sandboxAllowList,
  growthSlope,
  longSession,
  sshRunTrue,
  terminalEcho,
];
