// Package depcheck holds a repository test: the runtime, and the packages
// rpcgen generates, depend on the standard library only, so importing a
// generated package never pulls in the generator's dependencies.
package depcheck
