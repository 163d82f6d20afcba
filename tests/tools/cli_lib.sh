# Shared by cli_test.sh and gradcheck_edges_test.sh (sourced): temp folder, expect and has.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {  # expect CODE DESCRIPTION COMMAND...
  local want=$1 what=$2; shift 2
  "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  local got=$?
  if [ "$got" = "$want" ]; then echo "ok   $what (exit $got)"; else
    echo "FAIL $what: exit $got, expected $want"; cat "$tmp/stderr"; fail=1; fi
}
has() {  # has FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then echo "ok   $3"; else echo "FAIL $3: no \"$2\" in $1:"; cat "$1"; fail=1; fi
}
