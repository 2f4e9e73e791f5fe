// Package doccheck holds a repository test: every exported name in the
// project's hand-written packages has a doc comment.
package doccheck
