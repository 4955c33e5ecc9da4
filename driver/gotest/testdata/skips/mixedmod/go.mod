module example.com/skipmod

go 1.26
