// Runs yaml-language-server, the language service of VS Code's YAML
// extension, on IDL documents the way the editor does: each document's
// first line names the IDL's JSON Schema by a path relative to it.
//
// Input on stdin: a JSON list of {path, text, complete, hover}, where
// path is absolute, text the document (read from path when absent), and
// complete and hover optional {line, character} positions (0-based).
// Output on stdout: a JSON list of {path, diagnostics, completion, hover}
// with diagnostics as {line (1-based), message}.
'use strict';
const fs = require('fs');
const { URL, pathToFileURL, fileURLToPath } = require('url');
const { getLanguageService } = require('yaml-language-server/lib/umd/languageservice/yamlLanguageService');
const { TextDocument } = require('vscode-languageserver-textdocument');

const ls = getLanguageService({
  schemaRequestService: async (uri) => fs.readFileSync(fileURLToPath(uri), 'utf8'),
  workspaceContext: { resolveRelativePath: (rel, resource) => new URL(rel, resource).toString() },
});
ls.configure({ validate: true, completion: true, hover: true, yamlVersion: '1.2' });

async function main() {
  const input = JSON.parse(fs.readFileSync(0, 'utf8'));
  const out = [];
  let version = 0;
  for (const d of input) {
    const text = d.text ?? fs.readFileSync(d.path, 'utf8');
    // The service caches by URI and version: every document gets its own.
    const doc = TextDocument.create(pathToFileURL(d.path).toString(), 'yaml', ++version, text);
    const r = { path: d.path };
    r.diagnostics = (await ls.doValidation(doc, false)).map((x) => ({ line: x.range.start.line + 1, message: x.message }));
    if (d.complete) {
      const c = await ls.doComplete(doc, d.complete, false);
      r.completion = c.items.map((i) => i.label);
    }
    if (d.hover) {
      const h = await ls.doHover(doc, d.hover);
      r.hover = h ? (typeof h.contents === 'string' ? h.contents : h.contents.value ?? JSON.stringify(h.contents)) : '';
    }
    out.push(r);
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
