module example.com/shardtiny

go 1.26
