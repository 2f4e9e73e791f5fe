package main

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// languages are the completions of the review prompt's language argument.
var languages = []string{"c", "go", "java", "javascript", "python", "rust", "typescript"}

// snippets are the completions of the review prompt's code argument, by
// language: one line that prints a greeting.
var snippets = map[string]string{
	"c": `printf("hello\n");`, "go": `fmt.Println("hello")`, "java": `System.out.println("hello");`,
	"javascript": `console.log("hello");`, "python": `print("hello")`, "rust": `println!("hello");`,
	"typescript": `console.log("hello");`,
}

// topics are the completions of the shout prompt's topic argument.
var topics = []string{"deadlines", "lunch", "release", "weather"}

// names are the completions of the greeting template's name variable.
var names = []string{"Ada", "Alan", "Barbara", "Grace", "Ken"}

// promptCompletions returns the candidates for argument arg of prompt
// given the arguments already resolved, or false when the prompt has no
// such argument. Every argument of every prompt the server lists has some.
func promptCompletions(prompt, arg string, resolved map[string]string) ([]string, bool) {
	switch prompt + "/" + arg {
	case "review/language":
		return languages, true
	case "review/code":
		// The snippet of the language chosen, else of every language.
		if s, ok := snippets[resolved["language"]]; ok {
			return []string{s}, true
		}
		var all []string
		for _, s := range snippets {
			if !slices.Contains(all, s) {
				all = append(all, s)
			}
		}
		return all, true
	case "shout/topic":
		return topics, true
	}
	return nil, false
}

// maxCompletions is the most values one completion/complete answer holds,
// as MCP asks.
const maxCompletions = 100

func (s *server) Complete(_ context.Context, p *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	var pool []string
	var resolved map[string]string
	if p.Context != nil {
		resolved = p.Context.Arguments
	}
	switch {
	case p.Ref.RefPrompt != nil:
		name := p.Ref.RefPrompt.Name
		if !slices.ContainsFunc(s.prompts(), func(pr mcp.Prompt) bool { return pr.Name == name }) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown prompt: "+jsonrpc.Truncate(name), nil)
		}
		var ok bool
		if pool, ok = promptCompletions(name, p.Argument.Name, resolved); !ok {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams,
				"Prompt "+name+" has no argument "+jsonrpc.Truncate(p.Argument.Name), nil)
		}
	case p.Ref.RefResource != nil && p.Ref.RefResource.URI == greetingPrefix+"{name}" && p.Argument.Name == "name":
		pool = names
	case p.Ref.RefResource != nil:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown resource template or variable: "+
			jsonrpc.Truncate(p.Ref.RefResource.URI)+" "+jsonrpc.Truncate(p.Argument.Name), nil)
	default:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "ref must name a prompt or a resource template", nil)
	}
	values := []string{}
	for _, v := range pool {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(p.Argument.Value)) {
			values = append(values, v)
		}
	}
	sort.Strings(values)
	total := int64(len(values))
	more := len(values) > maxCompletions
	if more {
		values = values[:maxCompletions]
	}
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: values, Total: &total, HasMore: more}}, nil
}
