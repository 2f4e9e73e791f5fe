module github.com/rpcgen/rpcgen

go 1.25
