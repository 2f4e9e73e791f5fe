package main

import (
	"fmt"

	"github.com/rpcgen/rpcgen/generated/autohand"
)

// maxKept bounds each list the agent keeps for its client: browser handoff
// tokens, login sessions, queued goals, completed goals and archived
// sessions. Past it the oldest entry is forgotten, except for queued
// goals, which are refused.
const maxKept = 64

// keepNewest returns s without its oldest elements beyond n.
func keepNewest[T any](s []T, n int) []T {
	if len(s) <= n {
		return s
	}
	return append(s[:0:0], s[len(s)-n:]...)
}

// queueFull is the answer to a goal that would queue past maxKept; a.mu
// must be held.
func (a *agent) queueFull() *autohand.GoalMutationResult {
	res := a.mutation()
	res.Ok = false
	res.Message = fmt.Sprintf("The goal queue is full (%d goals); start or remove one first.", maxKept)
	return res
}

// newLogin registers a login session and returns its id, forgetting the
// oldest beyond maxKept; a.mu must be held.
func (a *agent) newLogin() string {
	a.seq["login"]++
	id := fmt.Sprintf("%032x", a.seq["login"])
	a.logins[id] = 0
	a.loginIDs = append(a.loginIDs, id)
	if len(a.loginIDs) > maxKept {
		delete(a.logins, a.loginIDs[0])
		a.loginIDs = keepNewest(a.loginIDs, maxKept)
	}
	return id
}
