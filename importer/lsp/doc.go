// Package lsp converts the Language Server Protocol's meta model
// (metaModel.json, published with microsoft/vscode-languageserver-node)
// into an rpcgen IDL file: `rpcgen import lsp metaModel.json -o lsp.yaml`.
//
// The conversion keeps the meta model's structure and order (names,
// members, types, directions, since, deprecated, proposed) and drops its
// prose: each type and method links to its section of the published
// specification instead. README.md lists how each construct is mapped and
// why.
package lsp
