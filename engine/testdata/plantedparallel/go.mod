module example.com/plantedparallel

go 1.26
