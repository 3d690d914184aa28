# ci-lib.sh — shell functions the CI scripts share; source it, do not run
# it.
#
#   find_mnn ARCH          print the MNN prefix for ARCH (x86_64 or aarch64):
#                          $MNN_ROOT (x86_64) or $MNN_ARM64_ROOT (aarch64)
#                          when set, else /opt/mnn (/opt/mnn-arm64), else the
#                          prebuilt MNN in ../shared/engines/mnn-3.6.1/
#                          linux-ARCH ($POCKETEVAL_SHARED/engines/...). Fails,
#                          saying what it looked for, when none has the
#                          layout (include/llm/llm.hpp, include/MNN/,
#                          lib/libllm.so) or a set variable points at no MNN.
#   ci_skip NAME REASON    a missing piece: under CI=true an error (exit 1),
#                          elsewhere "NAME: SKIPPED REASON" and exit 0;
#                          scripts/test.sh repeats every SKIPPED line last.
#   apt_install NAME PKG…  installs the Debian packages PKG… (as root, or
#                          through sudo -n), once: a later run finds them.
#                          Fails, saying why, when there is no apt-get or it
#                          fails; NAME prefixes what it prints.
#   arm64_tools NAME       finds qemu-aarch64 and Debian's aarch64 cross
#                          compiler with its sysroot (ARM64_SYSROOT, default
#                          /usr/aarch64-linux-gnu), installing what is missing
#                          (apt_install); sets qemu (empty when it is still
#                          missing) and sysroot, and returns 1 when the cross
#                          compiler is still missing.
#   mark_run               marks every process started from now on with a
#                          variable unique to this run (POCKETEVAL_RUN_MARK;
#                          an inherited one is kept).
#   check_no_survivors W   fails, listing them, when a process marked by
#                          mark_run is still alive (W names the script);
#                          only the script that made the mark checks (a
#                          step of test.sh leaves it to test.sh's last
#                          check, made when its pipes have ended).

# mnn_prefix_ok DIR: DIR has the layout the mnn build tag links against.
mnn_prefix_ok() {
	[[ -f $1/include/llm/llm.hpp && -f $1/include/MNN/Interpreter.hpp && -e $1/lib/libllm.so ]]
}

find_mnn() {
	local arch=$1 var dflt shared
	case $arch in
	x86_64) var=MNN_ROOT dflt=/opt/mnn ;;
	aarch64) var=MNN_ARM64_ROOT dflt=/opt/mnn-arm64 ;;
	*)
		echo "find_mnn: unknown architecture $arch" >&2
		return 2
		;;
	esac
	local root=${POCKETEVAL_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
	shared=${POCKETEVAL_SHARED:-$root/../shared}/engines/mnn-3.6.1/linux-$arch
	if [[ -n ${!var:-} ]]; then
		if mnn_prefix_ok "${!var}"; then
			echo "${!var}"
			return 0
		fi
		echo "$var=${!var} holds no MNN (need include/llm/llm.hpp, include/MNN/Interpreter.hpp and lib/libllm.so)" >&2
		return 1
	fi
	local d
	for d in "$dflt" "$shared"; do
		if mnn_prefix_ok "$d"; then
			(cd "$d" && pwd)
			return 0
		fi
	done
	echo "no MNN for $arch: $var is unset, and neither $dflt nor $shared has include/llm/llm.hpp, include/MNN/Interpreter.hpp and lib/libllm.so" >&2
	return 1
}

ci_skip() {
	if [[ ${CI:-} == true ]]; then
		echo "$1: FAILED (CI=true, where nothing may be skipped): $2" >&2
		exit 1
	fi
	echo "$1: SKIPPED $2"
	exit 0
}

apt_install() {
	local name=$1
	shift
	local sudo_cmd=() log
	[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo -n)
	if ! command -v apt-get >/dev/null; then
		echo "$name: no apt-get to install $*" >&2
		return 1
	fi
	echo "$name: installing $*" >&2
	log=$(mktemp)
	if DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq >"$log" 2>&1 &&
		DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@" >>"$log" 2>&1; then
		rm -f "$log"
		return 0
	fi
	echo "$name: apt-get failed: $(tail -n 3 "$log" | tr '\n' ' ')" >&2
	rm -f "$log"
	return 1
}

find_qemu() { command -v qemu-aarch64-static || command -v qemu-aarch64 || true; }
have_cross() { command -v aarch64-linux-gnu-g++ >/dev/null && [[ -e $sysroot/lib/libstdc++.so.6 ]]; }

arm64_tools() {
	sysroot=${ARM64_SYSROOT:-/usr/aarch64-linux-gnu}
	qemu=$(find_qemu)
	if [[ -z $qemu ]] || ! have_cross; then
		local want=()
		[[ -n $qemu ]] || want+=(qemu-user-static)
		have_cross || want+=(g++-aarch64-linux-gnu)
		apt_install "$1" "${want[@]}" && qemu=$(find_qemu)
	fi
	have_cross
}

mark_run() {
	if [[ -z ${POCKETEVAL_RUN_MARK:-} ]]; then
		POCKETEVAL_RUN_MARK=$$.$RANDOM$RANDOM.$(date +%s%N)
		# Not exported: only the script that made the mark checks it.
		pocketeval_mark_owner=$$
	fi
	export POCKETEVAL_RUN_MARK
}

# The scan reads each process's environment as it was started
# (/proc/PID/environ), leaving out itself and the scripts running it (its
# ancestors: a script run by a marked script inherits the mark and checks
# with it, so scripts/test.sh's last check covers every step).
check_no_survivors() {
	local left
	if [[ ${pocketeval_mark_owner:-} != "$$" ]]; then
		# An inherited mark: the caller (scripts/test.sh) checks once all
		# its steps have ended, when the pipes it runs them through (tee)
		# have ended too.
		echo "$1: its processes are checked by the run that started it"
		return 0
	fi
	left=$(env -u POCKETEVAL_RUN_MARK /usr/bin/python3 - "$POCKETEVAL_RUN_MARK" <<'PY'
import os, sys
want = b"POCKETEVAL_RUN_MARK=" + sys.argv[1].encode()
def ppid(pid):
    for l in open("/proc/%s/status" % pid):
        if l.startswith("PPid:"):
            return l.split()[1]
    return "0"
mine, p = {str(os.getpid())}, str(os.getppid())
while p not in ("0", "1") and p not in mine:
    mine.add(p)  # the scripts that are running this check
    try:
        p = ppid(p)
    except OSError:
        break
for pid in sorted((p for p in os.listdir("/proc") if p.isdigit()), key=int):
    try:
        env = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
        if want not in env or pid in mine:
            continue
        cmd = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ").decode(errors="replace")
        state = [l for l in open("/proc/%s/status" % pid) if l.startswith("State:")]
    except OSError:
        continue  # gone, or not ours to read
    if state and "Z" in state[0].split()[1]:
        continue  # a zombie has ended; only its parent's wait is missing
    print("  pid %s: %s" % (pid, cmd.strip()))
PY
)
	if [[ -n $left ]]; then
		echo "$1: processes started by this run are still running:" >&2
		echo "$left" >&2
		return 1
	fi
	echo "$1: no process started by this run survives it"
}
