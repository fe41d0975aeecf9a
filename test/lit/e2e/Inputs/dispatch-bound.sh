# Usage: dispatch-bound.sh BINARY FUNCTION
# Says whether the linker bound __copystack_dispatch.FUNCTION to FUNCTION
# itself (the same address) or kept the weak stub.
f=$(nm "$1" | awk -v n="$2" '$3 == n { print $1 }')
s=$(nm "$1" | awk -v n="__copystack_dispatch.$2" '$3 == n { print $1 }')
if [ -z "$s" ]; then
  echo "$2: no dispatch symbol"
elif [ "$f" = "$s" ]; then
  echo "$2: bound to the callee"
else
  echo "$2: stub"
fi
