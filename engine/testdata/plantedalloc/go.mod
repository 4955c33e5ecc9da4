module example.com/plantedalloc

go 1.26
