/**
 * The watchdog, a bash script run as `bash -c <script> shellseam-watchdog <tempRoot> <token>`
 * (the script handed over in the environment, as `SHELLSEAM_WATCHDOG_SCRIPT`)
 * in a session of its own, so that neither Ctrl-C in the host's terminal nor a
 * hang-up reaches it. It reads one request per line on stdin:
 *
 * - `+ <sid>` / `- <sid>`: a command's session started / settled;
 * - `d <dir>`: the executor's private directory, to remove when the host dies;
 * - `g <folder>`: a folder of the executor's command cgroups (`<folder>/<n>`):
 *   when the host dies, what is left in them is killed and they are removed;
 * - `c <id> <sid>`: census: answers `c <id> <pid>...`, the live members of the
 *   session, or `e <id> <reason>`;
 * - `m <id> <entry>`: answers `m <id> <pid>...`, the live processes whose
 *   environment holds exactly `entry` (`NAME=value`);
 * - `k <id> <signal> <target>...`: sends the signal (a negative target is a
 *   group) and answers `k <id> <status>...`, one per target: 1 sent, 0 no
 *   such process, 2 refused;
 * - `q`: the host is disposing (its commands have settled): kill what still
 *   carries the token (see below), and exit.
 *
 * A process is live while any of its threads is: a leader that ended alone
 * (SYS_exit from its main thread) is a zombie while its other threads run
 * on, so its live thread's stat line and environment are read instead, and
 * a signal to its pid ends them all.
 *
 * At start it answers `h 0 <pid> <start>`: the host's pid and its start time
 * (field 22 of /proc/<pid>/stat), which the host puts in the name of its
 * private directory (`shellseam-exec-<pid>-<start>-XXXXXX`); then it removes the
 * private directories under `<tempRoot>` whose owner is gone (its pid is
 * free, or now names a process that started at another time). The owner is
 * in the name, not in a file, so no command can rewrite it.
 *
 * End of input without `q` means the host died: it SIGKILLs every session it
 * was told about, and the session of every process whose environment carries
 * `SHELLSEAM_WATCHDOG=<token>.<n>` (which every command gets, so one spawned the
 * instant before the host died, before its line was written, is found too,
 * and so is a descendant that left the session but kept the environment): the
 * group, then every member a census finds, until none is left. Then it
 * kills what is left in the command cgroups, removes them and the private
 * directory, and exits.
 */
export const WATCHDOG_SCRIPT = `
unset SHELLSEAM_WATCHDOG_SCRIPT
trap '' INT HUP PIPE QUIT TSTP TTIN TTOU
exec 2>/dev/null
declare -A sessions=()
dir=""
cgroups=()
stat_re='\\) ([^ ]) -?[0-9]+ -?[0-9]+ (-?[0-9]+) -?[0-9]+ -?[0-9]+ ([0-9]+) '

live_line() {
  [[ $1 =~ $stat_re && \${BASH_REMATCH[1]} != [ZXx] ]] && (( (BASH_REMATCH[3] & 4) == 0 ))
}

live_task() {
  local t line
  read -r line < "/proc/$1/stat" || return 1
  live_line "$line" && { REPLY=/proc/$1; return 0; }
  for t in "/proc/$1"/task/[0-9]*; do
    [[ $t == */task/$1 ]] && continue
    read -r line < "$t/stat" && live_line "$line" && { REPLY=$t; return 0; }
  done
  return 1
}

lone_threads() {
  local d line out=""
  for d in /proc/[0-9]*; do
    read -r line < "$d/stat" && [[ $line =~ $stat_re ]] || continue
    [[ \${BASH_REMATCH[1]} == [ZXx] ]] || (( BASH_REMATCH[3] & 4 )) || continue
    live_task "\${d#/proc/}" && out+=" \${d#/proc/}:$REPLY"
  done
  REPLY=$out
}

members() {
  local d out=""
  for d in /proc/[0-9]*; do
    live_task "\${d#/proc/}" && [[ \${BASH_REMATCH[2]} == "$1" ]] && out+=" \${d#/proc/}"
  done
  REPLY=$out
}

start_time() {
  local line fields
  REPLY=""
  read -r line < "/proc/$1/stat" || return 1
  read -ra fields <<< "\${line##*) }"
  REPLY=\${fields[19]}
  [[ -n $REPLY ]]
}

sweep_stale() {
  local d owner_re='/shellseam-exec-([0-9]+)-([0-9]+)-[^/]+$'
  for d in "$1"/shellseam-exec-*-*-*; do
    [[ $d =~ $owner_re && -d $d && ! -L $d && -O $d ]] || continue
    # A start of 14 digits is the portable watchdog's (a date): not ours to judge.
    (( \${#BASH_REMATCH[2]} < 14 )) || continue
    start_time "\${BASH_REMATCH[1]}" && [[ $REPLY == "\${BASH_REMATCH[2]}" ]] && continue
    rm -rf -- "$d"
  done
}

signal() {
  local id=$1 sig=$2 target out=""
  shift 2
  for target in "$@"; do
    if kill -s "$sig" -- "$target"; then out+=" 1"
    elif [[ $target != -* && -e /proc/$target ]]; then out+=" 2"
    else out+=" 0"
    fi
  done
  echo "k $id$out"
}

with_env() {
  local file pid pair out=" "
  for file in $(grep -lsazxF -- "$1" /proc/[0-9]*/environ); do
    pid=\${file#/proc/}
    out+="\${pid%/environ} "
  done
  lone_threads
  for pair in $REPLY; do
    [[ $out == *" \${pair%%:*} "* ]] && continue
    grep -qsazxF -- "$1" "\${pair#*:}/environ" && out+="\${pair%%:*} "
  done
  REPLY=\${out% }
}

marked() {
  local file pid line pair
  for file in $(grep -lsaF -- "SHELLSEAM_WATCHDOG=$1." /proc/[0-9]*/environ); do
    pid=\${file#/proc/}
    pid=\${pid%/environ}
    read -r line < "/proc/$pid/stat" && [[ $line =~ $stat_re ]] || continue
    sessions[\${BASH_REMATCH[2]}]=1
    kill -s KILL -- "$pid"
  done
  lone_threads
  for pair in $REPLY; do
    grep -qsaF -- "SHELLSEAM_WATCHDOG=$1." "\${pair#*:}/environ" || continue
    read -r line < "\${pair#*:}/stat" && [[ $line =~ $stat_re ]] || continue
    sessions[\${BASH_REMATCH[2]}]=1
    kill -s KILL -- "\${pair%%:*}"
  done
}

kill_all() {
  local sid left round
  marked "$1"
  for sid in "\${!sessions[@]}"; do kill -s KILL -- "-$sid"; done
  for round in 1 2 3 4 5 6 7 8 9 10; do
    left=""
    for sid in "\${!sessions[@]}"; do members "$sid"; left+=$REPLY; done
    [[ -z $left ]] && break
    kill -s KILL -- $left
  done
}

remove_cgroups() {
  local folder cgroup pid round
  for folder in "\${cgroups[@]}"; do
    for cgroup in "$folder"/*/; do
      [[ -f $cgroup/cgroup.procs ]] || continue
      for round in 1 2 3 4 5 6 7 8 9 10; do
        while read -r pid; do kill -s KILL -- "$pid"; done < "$cgroup/cgroup.procs"
        rmdir -- "$cgroup" && break
        sleep 0.05
      done
    done
    rmdir -- "$folder"
  done
}

[[ -r /proc/self/stat ]] && proc=1 || proc=0
start_time "$PPID"
echo "h 0 $PPID $REPLY"
sweep_stale "$1"
while IFS=' ' read -r op a b c; do
  case $op in
    +) sessions[$a]=1 ;;
    -) unset "sessions[$a]" ;;
    d) dir=$a ;;
    g) cgroups+=("$a") ;;
    c)
      if (( proc )); then members "$b"; echo "c $a$REPLY"
      else echo "e $a /proc is not readable"
      fi
      ;;
    m) with_env "$b"; echo "m $a$REPLY" ;;
    k) signal "$a" "$b" $c ;;
    q) kill_all "$2"; exit 0 ;;
  esac
done
kill_all "$2"
remove_cgroups
[[ -n $dir ]] && rm -rf -- "$dir"
`;
