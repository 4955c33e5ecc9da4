module example.com/plantedpair

go 1.26
