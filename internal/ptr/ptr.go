// Package ptr gives this module's examples and tests a pointer to a value,
// for the optional members generated code holds through a pointer (numbers,
// objects, booleans that default to true; see gen/golang/README.md).
//
// Code in a module whose go.mod says go 1.26 or later writes new(v)
// instead; this module keeps go 1.25 so as not to raise the Go version its
// users need.
package ptr

// To returns a pointer to a copy of v.
func To[T any](v T) *T { return &v }
