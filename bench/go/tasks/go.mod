module copystack/bench/tasks

go 1.19
