# Sourced first thing (before any cd) by the scripts that must run as root,
# with $why set to the reason. As root: nothing. Otherwise the script runs
# again under sudo, with its arguments, when sudo is installed; without sudo
# it says why root is needed and exits 1.
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		exec sudo --preserve-env=TEST_ARGS,CI bash "$(realpath "$0")" "$@"
	fi
	echo "$(basename "$0"): $why: run it as root (sudo is not installed)" >&2
	exit 1
fi
