/**
 * What sshd and the remote login shell read before the bootstrap runs.
 * Every channel the executor opens (a command, a kill, a resize, the
 * clean-up at disposal) is a command that sshd runs through the remote
 * user's login shell, and only then does the bootstrap start, so all of
 * this runs unconfined on the remote host:
 *
 * 1. sshd reads `~/.ssh` (it runs `~/.ssh/rc` with `/bin/sh` for every
 *    session; `~/.ssh/environment` sets variables under
 *    PermitUserEnvironment; `authorized_keys` may set `command=` and
 *    `environment=`), the files of `/etc` (`/etc/ssh/sshrc`,
 *    `/etc/environment`, `/etc/passwd`'s login shell, `/etc/ld.so.preload`,
 *    ...) and the libraries it and the shell load (PAM's modules among them).
 * 2. The login shell runs (its program, `$SHELL`) and reads its start-up
 *    files: `~/.bashrc` (Debian's bash, for a command from sshd), zsh's
 *    `~/.zshenv` (or `$ZDOTDIR/.zshenv`), fish's `config.fish` and
 *    `conf.d`, csh's `~/.cshrc`, and `$BASH_ENV` or `$ENV`.
 *
 * A confined command that could write one of them would have its code run
 * outside the sandbox at the next channel. So these paths are learned once,
 * by the probe that learns the remote tools (see `_tools.ts`), before the
 * first confined call, each with every location its resolution passes
 * through (symlinks and their targets, as `resolutionLocations` does
 * locally: a `~/.bashrc` that links to `~/dotfiles/.bashrc` is read
 * through both), and the remote sandbox refuses a call whose writable
 * roots hold one of those locations (see `_sandbox.ts`).
 *
 * @module
 */
import { SHELL_START_UP_FILES } from "../sandbox/policy.ts";

/**
 * The paths under a remote home that sshd or a login shell reads before the
 * bootstrap runs, or that hold what they read (folders). The home itself is
 * checked too, so these matter where they, or a folder on the way, are
 * symlinks that lead out of it.
 */
export const HOME_LOGIN_FILES: readonly string[] = Object.freeze([
  // sshd: the rc it runs, the environment it sets, the keys' command= and environment=.
  ".ssh",
  ".ssh/rc",
  ".ssh/environment",
  ".ssh/authorized_keys",
  ".ssh/authorized_keys2",
  // pam_env's user file (read where user_readenv is on).
  ".pam_environment",
  // bash, sh, zsh, csh and tcsh.
  ...SHELL_START_UP_FILES,
  ".zlogout",
  ".cshrc",
  ".tcshrc",
  ".login",
  ".logout",
  // fish: its config, its conf.d snippets and functions, its user vendor_conf.d.
  ".config/fish",
  ".config/fish/config.fish",
  ".config/fish/conf.d",
  ".local/share/fish",
]);

/** A path read before the bootstrap runs, with what its resolution passes through. */
export interface LoginFile {
  /** The path as sshd or the login shell names it. */
  path: string;
  /**
   * Every location its resolution passes through: each component as found
   * in its canonical folder, symlinks included, then their targets.
   * Whoever may write one of them decides what is read there.
   */
  locations: readonly string[];
}

/**
 * The bash fragment of the tools probe that prints, NUL-separated, the
 * exit status of its `getent passwd` (0 when the user database's entry was
 * read), the session's `$HOME` (empty when unset), then for each login file its path,
 * its locations and an empty word. The homes are `$HOME` (where the shell
 * looks) and the home in the user database (where sshd looks, by
 * `getent`), the login shells `$SHELL` and the database's; then the
 * library folders, and `/etc` last. Only a symlink
 * costs a process (`readlink`); the rest are bash tests.
 */
export const LOGIN_FILES_SCRIPT: string = `
walk() {
  local cur=/ rest=$1 name loc t links=0
  while [[ -n $rest ]]; do
    name=\${rest%%/*}
    if [[ $rest == */* ]]; then rest=\${rest#*/}; else rest=; fi
    case $name in
      '' | .) continue ;;
      ..) loc=\${cur%/*}; loc=\${loc:-/} ;;
      *) loc=\${cur%/}/$name ;;
    esac
    printf '%s\\0' "$loc"
    # A target ending in a newline keeps it (the x after readlink's own newline).
    if [[ -L $loc ]] && ((++links <= 40)) && t=$(readlink -- "$loc" && printf x); then
      t=\${t%$'\\nx'}
      [[ $t != /* ]] || cur=/
      rest=$t\${rest:+/$rest}
    else
      cur=$loc
    fi
  done
}
declare -A logged=()
login() {
  [[ $1 == /* && -z \${logged[$1]-} ]] || return 0
  logged[$1]=1
  printf '%s\\0' "$1"
  walk "$1"
  printf '\\0'
}
pwrc=0
pw=$(getent passwd "$UID" 2>/dev/null) || { pwrc=$?; pw=; }
pw=\${pw%%$'\\n'*}
ps=\${pw##*:}
pd=\${pw%:*}
pd=\${pd##*:}
printf '%s\\0' "$pwrc" "\${HOME-}"
for h in "\${HOME-}" "$pd"; do
  [[ $h == /* ]] || continue
  login "$h"
  for n in ${HOME_LOGIN_FILES.join(" ")}; do login "\${h%/}/$n"; done
done
login "\${BASH_ENV-}"
login "\${ENV-}"
[[ -z \${ZDOTDIR-} ]] || { login "$ZDOTDIR"; login "$ZDOTDIR/.zshenv"; login "$ZDOTDIR/.zshrc"; }
[[ -z \${XDG_CONFIG_HOME-} ]] || login "$XDG_CONFIG_HOME/fish"
[[ -z \${XDG_DATA_HOME-} ]] || login "$XDG_DATA_HOME/fish"
login "\${SHELL-}"
login "$ps"
for d in /usr/lib /usr/lib64 /usr/libexec /usr/local/lib /lib /lib64; do login "$d"; done
login /etc
`;

/** What the fragment learned: the session's home, the login files, and what it could not learn. */
export interface LoginFiles {
  /** The session's `$HOME` (empty when it has none). */
  home: string;
  /** The login files, `/etc` last. */
  files: LoginFile[];
  /**
   * Set when the user database could not be read (`getent passwd` failed):
   * the home where sshd reads `~/.ssh` (and the database's login shell) is
   * then unknown, and none of its files is among `files`. Says why.
   */
  passwdUnread?: string;
}

/**
 * The session's home and the login files from the words the fragment
 * printed (the last word is the empty one after the NUL that ends them);
 * undefined when they are cut short.
 */
export function parseLoginFiles(words: readonly string[]): LoginFiles | undefined {
  const [status, home, ...rest] = words;
  if (status === undefined || !/^\d+$/.test(status) || home === undefined) return undefined;
  const files: LoginFile[] = [];
  let at = 0;
  while (at < rest.length - 1) {
    const end = rest.indexOf("", at);
    if (end <= at + 1) return undefined;
    files.push({ path: rest[at]!, locations: rest.slice(at + 1, end) });
    at = end + 1;
  }
  // The fragment's last file is /etc: a shorter list was cut short.
  if (files.at(-1)?.path !== "/etc" || at !== rest.length - 1) return undefined;
  return status === "0"
    ? { home, files }
    : { home, files, passwdUnread: `"getent passwd" exited with ${status}` };
}
