/**
 * The watchdog where there is no `/proc` (macOS; Linux when a test forces
 * the portable path): a POSIX `sh` script, run as `sh -c <script>
 * shellseam-watchdog <tempRoot> <token> <ps flavour>` by `/bin/sh`, with the
 * same requests and answers as the Linux one (`_watchdog_script.ts`), found
 * through `ps` instead of `/proc`:
 *
 * - processes by `ps -A -o pid=,ppid=,pgid=,state=` (macOS's `ps` has no
 *   session id: `sess` is a kernel pointer, 0 for an unprivileged caller);
 * - a process's environment by `ps -E` (BSD: the environment it was started
 *   with, for the caller's own processes) or procps's `e`, both printed after
 *   the command line, entries separated by spaces.
 *
 * So a census of "session" `<sid>` (`c <id> <sid>`) answers the live members
 * of process group `<sid>` and their live descendants (by parent pid), each
 * as `<pid>/<pgid>`; a process that left the group and whose parent has gone
 * is found only by the marker in its environment (`m`), and one that also
 * cleared its environment cannot be found. `C <id> <sid>...` and
 * `M <id> <entry>...` answer several by one listing of `ps` (each a run of
 * `ps` and `awk`: the cost of a census here), each word then
 * `<k>:<pid>/<pgid>`, `k` the key's place from 0; entries hold no space. The host's start time (`h 0 <pid>
 * <start>`) is `ps -o lstart=` as `p` and 14 digits (`pYYYYMMDDhhmmss`):
 * the `p` tells a private directory's owner made by this watchdog from one
 * made by the Linux one (clock ticks since boot, digits only), so each
 * sweeps only its own, however many of either kind share the folder.
 *
 * It uses nothing beyond POSIX `sh`, `ps`, `awk`, `kill`, `rm`, `rmdir` and
 * `sleep`, and runs under macOS's `/bin/sh`, dash and busybox `sh`.
 */
export const PORTABLE_WATCHDOG_SCRIPT = `
unset SHELLSEAM_WATCHDOG_SCRIPT
trap '' INT HUP PIPE QUIT TSTP TTIN TTOU
exec 2>/dev/null
sessions=" "
dir=""
cgroups=""
flavour=$3
# busybox's kill refuses "--"; dash's needs it before a negative target.
if kill -s 0 -- $$; then dd="--"; else dd=""; fi

send() {
  kill -s "$1" $dd "$2"
}

members() {
  list=$(ps -A -o pid=,ppid=,pgid=,state=) || return 1
  REPLY=$(printf '%s\\n' "$list" | awk -v groups="$1" -v tag="$2" '
    NF >= 4 { n++; pid[n] = $1; ppid[n] = $2; pgid[n] = $3; live[n] = ($4 !~ /^Z/) }
    END {
      k = split(groups, g, " ")
      for (j = 1; j <= k; j++) {
        split("", found)
        for (i = 1; i <= n; i++) if (live[i] && pgid[i] == g[j]) found[pid[i]] = 1
        do {
          more = 0
          for (i = 1; i <= n; i++) {
            if (live[i] && !(pid[i] in found) && (ppid[i] in found)) { found[pid[i]] = 1; more = 1 }
          }
        } while (more)
        for (i = 1; i <= n; i++) {
          if (pid[i] in found) printf " %s%s/%s", (tag ? (j - 1) ":" : ""), pid[i], pgid[i]
        }
      }
    }')
}

environments() {
  case $flavour in
    bsd) ps -A -ww -E -o pid=,pgid=,command= ;;
    *) ps -A -ww -o pid=,pgid=,args= e ;;
  esac
}

with_env() {
  list=$(environments) || return 1
  REPLY=$(printf '%s\\n' "$list" | ENTRIES="$1" PREFIX="$2" awk -v self="$$" -v tag="$3" '
    BEGIN { k = split(ENVIRON["ENTRIES"], entry, " ") }
    $1 != self {
      line = $0 " "
      for (j = 1; j <= k; j++) {
        if (ENVIRON["PREFIX"] == "") found = index(line, " " entry[j] " ")
        else found = index(line, " " entry[j])
        if (found) printf " %s%s/%s", (tag ? (j - 1) ":" : ""), $1, $2
      }
    }')
}

start_time() {
  REPLY=""
  set -- $(ps -p "$1" -o lstart=)
  [ $# -eq 5 ] || return 1
  case $2 in
    Jan) m=01 ;; Feb) m=02 ;; Mar) m=03 ;; Apr) m=04 ;; May) m=05 ;; Jun) m=06 ;;
    Jul) m=07 ;; Aug) m=08 ;; Sep) m=09 ;; Oct) m=10 ;; Nov) m=11 ;; Dec) m=12 ;;
    *) return 1 ;;
  esac
  day=$3
  case $day in ?) day=0$day ;; esac
  t=$4
  h=\${t%%:*}
  t=\${t#*:}
  REPLY=$5$m$day$h\${t%%:*}\${t#*:}
  case $REPLY in *[!0-9]*) REPLY=""; return 1 ;; esac
  [ \${#REPLY} -eq 14 ] || return 1
  REPLY=p$REPLY
}

sweep_stale() {
  for d in "$1"/shellseam-exec-*-*-*; do
    [ -d "$d" ] && [ ! -L "$d" ] && [ -O "$d" ] || continue
    rest=\${d##*/shellseam-exec-}
    pid=\${rest%%-*}
    rest=\${rest#*-}
    start=\${rest%%-*}
    case $pid in ''|*[!0-9]*) continue ;; esac
    case $start in p[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]) ;; *) continue ;; esac
    start_time "$pid" && [ "$REPLY" = "$start" ] && continue
    rm -rf -- "$d"
  done
}

signal() {
  id=$1
  sig=$2
  shift 2
  out=""
  for target in "$@"; do
    if send "$sig" "$target"; then out="$out 1"
    elif [ "\${target#-}" = "$target" ] && ps -p "$target" -o pid= >/dev/null; then out="$out 2"
    else out="$out 0"
    fi
  done
  echo "k $id$out"
}

watch() {
  case $sessions in *" $1 "*) ;; *) sessions="$sessions$1 " ;; esac
}

unwatch() {
  case $sessions in *" $1 "*) sessions="\${sessions%%" $1 "*} \${sessions#*" $1 "}" ;; esac
}

kill_all() {
  if with_env "SHELLSEAM_WATCHDOG=$1." prefix; then
    for pair in $REPLY; do
      watch "\${pair#*/}"
      send KILL "\${pair%/*}"
    done
  fi
  for sid in $sessions; do send KILL "-$sid"; done
  round=0
  while [ $round -lt 10 ]; do
    left=""
    for sid in $sessions; do members "$sid" && left="$left$REPLY"; done
    [ -z "$left" ] && break
    for pair in $left; do send KILL "\${pair%/*}"; done
    round=$((round + 1))
  done
}

remove_cgroups() {
  printf '%s\\n' "$cgroups" | while IFS= read -r folder; do
    [ -n "$folder" ] || continue
    for cgroup in "$folder"/*/; do
      [ -f "$cgroup/cgroup.procs" ] || continue
      round=0
      while [ $round -lt 10 ]; do
        while read -r pid; do send KILL "$pid"; done < "$cgroup/cgroup.procs"
        rmdir -- "$cgroup" && break
        sleep 0.05
        round=$((round + 1))
      done
    done
    rmdir -- "$folder"
  done
}

start_time "$PPID"
echo "h 0 $PPID $REPLY"
sweep_stale "$1"
while IFS=' ' read -r op a b c; do
  case $op in
    +) watch "$a" ;;
    -) unwatch "$a" ;;
    d) dir=$a ;;
    g) cgroups="$cgroups
$a" ;;
    c)
      if members "$b"; then echo "c $a$REPLY"
      else echo "e $a ps could not list the processes"
      fi
      ;;
    m)
      if with_env "$b" ""; then echo "m $a$REPLY"
      else echo "e $a ps could not list the environments"
      fi
      ;;
    C)
      if members "$b $c" 1; then echo "C $a$REPLY"
      else echo "e $a ps could not list the processes"
      fi
      ;;
    M)
      if with_env "$b $c" "" 1; then echo "M $a$REPLY"
      else echo "e $a ps could not list the environments"
      fi
      ;;
    k) signal "$a" "$b" $c ;;
    q) kill_all "$2"; exit 0 ;;
  esac
done
kill_all "$2"
remove_cgroups
[ -n "$dir" ] && rm -rf -- "$dir"
`;
