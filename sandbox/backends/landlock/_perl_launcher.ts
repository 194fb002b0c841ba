/**
 * The Landlock launcher in Perl: the same steps as the Deno launcher
 * (`_launcher.ts`, whose doc comment is the reference), made with Perl's
 * builtin `syscall()` and `pack()`ed structs.
 *
 * Why Perl: every Landlock-confined call starts a fresh launcher. `deno run`
 * of the TypeScript launcher costs about 90 ms of CPU and 2,600 page faults
 * (an empty `deno run` alone 55 ms); `perl -e 1` costs 3 to 6 ms and 230 page
 * faults, and perl-base is Essential on Debian and Ubuntu (and comes with git
 * on Fedora and RHEL), so Node users need no 95 MB Deno binary for Landlock.
 * perl-base holds few modules and no JSON one: the launcher loads no module at
 * all (so perl reads no file before the restriction but itself), and reads
 * its policy and its input as launcher records (`_launcher_record.ts`).
 * The Deno launcher stays the fallback where no perl passes the self-check.
 *
 * @module
 */
import { LAUNCH_STARTED } from "../../../engine/mod.ts";
import {
  LAUNCHER_ABI_PREFIX,
  LAUNCHER_FAILURE_EXIT,
  LAUNCHER_FAILURE_PREFIX,
  LAUNCHER_INPUT_FLAG,
  LAUNCHER_STANDBY_FLAG,
} from "./_launcher_protocol.ts";

/**
 * The arguments perl runs the launcher with, before the launcher's own: no
 * `sitecustomize.pl` (`-f`), the source on the command line (no file for a
 * command to replace), and the end of perl's options (`--`).
 */
export function perlLauncherArgs(): string[] {
  return ["-f", "-e", SOURCE, "--"];
}

/** The Perl launcher's only argument when it checks that this perl can run it. */
export const PERL_SELF_CHECK_FLAG = "--self-check";

/** What the Perl launcher prints on stdout when its self-check passed. */
export const PERL_SELF_CHECK_PASSED = "shellseam-landlock-perl: ready";

/**
 * The Perl launcher's source. Its arguments and protocols are the Deno
 * launcher's (see `landlockLauncherMain`), with launcher records where that
 * one reads JSON: `<policy record> [NAME=value...] <program> [args...]`;
 * `--standby [cgroup.procs files...]`, then `{ cwd, args }` on stdin to its
 * end; `--input`, then a length line and `{ args, keepStdin }` on stdin. With
 * {@linkcode PERL_SELF_CHECK_FLAG} alone it checks that this perl can make
 * the launcher's system calls (64-bit, a known architecture, `syscall()`
 * working) and prints {@linkcode PERL_SELF_CHECK_PASSED}. Anything that goes
 * wrong before the exec, a Perl error included, exits
 * `LAUNCHER_FAILURE_EXIT` with a `shellseam-landlock:` line.
 */
export function perlLauncherSource(): string {
  return String.raw`# shellseam Landlock launcher (generated from _perl_launcher.ts; do not edit)
my %nr;
sub fail {
  syswrite(STDERR, "${LAUNCHER_FAILURE_PREFIX} $_[0]\n");
  exit ${LAUNCHER_FAILURE_EXIT};
}
sub error_text {
  my $code = 0 + $!;
  my %names = (1 => 'EPERM', 2 => 'ENOENT', 13 => 'EACCES', 22 => 'EINVAL', 38 => 'ENOSYS', 95 => 'EOPNOTSUPP');
  return $names{$code} // "errno $code";
}
# System call $name: numbers go as numbers, strings by address (syscall()'s
# rule), each a copy (syscall() refuses a constant string, which it could write).
sub sys { my ($name, @args) = @_; return syscall(number_of($name), @args); }
# System call $name that writes into a string argument: the caller's own variable.
sub sys_into { my $name = shift; return syscall(number_of($name), @_); }
# The number of system call $name; dies for a name it does not know (0 is read's).
sub number_of { return $nr{$_[0]} // die "no system call number for $_[0]\n"; }
# The address of the string in $_[0] (the caller's variable, which must outlive its use).
sub address { return unpack('Q', pack('p', $_[0])); }

# A launcher record (see _launcher_record.ts) as Perl values: strings as
# strings, lists and records as references, numbers, booleans as blessed
# references; dies on anything malformed.
sub record_value {
  my ($in, $depth) = @_;
  die "too deep\n" if $depth > 16;
  my $at = pos($$in) // 0;
  my $tag = substr($$in, $at, 1);
  pos($$in) = $at + 1;
  if ($tag eq 's') {
    $$in =~ /\G(\d{1,12}):/gc or die "no string length\n";
    my ($length, $start) = (0 + $1, pos($$in));
    die "a string past the end\n" if $start + $length > length($$in);
    pos($$in) = $start + $length;
    return substr($$in, $start, $length);
  }
  if ($tag eq 'n') {
    $$in =~ /\G([^;]{1,32});/gc or die "no number\n";
    my $number = $1;
    return bless \$number, 'number';
  }
  if ($tag eq 't' || $tag eq 'f') { my $truth = $tag eq 't' ? 1 : 0; return bless \$truth, 'boolean'; }
  return undef if $tag eq 'z';
  if ($tag eq 'l' || $tag eq 'd') {
    my @items;
    until ($$in =~ /\Ge/gc) {
      die "an unended list\n" if pos($$in) >= length($$in);
      # A record's items go name, value, name, value: each name a string.
      if ($tag eq 'd' && @items % 2 == 0 && substr($$in, pos($$in), 1) ne 's') {
        die "a field name that is no string\n";
      }
      push @items, record_value($in, $depth + 1);
    }
    return \@items if $tag eq 'l';
    die "a field without a value\n" if @items % 2 != 0;
    return {@items};
  }
  die "an unknown tag\n";
}
# The value of record $text, or (undef, 0) when it is not one.
sub from_record {
  my $text = $_[0];
  pos($text) = 0;
  my $value;
  my $ok = eval { $value = record_value(\$text, 0); 1 };
  return ($ok && pos($text) == length($text)) ? ($value, 1) : (undef, 0);
}
sub is_string { return defined($_[0]) && !ref($_[0]); }
sub is_string_list { return ref($_[0]) eq 'ARRAY' && !grep { !is_string($_) } @{$_[0]}; }
# A whole number from 0 to 2^53 - 1 (JavaScript's safe integers), as a number.
sub count_of {
  my ($value) = @_;
  return undef unless ref($value) eq 'number' && $$value =~ /\A(?:0|[1-9]\d{0,15})\z/;
  my $count = 0 + $$value;
  return $count <= 9007199254740991 ? $count : undef;
}
sub is_true { my ($value) = @_; return ref($value) eq 'boolean' && $$value; }

# Step 1. The system call numbers of this perl's architecture, read from
# its own ELF header (syscall() takes the numbers of the binary that makes it).
sub bind_syscalls {
  my $header = '';
  if (sysopen(my $exe, '/proc/self/exe', 0)) { sysread($exe, $header, 20); close($exe); }
  my ($class, $machine) = length($header) == 20 ? unpack('x4 C x13 v', $header) : (0, 0);
  my %numbers = (
    62 => { read => 0, write => 1, close => 3, rt_sigaction => 13, execve => 59, getcwd => 79,
      chdir => 80, geteuid => 107, capset => 126, prctl => 157, mount => 165, getdents64 => 217,
      unshare => 272, dup3 => 292, prlimit64 => 302 },
    183 => { getcwd => 17, dup3 => 24, mount => 40, chdir => 49, close => 57, getdents64 => 61,
      read => 63, write => 64, capset => 91, unshare => 97, rt_sigaction => 134, prctl => 167,
      geteuid => 175, execve => 221, prlimit64 => 261 },
  );
  my $own = $class == 2 ? $numbers{$machine} : undef;
  fail(qq{no system call numbers for ELF machine "$machine" of class "$class" (x86_64 and aarch64 only); use the bwrap backend})
    unless defined $own;
  fail('this perl has no 64-bit integers or pointers; use the Deno launcher')
    unless length(pack('j', 0)) == 8 && length(pack('p', 'x')) == 8;
  # Added later, with the same number on every architecture.
  %nr = (%$own, close_range => 436, openat2 => 437, mount_setattr => 442,
    landlock_create_ruleset => 444, landlock_add_rule => 445, landlock_restrict_self => 446);
}

# Step 2. The launch's arguments: the command line's, or those handed on
# stdin with --input (exactly the length line and the record), or a
# standby's, read from stdin to its end once it joined its cgroups.
sub read_arguments {
  if (@ARGV == 1 && $ARGV[0] eq '${LAUNCHER_INPUT_FLAG}') {
    my $line = '';
    while (length($line) <= 12) {
      my $one = "\0";
      my $size = sys_into('read', 0, $one, 1);
      next if $size < 0 && $! == 4; # EINTR
      last if $size != 1 || $one eq "\n";
      $line .= $one;
    }
    my $length = $line =~ /\A\d{1,12}\z/ ? 0 + $line : -1;
    my $input = '';
    while ($length > 0 && length($input) < $length) {
      my $want = $length - length($input);
      my $size = sysread(STDIN, $input, $want < 65536 ? $want : 65536, length($input));
      next if !defined($size) && $! == 4; # EINTR
      last unless $size;
    }
    my ($handed, $ok) = $length >= 0 && length($input) == $length ? from_record($input) : (undef, 0);
    unless ($ok && ref($handed) eq 'HASH' && is_string_list($handed->{args})
      && ref($handed->{keepStdin}) eq 'boolean') {
      fail('its input must be a length line and { args, keepStdin } (a launcher record)');
    }
    stdin_from_dev_null() unless is_true($handed->{keepStdin});
    return @{$handed->{args}};
  }
  return @ARGV unless @ARGV && $ARGV[0] eq '${LAUNCHER_STANDBY_FLAG}';
  join_cgroups(@ARGV[1 .. $#ARGV]);
  my $input = '';
  for (;;) {
    my $size = sysread(STDIN, $input, 65536, length($input));
    next if !defined($size) && $! == 4; # EINTR
    fail('cannot read the launch from stdin (' . error_text() . ')') unless defined $size;
    last if $size == 0;
  }
  my ($handed, $ok) = from_record($input);
  fail('the standby got no launch: its input is not a launcher record') unless $ok;
  my ($cwd, $args) = ref($handed) eq 'HASH' ? ($handed->{cwd}, $handed->{args}) : ();
  unless (is_string($cwd) && is_string_list($args)) {
    fail("the standby's input must be { cwd, args }: a path and a list of strings");
  }
  stdin_from_dev_null();
  fail(qq{cannot enter the working directory "$cwd" (} . error_text() . ')')
    if sys('chdir', "$cwd") != 0;
  return @$args;
}

# The command's stdin is /dev/null, as a launch started without stdin has.
sub stdin_from_dev_null {
  my $how = pack('QQQ', 02000000, 0, 0); # O_RDONLY | O_CLOEXEC
  my $dev_null = sys('openat2', -100, '/dev/null', $how, 24);
  if ($dev_null < 0 || sys('dup3', $dev_null, 0, 0) != 0) {
    fail('cannot give the command /dev/null for stdin (' . error_text() . ')');
  }
  sys('close', $dev_null);
}

# Step 3. The policy and the command in @args, checked; fails on anything else.
sub checked_launch {
  my @args = @_;
  my $usage = 'usage: <policy record> [NAME=value...] <program> [args...]';
  fail($usage) unless @args;
  my ($policy_text, @rest) = @args;
  my ($policy, $ok) = from_record($policy_text);
  fail('the policy argument is not a launcher record') unless $ok;
  fail('the policy argument is not a record of fields') unless ref($policy) eq 'HASH';
  my $env_count = count_of($policy->{envEntries});
  if (!defined($env_count) || $env_count >= @rest) {
    fail("the policy's envEntries must count the NAME=value arguments; $usage");
  }
  my @environment = @rest[0 .. $env_count - 1];
  if (grep { index($_, '=') <= 0 } @environment) {
    fail("every environment argument must be NAME=value; $usage");
  }
  my ($program, @program_args) = @rest[$env_count .. $#rest];
  # What a standby was handed may hold any string; a NUL would cut one short.
  if (grep { index($_, "\0") >= 0 } @rest) {
    fail('no environment entry, program or argument may hold a NUL byte');
  }
  if (grep { !is_string_list($policy->{$_}) } qw(readPaths writeDirs writeFiles)) {
    fail('the policy needs readPaths, writeDirs and writeFiles, each a list of paths');
  }
  my $unreadable = $policy->{unreadable} // [];
  fail("the policy's unreadable must be a list of paths") unless is_string_list($unreadable);
  # Present, writableMounts asks for the mount view.
  my $mounts = exists($policy->{writableMounts});
  my $read_only_mounts = $policy->{readOnlyMounts} // [];
  my $hidden_mounts = $policy->{hiddenMounts} // [];
  if ($mounts && grep { !is_string_list($_) }
      ($policy->{writableMounts}, $read_only_mounts, $hidden_mounts)) {
    fail("the policy's writableMounts, readOnlyMounts and hiddenMounts must be lists of paths");
  }
  my $masks = $policy->{masks} // [];
  if (ref($masks) ne 'ARRAY' || grep {
      ref($_) ne 'HASH' || !is_string($_->{path})
        || (exists($_->{source}) && !is_string($_->{source}))
    } @$masks) {
    fail("the policy's masks must be a list of { path, source? }");
  }
  if (@$masks && !$mounts) {
    fail("the policy's masks need writableMounts (a private mount namespace)");
  }
  if (exists($policy->{terminal}) && ref($policy->{terminal}) ne 'boolean') {
    fail("the policy's terminal must be true or false");
  }
  if (is_true($policy->{terminal}) && !$mounts) {
    fail("the policy's terminal needs writableMounts (a private mount namespace)");
  }
  my $cgroup_procs = $policy->{cgroupProcs} // [];
  fail("the policy's cgroupProcs must be a list of paths") unless is_string_list($cgroup_procs);
  my $rlimits = $policy->{rlimits} // [];
  my @limits;
  if (ref($rlimits) eq 'ARRAY') {
    for my $limit (@$rlimits) {
      last unless ref($limit) eq 'HASH';
      my @values = map { count_of($limit->{$_}) } qw(resource soft hard);
      last if grep { !defined } @values;
      push @limits, \@values;
    }
  }
  if (ref($rlimits) ne 'ARRAY' || @limits != @$rlimits) {
    fail("the policy's rlimits must be a list of { resource, soft, hard }, whole numbers");
  }
  my $filter;
  if (exists($policy->{seccompFilter})) {
    my $bytes = $policy->{seccompFilter};
    my @bytes = ref($bytes) eq 'ARRAY' ? map { count_of($_) } @$bytes : (undef);
    if (@bytes % 8 != 0 || grep { !defined || $_ > 255 } @bytes) {
      fail("the policy's seccompFilter must be a list of bytes, 8 per instruction");
    }
    $filter = pack('C*', @bytes);
  }
  return {
    policy => $policy, environment => \@environment, program => $program,
    program_args => \@program_args, unreadable => $unreadable, cgroup_procs => $cgroup_procs,
    rlimits => \@limits, filter => $filter, mounts => $mounts ? $policy->{writableMounts} : undef,
    read_only_mounts => $read_only_mounts, hidden_mounts => $hidden_mounts, masks => $masks,
  };
}

# Step 4 (and a standby's first). Into the command's cgroups: 0 written to a
# v1 hierarchy's tasks file moves this thread (perl runs one), else the
# process moves as a whole through cgroup.procs.
sub join_cgroups {
  my $write_only = pack('QQQ', 02000001, 0, 0); # O_WRONLY | O_CLOEXEC
  my $open_to_write = sub { return sys('openat2', -100, "$_[0]", $write_only, 24); };
  # Writes $text to $fd and closes it; why it failed, or undef.
  my $write_and_close = sub {
    my ($fd, $text) = @_;
    my $written = sys('write', $fd, $text, length($text));
    my $reason = error_text();
    sys('close', $fd);
    return $written == length($text) ? undef : $reason;
  };
  for my $file (@_) {
    my $tasks = $file =~ m{/cgroup\.procs\z}
      ? $open_to_write->(substr($file, 0, -length('cgroup.procs')) . 'tasks')
      : -1;
    my $procs = $tasks >= 0 ? -1 : $open_to_write->($file);
    my $failed = $tasks >= 0 ? $write_and_close->($tasks, '0')
      : $procs >= 0 ? $write_and_close->($procs, "$$")
      : error_text();
    if (defined $failed) {
      fail(qq{could not move the command into the cgroup of "$file" ($failed), so it was not run});
    }
  }
}

# Step 5. The read-only mount view, in a private mount namespace: once
# restricted by Landlock, the process may not mount.
sub mount_view {
  my ($launch) = @_;
  my ($CLONE_NEWNS, $MS_BIND, $MS_REC, $MS_PRIVATE) = (0x20000, 0x1000, 0x4000, 0x40000);
  my ($AT_FDCWD, $AT_RECURSIVE, $RDONLY) = (-100, 0x8000, 1);
  my $setattr = sub {
    my ($path, $flags, $set, $clear) = @_;
    my $attr = pack('QQQQ', $set, $clear, 0, 0); # struct mount_attr
    return sys('mount_setattr', $AT_FDCWD, "$path", $flags, $attr, 32) == 0;
  };
  fail('cannot make a private mount namespace (' . error_text() . ')')
    if sys('unshare', $CLONE_NEWNS) != 0;
  # Private before anything else, so that no change reaches the host's mounts.
  fail('cannot make the mounts private (' . error_text() . ')')
    if sys('mount', 0, '/', 0, $MS_REC | $MS_PRIVATE, 0) != 0;
  fail('cannot make the mounts read-only (' . error_text() . ')')
    unless $setattr->('/', $AT_RECURSIVE, $RDONLY, 0);
  my $bind = sub { return sys('mount', "$_[0]", "$_[0]", 0, $MS_BIND | $MS_REC, 0) == 0; };
  for my $path (@{$launch->{mounts}}) {
    fail(qq{cannot mount "$path" writable (} . error_text() . ')')
      unless $bind->($path) && $setattr->($path, 0, 0, $RDONLY);
  }
  for my $path (@{$launch->{read_only_mounts}}) {
    fail(qq{cannot mount "$path" read-only (} . error_text() . ')')
      unless $bind->($path) && $setattr->($path, 0, $RDONLY, 0);
  }
  my ($MS_RDONLY, $MS_NOSUID, $MS_NODEV, $MS_NOEXEC) = (1, 2, 4, 8);
  my $empty = $MS_RDONLY | $MS_NOSUID | $MS_NODEV | $MS_NOEXEC;
  for my $path (@{$launch->{hidden_mounts}}) {
    next if sys('mount', 'tmpfs', "$path", 'tmpfs', $empty, 0) == 0;
    # Gone since it was listed (its executor was disposed): nothing to hide.
    next if $! == 2;
    fail(qq{cannot hide "$path" under an empty tmpfs (} . error_text() . ')');
  }
  # A devpts instance of its own, for every command: none sees the host's terminals.
  if (sys('mount', 'devpts', '/dev/pts', 'devpts', $MS_NOSUID | $MS_NOEXEC,
        'newinstance,ptmxmode=0666,mode=0620') != 0
      || sys('mount', '/dev/pts/ptmx', '/dev/ptmx', 0, $MS_BIND, 0) != 0) {
    fail('cannot mount a terminal instance on /dev/pts (' . error_text() . ')');
  }
  # Last, so that no later mount uncovers them.
  for my $mask (@{$launch->{masks}}) {
    my $path = $mask->{path};
    my $covered = exists($mask->{source})
      ? sys('mount', "$mask->{source}", "$path", 0, $MS_BIND, 0)
      : sys('mount', 'tmpfs', "$path", 'tmpfs', $empty, 'mode=000,size=4k');
    next if $covered != 0 && $! == 2; # gone since it was listed: nothing to read
    fail(qq{cannot mask "$path" (} . error_text() . ')')
      unless $covered == 0 && $setattr->($path, 0, $RDONLY, 0);
  }
  # The working directory still points into the mount it was opened on:
  # enter it again by path, so a writable root there is writable.
  my $cwd = "\0" x 4096;
  if (sys_into('getcwd', $cwd, 4096) < 0 || sys('chdir', $cwd) != 0) {
    fail('cannot enter the working directory again (' . error_text() . ')');
  }
}

# Step 6. The Landlock ruleset for the policy, restricting this process
# (and all it will run) from here on, with no new privileges; returns the
# kernel's Landlock ABI.
sub restrict_with_landlock {
  my ($launch) = @_;
  my $policy = $launch->{policy};
  my @unreadable = @{$launch->{unreadable}};
  my $abi = sys('landlock_create_ruleset', 0, 0, 1);
  fail('Landlock is not available in this kernel (' . error_text() . ')') if $abi < 1;
  # Access rights, by the ABI that introduced them.
  my ($EXECUTE, $WRITE_FILE, $READ_FILE, $READ_DIR) = (1, 2, 4, 8);
  my ($REFER, $TRUNCATE, $IOCTL_DEV) = (1 << 13, 1 << 14, 1 << 15);
  my $handled_fs = (1 << 13) - 1;
  $handled_fs |= $REFER if $abi >= 2;
  $handled_fs |= $TRUNCATE if $abi >= 3;
  $handled_fs |= $IOCTL_DEV if $abi >= 5;
  my $file_rights = $EXECUTE | $WRITE_FILE | $READ_FILE | $TRUNCATE | $IOCTL_DEV;
  # No IOCTL_DEV: a device opened only for reading would still take ioctls
  # that change the host (attaching a loop device, for one).
  my $read_rights = ($EXECUTE | $READ_FILE | $READ_DIR) & $handled_fs;
  my $network = is_string($policy->{network}) ? $policy->{network} : '';
  my $handled_net = $abi >= 4 && $network eq 'deny' ? 3 : 0; # TCP bind | TCP connect
  # Scopes (ABI 6): no signals to processes outside the sandbox; no abstract
  # Unix sockets outside it unless the network is allowed.
  my $scoped = $abi >= 6 ? 2 | ($network ne 'allow' ? 1 : 0) : 0;
  my $attr = pack('QQQ', $handled_fs, $handled_net, $scoped);
  my $attr_size = $abi >= 6 ? 24 : $abi >= 4 ? 16 : 8;
  my $ruleset = sys('landlock_create_ruleset', $attr, $attr_size, 0);
  fail('landlock_create_ruleset failed (' . error_text() . ')') if $ruleset < 0;

  # The paths are canonical: a symlink met on the way was planted since they
  # were resolved, and following it would grant its target.
  my ($AT_FDCWD, $RESOLVE_NO_SYMLINKS, $O_PATH, $O_DIRECTORY) = (-100, 4, 010000000, 0200000);
  my $open = sub {
    my ($path, $flags) = @_;
    my $how = pack('QQQ', $flags | 02000000, 0, $RESOLVE_NO_SYMLINKS);
    return sys('openat2', $AT_FDCWD, "$path", $how, 24);
  };
  # Adds a rule; false when $path cannot be opened without following a symlink.
  my $try_add_path = sub {
    my ($path, $rights) = @_;
    my $fd = $open->($path, $O_PATH);
    return 0 if $fd < 0;
    # struct landlock_path_beneath_attr, packed: 12 bytes.
    my $added = sys('landlock_add_rule', $ruleset, 1, pack('Q l', $rights & $handled_fs, $fd), 0);
    # Directory rights on a file are EINVAL: a walked entry may be either.
    if ($added < 0 && ($rights & ~$file_rights) != 0) {
      my $rule = pack('Q l', $rights & $file_rights & $handled_fs, $fd);
      $added = sys('landlock_add_rule', $ruleset, 1, $rule, 0);
    }
    fail(qq{landlock_add_rule for "$path" failed (} . error_text() . ')') if $added < 0;
    sys('close', $fd);
    return 1;
  };
  my $add_path = sub {
    my ($path, $rights) = @_;
    fail(qq{cannot open "$path" without following a symlink (} . error_text() . ')')
      unless $try_add_path->($path, $rights);
  };
  # The entries of a directory, by getdents64.
  my $entries = sub {
    my ($dir) = @_;
    my $fd = $open->($dir, $O_DIRECTORY);
    fail(qq{cannot list "$dir" to keep reads from beneath it (} . error_text() . ')') if $fd < 0;
    my @names;
    for (;;) {
      my $buffer = "\0" x 65536;
      my $size = sys_into('getdents64', $fd, $buffer, 65536);
      fail(qq{cannot list "$dir" (} . error_text() . ')') if $size < 0;
      last if $size == 0;
      for (my $at = 0; $at < $size; $at += unpack('v', substr($buffer, $at + 16, 2))) {
        # struct linux_dirent64: d_name at 19.
        my $name = substr($buffer, $at + 19, index($buffer, "\0", $at + 19) - $at - 19);
        next if $name eq '.' || $name eq '..';
        # A name that is not UTF-8 is left out, as the Deno launcher does: it stays unreadable.
        next unless $name =~ /\A(?:[\x00-\x7F]|[\xC2-\xDF][\x80-\xBF]|\xE0[\xA0-\xBF][\x80-\xBF]|[\xE1-\xEC\xEE\xEF][\x80-\xBF]{2}|\xED[\x80-\x9F][\x80-\xBF]|\xF0[\x90-\xBF][\x80-\xBF]{2}|[\xF1-\xF3][\x80-\xBF]{3}|\xF4[\x80-\x8F][\x80-\xBF]{2})*\z/;
        push @names, $name;
      }
    }
    sys('close', $fd);
    return @names;
  };
  # Reading is granted on every entry around the unreadable paths; those
  # that cannot be opened without following a symlink are reached through
  # their targets' own rules, or not at all.
  my $read_around;
  $read_around = sub {
    my ($dir) = @_;
    for my $name ($entries->($dir)) {
      my $path = $dir eq '/' ? "/$name" : "$dir/$name";
      next if grep { $_ eq $path } @unreadable;
      if (grep { index($_, "$path/") == 0 } @unreadable) { $read_around->($path); }
      else { $try_add_path->($path, $read_rights); }
    }
  };
  for my $path (@{$policy->{readPaths}}) {
    my $prefix = $path eq '/' ? '/' : "$path/";
    unless (grep { index($_, $prefix) == 0 } @unreadable) {
      $add_path->($path, $read_rights);
      next;
    }
    $add_path->($path, $READ_DIR & $handled_fs);
    $read_around->($path);
  }
  $add_path->($_, $handled_fs) for @{$policy->{writeDirs}};
  $add_path->($_, $file_rights) for @{$policy->{writeFiles}};

  my $PR_SET_NO_NEW_PRIVS = 38;
  fail('prctl(PR_SET_NO_NEW_PRIVS) failed (' . error_text() . ')')
    if sys('prctl', $PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0;
  fail('landlock_restrict_self failed (' . error_text() . ')')
    if sys('landlock_restrict_self', $ruleset, 0) != 0;
  sys('close', $ruleset);
  return $abi;
}

# Step 7. Every capability dropped: the bounding set emptied (root's execve
# grants exactly that set), then every capability set; with no new
# privileges, the command cannot get any back.
sub drop_capabilities {
  my ($PR_CAPBSET_READ, $PR_CAPBSET_DROP, $PR_CAP_AMBIENT, $PR_CAP_AMBIENT_CLEAR_ALL) = (23, 24, 47, 4);
  my $root = sys('geteuid') == 0;
  # Dropping a capability succeeds whether it is in the set or not; past the
  # last one it fails, and PR_CAPBSET_READ then answers -1 (not 1 or 0).
  for (my $cap = 0;; $cap++) {
    next if sys('prctl', $PR_CAPBSET_DROP, $cap, 0, 0, 0) == 0;
    my $reason = error_text();
    last if sys('prctl', $PR_CAPBSET_READ, $cap, 0, 0, 0) < 0;
    # Without CAP_SETPCAP the set cannot shrink; a non-root user gains nothing from it.
    last unless $root;
    fail("dropping capability $cap from the bounding set failed ($reason)");
  }
  sys('prctl', $PR_CAP_AMBIENT, $PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  my $header = pack('LL', 0x20080522, 0); # _LINUX_CAPABILITY_VERSION_3, this thread
  my $data = "\0" x 24;
  fail('clearing the capability sets failed (' . error_text() . ')')
    if sys('capset', $header, $data) != 0;
}

# Step 8. The ABI printed when the policy asks, then the process as a
# normal spawn leaves it: SIGPIPE and SIGFPE at their defaults (perl
# ignores SIGFPE from its start, and only its own exec restores it; an
# ignored signal survives execve), every inherited descriptor above 2
# close-on-exec.
sub reset_for_exec {
  my ($abi, $report_abi) = @_;
  syswrite(STDOUT, "${LAUNCHER_ABI_PREFIX} $abi\n") if $report_abi;
  # struct sigaction all zero: SIG_DFL, no flags, an empty mask; 8 bytes of signal set.
  my $action = "\0" x 32;
  my ($SIGFPE, $SIGPIPE) = (8, 13);
  sys('rt_sigaction', $_, $action, 0, 8) for ($SIGFPE, $SIGPIPE);
  fail('marking inherited descriptors close-on-exec failed (' . error_text() . ')')
    if sys('close_range', 3, 0xffffffff, 4) != 0; # CLOSE_RANGE_CLOEXEC
}

# Step 9. The seccomp filter ($filter: struct sock_filter bytes), installed.
sub install_seccomp_filter {
  my ($filter) = @_;
  my $prog = pack('S x6 Q', length($filter) / 8, address($filter)); # struct sock_fprog
  fail('installing the seccomp filter failed (' . error_text() . ')')
    if sys('prctl', 22, 2, $prog, 0, 0) != 0; # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
}

# Step 10. The command, in place of the launcher: a standby first says it
# runs the launch (LAUNCH_STARTED on stdout), then the rlimits are set, soft
# first, then hard, as ulimit sets them, and execve replaces the launcher
# with exactly the environment given.
sub exec_command {
  my ($launch, $standby) = @_;
  # Copies that live until the exec: the pointer arrays point into them.
  my @argv = map { "$_" } ($launch->{program}, @{$launch->{program_args}});
  my @envp = map { "$_" } @{$launch->{environment}};
  my $argv = pack('p*', @argv, undef);
  my $envp = pack('p*', @envp, undef);
  my $path = "$launch->{program}";
  if ($standby) {
    my $started = chr(${LAUNCH_STARTED});
    fail('cannot tell the executor that the launch runs (' . error_text() . ')')
      if sys('write', 1, $started, 1) != 1;
  }
  for my $limit (@{$launch->{rlimits}}) {
    my ($resource, @values) = @$limit;
    for my $index (0, 1) {
      my $current = "\0" x 16; # struct rlimit64: soft, hard
      next if sys_into('prlimit64', 0, $resource, 0, $current) != 0;
      substr($current, $index * 8, 8) = pack('Q', $values[$index]);
      sys('prlimit64', 0, $resource, $current, 0);
    }
  }
  sys('execve', $path, $argv, $envp);
  fail(qq{execve of "$launch->{program}" failed (} . error_text() . ')');
}

# The self-check: this perl can run the launcher.
sub self_check {
  bind_syscalls();
  fail('syscall() does not answer as the kernel does') unless sys('geteuid') == $>;
  syswrite(STDOUT, "${PERL_SELF_CHECK_PASSED}\n");
  exit 0;
}

eval {
  self_check() if @ARGV == 1 && $ARGV[0] eq '${PERL_SELF_CHECK_FLAG}';
  bind_syscalls();
  my $standby = @ARGV && $ARGV[0] eq '${LAUNCHER_STANDBY_FLAG}';
  my $launch = checked_launch(read_arguments());
  join_cgroups(@{$launch->{cgroup_procs}});
  mount_view($launch) if defined $launch->{mounts};
  my $abi = restrict_with_landlock($launch);
  drop_capabilities();
  reset_for_exec($abi, is_true($launch->{policy}{reportAbi}));
  install_seccomp_filter($launch->{filter}) if defined $launch->{filter};
  exec_command($launch, $standby);
  1;
} or do {
  (my $error = $@) =~ s/\s+\z//;
  fail("the launcher failed: $error");
};
`;
}

/** The source, made once. */
const SOURCE: string = perlLauncherSource();
