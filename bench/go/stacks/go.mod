module copystack/bench/stacks

go 1.19
