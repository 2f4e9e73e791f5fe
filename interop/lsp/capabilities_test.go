package lsp_test

// fullCapabilities are the client capabilities the typed client announces
// to gopls: every section of LSP 3.17's ClientCapabilities, each with the
// members an editor supporting the feature sets. The typed test decodes
// them into lsp.ClientCapabilities, checks they encode back to the same
// JSON, and sends them.
const fullCapabilities = `{
 "workspace": {
  "applyEdit": true,
  "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create", "rename", "delete"], "failureHandling": "textOnlyTransactional", "normalizesLineEndings": true, "changeAnnotationSupport": {"groupsOnLabel": true}},
  "didChangeConfiguration": {"dynamicRegistration": true},
  "didChangeWatchedFiles": {"dynamicRegistration": true, "relativePatternSupport": true},
  "symbol": {"dynamicRegistration": true, "symbolKind": {"valueSet": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26]}, "tagSupport": {"valueSet": [1]}, "resolveSupport": {"properties": ["location.range"]}},
  "executeCommand": {"dynamicRegistration": true},
  "workspaceFolders": true,
  "configuration": true,
  "semanticTokens": {"refreshSupport": true},
  "codeLens": {"refreshSupport": true},
  "fileOperations": {"dynamicRegistration": true, "didCreate": true, "willCreate": true, "didRename": true, "willRename": true, "didDelete": true, "willDelete": true},
  "inlineValue": {"refreshSupport": true},
  "inlayHint": {"refreshSupport": true},
  "diagnostics": {"refreshSupport": true}
 },
 "textDocument": {
  "synchronization": {"dynamicRegistration": true, "willSave": true, "willSaveWaitUntil": true, "didSave": true},
  "completion": {
   "dynamicRegistration": true,
   "completionItem": {"snippetSupport": true, "commitCharactersSupport": true, "documentationFormat": ["markdown", "plaintext"], "deprecatedSupport": true, "preselectSupport": true, "tagSupport": {"valueSet": [1]}, "insertReplaceSupport": true, "resolveSupport": {"properties": ["documentation", "detail", "additionalTextEdits"]}, "insertTextModeSupport": {"valueSet": [1, 2]}, "labelDetailsSupport": true},
   "completionItemKind": {"valueSet": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]},
   "insertTextMode": 2,
   "contextSupport": true,
   "completionList": {"itemDefaults": ["commitCharacters", "editRange", "insertTextFormat", "insertTextMode", "data"]}
  },
  "hover": {"dynamicRegistration": true, "contentFormat": ["markdown", "plaintext"]},
  "signatureHelp": {"dynamicRegistration": true, "signatureInformation": {"documentationFormat": ["markdown", "plaintext"], "parameterInformation": {"labelOffsetSupport": true}, "activeParameterSupport": true}, "contextSupport": true},
  "declaration": {"dynamicRegistration": true, "linkSupport": true},
  "definition": {"dynamicRegistration": true, "linkSupport": true},
  "typeDefinition": {"dynamicRegistration": true, "linkSupport": true},
  "implementation": {"dynamicRegistration": true, "linkSupport": true},
  "references": {"dynamicRegistration": true},
  "documentHighlight": {"dynamicRegistration": true},
  "documentSymbol": {"dynamicRegistration": true, "symbolKind": {"valueSet": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26]}, "hierarchicalDocumentSymbolSupport": true, "tagSupport": {"valueSet": [1]}, "labelSupport": true},
  "codeAction": {"dynamicRegistration": true, "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports"]}}, "isPreferredSupport": true, "disabledSupport": true, "dataSupport": true, "resolveSupport": {"properties": ["edit"]}, "honorsChangeAnnotations": true},
  "codeLens": {"dynamicRegistration": true},
  "documentLink": {"dynamicRegistration": true, "tooltipSupport": true},
  "colorProvider": {"dynamicRegistration": true},
  "formatting": {"dynamicRegistration": true},
  "rangeFormatting": {"dynamicRegistration": true},
  "onTypeFormatting": {"dynamicRegistration": true},
  "rename": {"dynamicRegistration": true, "prepareSupport": true, "prepareSupportDefaultBehavior": 1, "honorsChangeAnnotations": true},
  "foldingRange": {"dynamicRegistration": true, "rangeLimit": 5000, "lineFoldingOnly": true, "foldingRangeKind": {"valueSet": ["comment", "imports", "region"]}, "foldingRange": {"collapsedText": false}},
  "selectionRange": {"dynamicRegistration": true},
  "publishDiagnostics": {"relatedInformation": true, "tagSupport": {"valueSet": [1, 2]}, "versionSupport": true, "codeDescriptionSupport": true, "dataSupport": true},
  "callHierarchy": {"dynamicRegistration": true},
  "semanticTokens": {"dynamicRegistration": true, "requests": {"range": true, "full": {"delta": true}}, "tokenTypes": ["namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter", "variable", "property", "enumMember", "event", "function", "method", "macro", "keyword", "modifier", "comment", "string", "number", "regexp", "operator", "decorator"], "tokenModifiers": ["declaration", "definition", "readonly", "static", "deprecated", "abstract", "async", "modification", "documentation", "defaultLibrary"], "formats": ["relative"], "overlappingTokenSupport": false, "multilineTokenSupport": false, "serverCancelSupport": true, "augmentsSyntaxTokens": true},
  "linkedEditingRange": {"dynamicRegistration": true},
  "moniker": {"dynamicRegistration": true},
  "typeHierarchy": {"dynamicRegistration": true},
  "inlineValue": {"dynamicRegistration": true},
  "inlayHint": {"dynamicRegistration": true, "resolveSupport": {"properties": ["tooltip", "textEdits", "label.tooltip", "label.location", "label.command"]}},
  "diagnostic": {"dynamicRegistration": true, "relatedDocumentSupport": false}
 },
 "notebookDocument": {"synchronization": {"dynamicRegistration": true, "executionSummarySupport": true}},
 "window": {"workDoneProgress": true, "showMessage": {"messageActionItem": {"additionalPropertiesSupport": true}}, "showDocument": {"support": true}},
 "general": {"staleRequestSupport": {"cancel": true, "retryOnContentModified": ["textDocument/semanticTokens/full", "textDocument/semanticTokens/range", "textDocument/semanticTokens/full/delta"]}, "regularExpressions": {"engine": "ECMAScript", "version": "ES2020"}, "markdown": {"parser": "marked", "version": "1.1.0"}, "positionEncodings": ["utf-16"]}
}`
