module github.com/rpcgen/rpcgen

go 1.25

require go.uber.org/goleak v1.3.0 // indirect
