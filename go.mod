module github.com/rpcgen/rpcgen

go 1.25

require (
	github.com/goccy/go-yaml v1.19.2
	go.uber.org/goleak v1.3.0 // indirect
)
