// Package mcpconformance runs the official MCP conformance suite (npm
// @modelcontextprotocol/conformance, pinned with the Node.js that runs it in
// package.json and package-lock.json, installed by make deps) against
// rpcgen's MCP programs over Streamable HTTP. Everything is in its tests;
// see README.md.
//
// The tests share these helpers (package mcpconformance_test):
//
//   - bins maps the programs TestMain builds (an import path or a directory
//     relative to this one) to the variables that receive their paths; a
//     test file adds its own in an init function.
//   - needSuite(t) returns the suite (node binary and the suite's entry
//     script), failing with "run make deps" when it is not installed.
//   - suite.run(t, ctx, args...) runs the suite's CLI with args and returns
//     its combined output and error (a non-zero exit is an *exec.ExitError).
//   - startServer(t, bin, args...) starts a program that takes -http ADDR,
//     waits for its "listening on URL" line on stderr and returns the URL;
//     the program is stopped when the test ends.
//   - readResults(t, dir) decodes every checks.json the suite wrote under
//     dir (its -o directory) into one scenarioResult per scenario, sorted by
//     name; scenarioResult.failures lists each check that did not pass
//     (FAILURE or WARNING) with its message.
//   - suite.listScenarios(t, ctx, "--server" or "--client") returns the
//     scenarios `conformance list` prints, mapped to their spec versions.
//   - checkBlock(t, name, write, render) keeps the block "name" of README.md
//     (between "<!-- begin name results: ... -->" and "<!-- end name
//     results -->") equal to render(date): it rewrites it when write (the
//     shared -update flag, variable update) and fails when it is stale.
//     TestServerScenarios owns the block "server".
//   - suiteVersion and nodeVersion are the pinned versions.
package mcpconformance
