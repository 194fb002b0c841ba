/**
 * Network allow-lists: checking a policy's `network`, matching a
 * destination against a list, and telling the addresses a name may not
 * resolve to (loopback, link-local, private) unless they are listed.
 *
 * @module
 */
import { isIP } from "node:net";
import {
  BashConfigError,
  type SandboxNetwork,
  type SandboxNetworkAllowList,
} from "../../seam/mod.ts";

/** At most this many entries in one list: it is checked for every connection. */
const MAX_ENTRIES = 1000;
/** A DNS name: labels of letters, digits, `-` and `_`, dot-separated. */
const HOST_NAME =
  /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * `network` checked: `"deny"`, `"allow"`, or an allow-list whose entries
 * are host names, `*.domain` wildcards or IP addresses, returned
 * lower-cased and deduplicated (an IPv6 address without brackets). Throws
 * `BashConfigError` naming the bad value.
 */
export function checkedNetwork(network: unknown): SandboxNetwork {
  if (network === "deny" || network === "allow") return network;
  if (typeof network !== "object" || network === null || Array.isArray(network)) {
    throw new BashConfigError(
      `Sandbox network ${
        JSON.stringify(network)
      } is not known; use "deny", "allow" or { allow: ["example.com", "*.example.com"] }`,
    );
  }
  const unknown = Object.keys(network).filter((key) => key !== "allow" && key !== "deny");
  if (unknown.length > 0) {
    throw new BashConfigError(
      `Sandbox network allow-list has unknown key "${unknown[0]}"; use only "allow" and "deny"`,
    );
  }
  const { allow, deny } = network as { allow?: unknown; deny?: unknown };
  const checked: SandboxNetworkAllowList = { allow: entries("allow", allow) };
  if (deny !== undefined) checked.deny = entries("deny", deny);
  return checked;
}

function entries(field: "allow" | "deny", list: unknown): string[] {
  if (!Array.isArray(list) || list.length > MAX_ENTRIES) {
    throw new BashConfigError(
      `Sandbox network "${field}" must be a list of at most ${MAX_ENTRIES} host names; got ${
        JSON.stringify(list)?.slice(0, 200)
      }; pass an array such as ["registry.npmjs.org", "*.example.com"]`,
    );
  }
  return [...new Set(list.map((entry: unknown) => checkedEntry(field, entry)))];
}

function checkedEntry(field: "allow" | "deny", entry: unknown): string {
  if (typeof entry === "string") {
    const lower = entry.trim().toLowerCase().replace(/\.$/, "");
    const bare = normalHost(lower);
    if (isIP(bare) !== 0) return bare;
    const name = lower.startsWith("*.") ? lower.slice(2) : lower;
    if (HOST_NAME.test(name) && !/^[0-9.]+$/.test(name)) return lower;
  }
  throw new BashConfigError(
    `Sandbox network "${field}" entry ${
      JSON.stringify(entry)
    } is not a host name, "*.domain" wildcard or IP address; pass one such as "example.com", "*.example.com" or "203.0.113.7" (no scheme, port or path)`,
  );
}

/** Whether `host` (lower case, an IP without brackets) is one `entry` names. */
function matches(entry: string, host: string): boolean {
  if (entry.startsWith("*.")) return host.endsWith(entry.slice(1));
  return entry === host;
}

/**
 * Whether the deny `entry` covers `host`: a name also covers the names
 * beneath it (denying `evil.example.com` denies `a.evil.example.com`, which
 * an allowed `*.example.com` would otherwise let through); an IP address
 * covers itself alone.
 */
function denies(entry: string, host: string): boolean {
  return matches(entry, host) || (isIP(entry) === 0 && host.endsWith(`.${entry}`));
}

/** Why a destination is refused, or undefined when `host` may be reached. */
export function refusal(list: SandboxNetworkAllowList, host: string): string | undefined {
  const name = normalHost(host);
  if (list.deny?.some((entry) => denies(entry, name))) return "it is in the deny list";
  if (!list.allow.some((entry) => matches(entry, name))) return "it is not in the allow list";
  return undefined;
}

/**
 * Why a listed name may not be reached at `address`, or undefined when it
 * may: a loopback, link-local, private or otherwise special address must be
 * listed itself (an allow-list must not become a way into the host's own
 * services or a cloud's metadata endpoint), and a denied address never is.
 */
export function addressRefusal(
  list: SandboxNetworkAllowList,
  address: string,
): string | undefined {
  const ip = normalHost(address);
  if (list.deny?.includes(ip)) return `it resolves to ${ip}, which is in the deny list`;
  if (!isSpecialAddress(ip) || list.allow.includes(ip)) return undefined;
  return `it resolves to ${ip}, a loopback, link-local or private address that is not in the allow list`;
}

/** `host` in lower case, without brackets or a trailing dot; an IPv6 address in its shortest form. */
export function normalHost(host: string): string {
  const lower = host.toLowerCase().replace(/\.$/, "");
  const bare = lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
  return isIP(bare) === 6 ? new URL(`http://[${bare}]`).hostname.slice(1, -1) : bare;
}

/** True for an address no allow-listed name may resolve to unless listed. */
export function isSpecialAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return specialV4(address.split(".").map(Number));
  if (version !== 6) return true;
  const words = ipv6Words(address);
  if (words === undefined) return true;
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible forms.
  if (words.slice(0, 5).every((word) => word === 0) && (words[5] === 0xffff || words[5] === 0)) {
    const [high = 0, low = 0] = words.slice(6);
    if (words[5] === 0 && high === 0 && low <= 1) return true; // :: and ::1
    return specialV4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  }
  const first = words[0] ?? 0;
  return (first & 0xfe00) === 0xfc00 || // unique local fc00::/7
    (first & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (first & 0xffc0) === 0xfec0 || // site-local fec0::/10
    (first & 0xff00) === 0xff00 || // multicast
    first === 0x64 || // NAT64 64:ff9b::/96 maps IPv4 inside
    first === 0x2002 || // 6to4 maps IPv4 inside
    (first === 0x2001 && (words[1] ?? 0) < 0x200); // Teredo, benchmarking, ORCHID
}

function specialV4([a = 0, b = 0]: number[]): boolean {
  return a === 0 || a === 10 || a === 127 || a >= 224 || // this network, private, loopback, multicast
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168) || // private
    (a === 100 && b >= 64 && b < 128) || // carrier-grade NAT
    (a === 192 && b === 0) || (a === 198 && (b === 18 || b === 19)); // IETF, benchmarking
}

/** The eight 16-bit words of an IPv6 address (an embedded IPv4 tail included). */
function ipv6Words(address: string): number[] | undefined {
  let text = address;
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = v4[1].split(".").map(Number);
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, -v4[1].length) + "0:0";
  }
  const [head = "", rest] = text.split("::");
  const parse = (part: string) => part === "" ? [] : part.split(":").map((x) => parseInt(x, 16));
  const left = parse(head), right = rest === undefined ? [] : parse(rest);
  const fill = 8 - left.length - right.length;
  if (fill < 0) return undefined;
  const words = [...left, ...new Array(rest === undefined ? 0 : fill).fill(0), ...right];
  if (tail.length > 0) words.splice(6, 2, ...tail);
  return words.length === 8 ? words : undefined;
}
