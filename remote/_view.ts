import { posix } from "node:path";
import { BashSpawnError } from "../seam/mod.ts";
import { expandHome, type MaskFs } from "../sandbox/backends/mod.ts";

/**
 * What a confined command will see of the remote filesystem, taken by a
 * probe there just before it starts: the remote home, the canonical path
 * and kind of each path a policy names (`denyRead`, `allowRead`, the roots,
 * the protected paths), and the listings needed to carve allowed paths out
 * of a denied folder. The sandbox's own mask planning (`secretMasks`) runs
 * over it as over the local filesystem.
 */
export interface RemoteView {
  /** The remote session's `$HOME`, which `~/` stands for. */
  home: string;
  /** The canonical path of a policy path (`~` expanded with `home`), or undefined when missing. */
  realpath(path: string): string | undefined;
  /** The filesystem as `secretMasks` reads it. */
  fs: MaskFs;
}

/** How a policy path is used, which decides what the probe gathers about it. */
export type ViewKind = "deny" | "allow" | "keep" | "protected";

/**
 * The probe script, run as `bash -c VIEW_SCRIPT shellseam-view <folder> (<kind> <path>)...`.
 * It makes the empty mode-000 mask file `<folder>/mask` again unless it is
 * one, and the quarantine `<folder>/quarantine`, prints the home, then NUL-separated records: `F path real type` per
 * path (real empty and type `-` when missing, `d` a directory, `f` anything
 * else), `D dir` then `L dir name real type` for each entry of every folder
 * on the way from a denied folder down to an allowed or kept path beneath
 * it, and `E dir` for such a folder it cannot list.
 */
const VIEW_SCRIPT = `
set -f
shopt -s dotglob nullglob
m=$1/mask
# Never made again here: a private folder that is gone (an unconfined command removed it) fails.
[[ -d $1/quarantine ]] || mkdir -- "$1/quarantine" || exit 5
if [[ -L $m || ! -f $m || -s $m || $(stat -c %a -- "$m") != 0 ]]; then
  rm -f -- "$m" && : >"$m" && chmod 000 -- "$m" || exit 5
fi
shift
home=\${HOME:-/}
printf 'H\\0%s\\0' "$home"
kind() { if [[ -d $1 ]]; then t=d; elif [[ -e $1 ]]; then t=f; else t=-; fi; }
declare -a denied=() inner=()
while (($# >= 2)); do
  k=$1 p=$2
  shift 2
  case $p in "~") e=$home ;; "~/"*) e=$home/\${p#"~/"} ;; *) e=$p ;; esac
  # Only a path that exists costs a realpath process (most of the default ones do not exist).
  r=
  [[ -e $e ]] && { r=$(realpath -e -- "$e" 2>/dev/null) || r=; }
  kind "$r"
  [[ -z $r ]] && t=-
  printf 'F\\0%s\\0%s\\0%s\\0' "$p" "$r" "$t"
  [[ -z $r ]] && continue
  case $k in deny) [[ $t == d ]] && denied+=("$r") ;; allow | keep) inner+=("$r") ;; esac
done
declare -A listed=()
list() {
  [[ -n \${listed[$1]-} ]] && return
  listed[$1]=1
  if [[ ! -r $1 || ! -x $1 ]]; then printf 'E\\0%s\\0' "$1"; return; fi
  printf 'D\\0%s\\0' "$1"
  local e r
  set +f
  for e in "$1"/*; do
    r=$(realpath -e -- "$e" 2>/dev/null) || continue
    kind "$r"
    printf 'L\\0%s\\0%s\\0%s\\0%s\\0' "$1" "\${e##*/}" "$r" "$t"
  done
  set -f
}
for d in "\${denied[@]}"; do
  for a in "\${inner[@]}"; do
    [[ $a == "$d"/* ]] || continue
    cur=$d rest=\${a#"$d"/}
    while :; do
      list "$cur"
      [[ $rest == */* ]] || break
      cur=$cur/\${rest%%/*} rest=\${rest#*/}
    done
  done
done
`;

/** The argv of the probe for `paths` (each with how the policy uses it), the mask file in `folder`. */
export function viewProbe(
  shell: string,
  folder: string,
  paths: readonly (readonly [ViewKind, string])[],
): string[] {
  return [
    shell,
    "--norc",
    "--noprofile",
    "-c",
    VIEW_SCRIPT,
    "shellseam-view",
    folder,
    ...paths.flat(),
  ];
}

/** The view from the probe's output; throws `BashSpawnError` when it is not one. */
export function parseView(host: string, output: string): RemoteView {
  const words = output.split("\0");
  const broken = (): BashSpawnError =>
    new BashSpawnError(
      `The sandbox could not see the filesystem of ${host} (its probe printed something else), so nothing was run; check that bash, realpath, stat and base64 work there`,
    );
  if (words[0] !== "H" || words[1] === undefined || !words[1].startsWith("/")) throw broken();
  const home = words[1];
  const real = new Map<string, string | undefined>();
  const kinds = new Map<string, boolean>();
  const listings = new Map<string, string[]>();
  const unlisted = new Set<string>();
  const learn = (path: string, canonical: string, type: string): void => {
    real.set(path, canonical === "" ? undefined : canonical);
    if (canonical !== "") {
      real.set(canonical, canonical);
      kinds.set(canonical, type === "d");
    }
  };
  let at = 2;
  const next = (): string => {
    const word = words[at++];
    if (word === undefined) throw broken();
    return word;
  };
  while (at < words.length - 1) {
    const tag = next();
    if (tag === "F") {
      const path = next();
      const canonical = next();
      learn(expandHome(path, home), canonical, next());
    } else if (tag === "L") {
      const dir = next();
      const name = next();
      const canonical = next();
      learn(posix.join(dir, name), canonical, next());
      listings.set(dir, [...(listings.get(dir) ?? []), name]);
    } else if (tag === "D") {
      const dir = next();
      if (!listings.has(dir)) listings.set(dir, []);
    } else if (tag === "E") unlisted.add(next());
    else throw broken();
  }
  // Asked about a path the probe did not gather, the view refuses rather than call it missing.
  const known = <T>(map: Map<string, T>, path: string): T => {
    if (!map.has(path)) {
      throw new BashSpawnError(
        `The sandbox has no facts about "${path}" on ${host}, so nothing was run; this is a bug in shellseam`,
      );
    }
    return map.get(path) as T;
  };
  return {
    home,
    realpath: (path) => known(real, path),
    fs: {
      realpath: (path) => known(real, path),
      isDirectory: (path) => known(kinds, path),
      list(path) {
        if (unlisted.has(path)) throw new Error(`cannot list it on ${host}`);
        return known(listings, path);
      },
    },
  };
}
