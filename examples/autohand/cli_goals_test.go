package autohand_test

import (
	"context"
	"testing"

	"github.com/rpcgen/rpcgen/generated/autohand"
)

// TestCLIGoalListTemplatesAnswers replays the two answers the Autohand CLI
// (autohandai/code-cli 0.8.2 at d24c4e6, src/modes/rpc/adapter.ts
// handleGoalListTemplates and src/goals/feature.ts) gives
// autohand.goal.listTemplates: {"ok":false,"message":...} while the goal
// feature is off, its default, and the template array once it is on. The
// generated client decodes both.
func TestCLIGoalListTemplatesAnswers(t *testing.T) {
	cli, agent, _ := connectCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	type answer struct {
		res *autohand.GoalListTemplatesResult
		err error
	}
	ask := func(reply func(id string) string) answer {
		t.Helper()
		done := make(chan answer, 1)
		go func() {
			res, err := agent.GoalListTemplates(ctx)
			done <- answer{res, err}
		}()
		method, id := cli.request()
		if method != autohand.MethodGoalListTemplates {
			t.Fatalf("client sent %s", method)
		}
		cli.write(reply(string(id)))
		return <-done
	}

	off := ask(func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"ok":false,"message":"The /goal feature is behind slash_goal. Run /experiments enable slash_goal, then try again."}}`
	})
	if off.err != nil || off.res.GoalDisabled == nil || off.res.GoalTemplates != nil || off.res.GoalDisabled.Message == "" {
		t.Fatalf("feature off: %+v, %v", off.res, off.err)
	}

	on := ask(func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":[{"name":"release","path":"/work/app/.autohand/goals/release.md","description":"Cut a release","aliases":["ship"],"allowCommands":["npm test"],"requiredPlaceholders":["args","version"],"requiredFlags":["version"],"requiresArgs":true}]}`
	})
	if on.err != nil || on.res.GoalTemplates == nil || len(*on.res.GoalTemplates) != 1 || on.res.GoalDisabled != nil {
		t.Fatalf("feature on: %+v, %v", on.res, on.err)
	}
	if tpl := (*on.res.GoalTemplates)[0]; tpl.Name != "release" || !tpl.RequiresArgs || tpl.RequiredFlags[0] != "version" {
		t.Errorf("template = %+v", tpl)
	}
}
