// Stand-ins of macOS's sandbox-exec for the tests that simulate Seatbelt on
// Linux (tests/sandbox/seatbelt_test.ts, the simulated macOS host of
// tests/e2e/darwin_simulation_test.ts).

/**
 * A sandbox-exec that enforces what the self-probe tries, by bubblewrap:
 * everything read-only but the roots and TMPDIR, the masks covered, no
 * network; and, knowing the probe's layout (its root beside a folder
 * `outside`), the folder in which the probe writes its protected name made
 * read-only ahead, which no Linux mechanism does for a name not yet made.
 * When the profile (kept beside it as `sandbox-exec.profile`) lets the
 * command reach one TCP port of loopback (`remote tcp "localhost:PORT"`),
 * that port alone leads out of its empty network namespace: a socat inside
 * listens on it and carries each connection over a Unix socket to a socat
 * outside, which connects to the host's 127.0.0.1 at that port; the pid
 * namespace ends the inner one with the command. While a file
 * `sandbox-exec.fail` lies beside it, it fails as sandbox-exec does when it
 * cannot apply a profile.
 */
export const ENFORCING: string = [
  'env > "$0.env"',
  '[ -e "$0.fail" ] && { echo "sandbox-exec: sandbox_apply: Operation not permitted" >&2; exit 71; }',
  "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
  'binds=""',
  'port=""',
  'while [ "$1" != -- ]; do',
  "  v=${1#*=}",
  '  case "$1" in',
  '    -p) printf %s "$2" > "$0.profile"',
  String
    .raw`      port=$(printf '%s\n' "$2" | sed -n 's/.*(remote tcp "localhost:\([0-9][0-9]*\)").*/\1/p'); shift;;`,
  '    -DROOT_*) binds="$binds --bind $v $v"',
  '      if [ -d "$v/../outside" ]; then mkdir -p "$v/nested"; binds="$binds --ro-bind $v/nested $v/nested"; fi;;',
  '    -DTMP=*) binds="$binds --bind $v $v";;',
  '    -DMASK_*) if [ -d "$v" ]; then binds="$binds --tmpfs $v"; else binds="$binds --ro-bind /dev/null $v"; fi;;',
  "  esac",
  "  shift",
  "done",
  "shift",
  '[ -n "$port" ] || exec bwrap --ro-bind / / --dev-bind /dev /dev --unshare-net $binds -- "$@"',
  "relay=$(mktemp -d)",
  'socat "UNIX-LISTEN:$relay/s,fork" "TCP:127.0.0.1:$port" </dev/null >/dev/null 2>&1 & outer=$!',
  'while [ ! -S "$relay/s" ]; do sleep 0.01; done',
  `inner='socat "TCP-LISTEN:$0,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$1" </dev/null >/dev/null 2>&1 &`,
  `want=$(printf ":%04X 00000000:0000 0A" "$0"); while ! grep -q "$want" /proc/net/tcp; do sleep 0.01; done`,
  `shift; exec "$@"'`,
  'bwrap --ro-bind / / --dev-bind /dev /dev --unshare-net --unshare-pid $binds -- sh -c "$inner" "$port" "$relay/s" "$@"',
  'status=$?; kill $outer; rm -rf "$relay"; exit $status',
].join("\n");
