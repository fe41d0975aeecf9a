module copystack/bench/net

go 1.19
