package markdown

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/idl"
)

// errorHeader is the header of every error table.
var errorHeader = []string{"code", "name", "message", "description", "data"}

// errorRow returns the row of an error table for e.
func (d *doc) errorRow(e *idl.ErrorDef) []string {
	data := ""
	if e.Data != nil {
		data = d.typeExpr(e.Data)
	}
	return []string{strconv.FormatInt(e.Code, 10), d.errorLink(e), escape(e.Message), inline(e.Doc), data}
}

// writeErrors writes the error table and one section per error.
func (d *doc) writeErrors() {
	p := d.p
	d.heading(secErrors)
	d.para("A request fails when its response holds an `error` object instead of a `result`: an integer `code`, a `message` string (the message below by default) and, for errors that define it, `data`. Any request may fail with the five standard JSON-RPC 2.0 errors; each method lists the others it may return.")
	var rows [][]string
	for _, e := range p.Errors {
		rows = append(rows, d.errorRow(e))
	}
	d.table(errorHeader, rows)
	for _, e := range p.Errors {
		d.writeError(e)
	}
}

// writeError writes the section of one error.
func (d *doc) writeError(e *idl.ErrorDef) {
	d.heading(e)
	var by []string
	for _, m := range d.p.Methods {
		for _, me := range m.Errors {
			if me == e {
				by = append(by, d.methodLink(m))
				break
			}
		}
	}
	s := fmt.Sprintf("Code `%d`, message %s: ", e.Code, code(jsonString(e.Message)))
	switch {
	case e.Standard:
		s += "a standard JSON-RPC 2.0 error, which any request may return."
	case len(by) > 0:
		s += "returned by " + strings.Join(by, ", ") + "."
	default:
		s += "no method lists it."
	}
	if e.AllowReserved {
		s += " The code lies in the range JSON-RPC 2.0 reserves for itself; the protocol uses it on purpose."
	}
	d.para(s)
	d.meta(e.Since, e.Proposed)
	d.para(block(e.Doc))
	if e.Data != nil {
		d.para("**Data:** " + d.typeExpr(e.Data))
	}
}
