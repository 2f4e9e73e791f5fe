package idl

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Pos is a position in an IDL file. Line and Col start at 1; Col counts
// characters (Unicode code points), not bytes.
type Pos struct {
	File string
	Line int
	Col  int
}

// String returns "file:line:col".
func (p Pos) String() string {
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether p points into a file.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Error is one problem found in an IDL file.
type Error struct {
	Pos Pos
	Msg string
}

// Error returns "file:line:col: message".
func (e Error) Error() string {
	return e.Pos.String() + ": " + e.Msg
}

// Errors is every problem found while loading an IDL, sorted by position.
// It is the error type returned by [Load] and [Parse].
type Errors []Error

// Error returns one "file:line:col: message" line per problem.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// errorList collects problems while loading.
type errorList struct {
	errs Errors
}

// add records a problem at pos.
func (l *errorList) add(pos Pos, format string, args ...any) {
	l.errs = append(l.errs, Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// sorted returns the problems sorted by file, line, column and message,
// without duplicates, or nil when there are none.
func (l *errorList) sorted() Errors {
	if len(l.errs) == 0 {
		return nil
	}
	es := slices.Clone(l.errs)
	slices.SortStableFunc(es, func(a, b Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.Msg, b.Msg),
		)
	})
	return slices.Compact(es)
}
