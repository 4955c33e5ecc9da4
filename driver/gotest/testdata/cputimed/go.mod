module example.com/cputimed

go 1.26
