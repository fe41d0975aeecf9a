module copystack/bench/growth

go 1.19
