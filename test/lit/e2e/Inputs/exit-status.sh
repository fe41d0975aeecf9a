#!/bin/sh
# exit-status.sh N COMMAND...: runs COMMAND and fails unless it exits with
# status N (the e2e suite's %exits). A fatal error ends a program with
# status 2, as Go's do.
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "exit-status: '$*' exited with status $got, not $want" >&2
  exit 1
fi
