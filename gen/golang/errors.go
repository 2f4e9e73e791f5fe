package golang

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/idl"
)

// errorsFile declares the protocol's own errors: a code constant, a
// sentinel for errors.Is and a constructor for handlers.
func (g *generator) errorsFile(f *file) error {
	var own []*idl.ErrorDef
	for _, e := range g.p.Errors {
		if !e.Standard {
			own = append(own, e)
		}
	}
	if len(own) == 0 {
		return nil
	}
	var codes, sentinels []jen.Code
	for _, e := range own {
		base := errorBase(e)
		codes = append(codes, jen.Id("Code"+base).Op("=").Lit(int(e.Code)))
		c := doc(fmt.Sprintf("Err%s is the %s error (%d %q). %s", base, e.Name, e.Code, e.Message, errorDoc(e))).add(metaText(e.Since, e.Proposed))
		sentinels = append(sentinels, c.code().Id("Err"+base).Op("=").Op("&").Qual(jsonrpcPkg, "Error").Values(
			jen.Id("Code").Op(":").Id("Code"+base),
			jen.Id("Message").Op(":").Lit(e.Message),
		))
	}
	f.add(doc("The codes of the protocol's own errors. The codes of JSON-RPC's standard errors are [jsonrpc.CodeParseError] and the like.").code().
		Const().Defs(codes...))
	f.add(doc("Sentinels of the protocol's own errors, for [errors.Is], which matches any [*jsonrpc.Error] carrying the same code whatever its message and data.").code().
		Var().Defs(sentinels...))
	for _, e := range own {
		base := errorBase(e)
		fn := "New" + base + "Error"
		c := doc(fmt.Sprintf("%s returns the %s error (%d %q) for a handler to return.", fn, e.Name, e.Code, e.Message))
		code, msg := jen.Id("Code"+base), jen.Lit(e.Message)
		if e.Data == nil {
			f.add(c.code().Func().Id(fn).Params().Op("*").Qual(jsonrpcPkg, "Error").Block(
				jen.Return(jen.Qual(jsonrpcPkg, "NewError").Call(code, msg, jen.Nil())),
			))
			continue
		}
		c.add("data becomes the error's data member; nil leaves it out.")
		dataType := goType(e.Data, false)
		if k := kindOf(e.Data); k == idl.KindObject || k == idl.KindUnion {
			dataType = jen.Op("*").Add(baseType(e.Data))
		}
		var body []jen.Code
		if k := kindOf(e.Data); k == idl.KindObject || k == idl.KindUnion || k == idl.KindArray || k == idl.KindMap || k == idl.KindAny || pointer(e.Data, false) {
			body = append(body, jen.If(jen.Id("data").Op("==").Nil()).Block(
				jen.Return(jen.Qual(jsonrpcPkg, "NewError").Call(code, msg, jen.Nil())),
			))
		}
		body = append(body, jen.Return(jen.Qual(jsonrpcPkg, "NewError").Call(code, msg, jen.Id("data"))))
		f.add(c.code().Func().Id(fn).Params(jen.Id("data").Add(dataType)).Op("*").Qual(jsonrpcPkg, "Error").Block(body...))
	}
	return nil
}

// errorBase is the Go name of an error without a final "Error", so that
// error ExecutionError gives ErrExecution and NewExecutionError.
func errorBase(e *idl.ErrorDef) string {
	if base := strings.TrimSuffix(e.GoName, "Error"); base != "" {
		return base
	}
	return e.GoName
}

// errorDoc is the IDL's doc of an error, as a sentence.
func errorDoc(e *idl.ErrorDef) string {
	return sentence(strings.TrimSpace(e.Doc))
}

// errorRef names an error in docs as a doc link: [ErrBusy], or
// [jsonrpc.ErrInvalidParams] for the standard ones.
func errorRef(e *idl.ErrorDef) string {
	if !e.Standard {
		return "[Err" + errorBase(e) + "]"
	}
	switch e.Code {
	case -32700:
		return "[jsonrpc.ErrParse]"
	case -32600:
		return "[jsonrpc.ErrInvalidRequest]"
	case -32601:
		return "[jsonrpc.ErrMethodNotFound]"
	case -32602:
		return "[jsonrpc.ErrInvalidParams]"
	}
	return "[jsonrpc.ErrInternal]"
}
