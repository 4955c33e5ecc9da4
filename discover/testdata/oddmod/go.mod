module example.com/oddmod

go 1.26
