/**
 * The way out for a command whose policy's network is an allow-list. The
 * life of one such call is:
 *
 * 1. The policy's `network` is checked into a list of hosts, wildcards and
 *    addresses (`_allow_list.ts`).
 * 2. The executor's proxy (`_proxy.ts`, speaking HTTP and SOCKS5 through
 *    `_proxy_protocol.ts`) opens a Unix socket and a token for the launch.
 * 3. The bridge (`_bridge.ts`) runs the confined command in a network
 *    namespace of its own, where `socat` carries each connection from a
 *    loopback port to that socket; the command finds the proxy through its
 *    environment (`proxyEnv`). Under a backend that limits the network to
 *    one port itself (Seatbelt, on macOS, which has no network namespaces),
 *    the proxy listens on a port of 127.0.0.1 for the launch instead, the
 *    backend's profile names that port, and there is no bridge.
 * 4. The proxy resolves each destination itself, connects only where the
 *    list allows, and records what it refused; when the launch settles, its
 *    socket, token and connections go.
 *
 * This folder's surface for the rest of `sandbox/`; nothing here is public
 * but `ProxyState`, which `sandbox/mod.ts` exports.
 *
 * @module
 */
export { checkedNetwork } from "./_allow_list.ts";
export {
  BRIDGE_PORT,
  bridgeFailed,
  bridgeNamespaceArgs,
  bridgeRunners,
  type BridgeTools,
  findBridgeTools,
  proxyEnv,
  wrapInBridge,
} from "./_bridge.ts";
export {
  type LoopbackProxyLaunch,
  NetworkProxy,
  PROXY_OPTIONS,
  type ProxyLaunch,
  type ProxyOptions,
  type ProxyState,
} from "./_proxy.ts";
