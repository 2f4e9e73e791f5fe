package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/generated/autohand"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The RPC profiles: the general agent, and Blueprint's two restricted ones.
const (
	profileGeneral    = "general"
	profileAnswerOnly = "answer-only"
	profileSetupOnly  = "setup-only"
)

// restricted lists the only methods each restricted profile accepts.
var restricted = map[string][]string{
	profileAnswerOnly: {autohand.MethodRuntimeInspect, autohand.MethodAnswer},
	profileSetupOnly:  {autohand.MethodLoginBegin, autohand.MethodLoginPoll, autohand.MethodLoginCancel},
}

// gate is the agent's middleware: it waits until the agent is started,
// applies the -latency delay, and enforces the profile. A method outside a
// restricted profile is a terminal ProfileViolation; the Blueprint methods
// do not exist in the general profile.
func (a *agent) gate(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		<-a.ready
		if a.cfg.latency > 0 && !req.IsNotification() {
			a.pause(ctx, a.cfg.latency)
		}
		allowed, isRestricted := restricted[a.cfg.profile]
		switch {
		case !isRestricted:
			if slices.Contains(restricted[profileAnswerOnly], req.Method) || slices.Contains(restricted[profileSetupOnly], req.Method) {
				return nil, jsonrpc.MethodNotFound(req.Method)
			}
		case req.IsNotification() || !slices.Contains(allowed, req.Method):
			jsonrpc.CloseAfterReply(ctx) // once the refusal is out
			return nil, autohand.NewProfileViolationError(&autohand.ProfileErrorData{
				Kind: autohand.ProfileErrorDataKindProfileViolation, Retryable: false,
			})
		}
		return next.Handle(ctx, req)
	})
}

// RuntimeInspect describes this executable without contacting anything.
func (a *agent) RuntimeInspect(context.Context) (*autohand.RuntimeInspectResult, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate executable: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return nil, fmt.Errorf("open executable: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		return nil, fmt.Errorf("hash executable: %w", err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	auth := autohand.RuntimeInspectResultAuthenticationConfigured
	if a.cfg.account == "" {
		auth = autohand.RuntimeInspectResultAuthenticationMissing
	}
	id := sha256.Sum256([]byte(exe + sum))
	return &autohand.RuntimeInspectResult{
		CliVersion: "1.0.0-scripted",
		CliIdentity: autohand.RuntimeInspectResultCliIdentity{
			InvocationPath: os.Args[0], ResolvedPath: exe,
			SymlinkChain: []autohand.RuntimeInspectResultCliIdentitySymlinkChainItem{},
			Package:      autohand.RuntimeInspectResultCliIdentityPackage{Name: "autohand-scripted-agent", Version: "1.0.0"},
			Artifacts:    []autohand.RuntimeInspectResultCliIdentityArtifactsItem{{Path: exe, Size: size, Sha256: sum}},
			IdentityHash: hex.EncodeToString(id[:]),
		},
		ProviderID: "scripted", Model: a.cfg.model,
		Authentication:       auth,
		ClientContext:        autohand.RuntimeInspectResultClientContextBlueprint,
		AnswerOnly:           a.cfg.profile == profileAnswerOnly,
		InferenceDestination: a.destination(),
	}, nil
}

// destination is where the -inference flag says the model runs.
func (a *agent) destination() autohand.InferenceDestination {
	if a.cfg.inference == "hosted" {
		return autohand.NewInferenceDestination(autohand.InferenceHosted{Provider: "scripted", Origin: "https://api.example.com"})
	}
	return autohand.NewInferenceDestination(autohand.InferenceInProcess{Provider: "scripted"})
}

var policyHash = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Answer fills the output schema's required properties from the evidence.
func (a *agent) Answer(_ context.Context, p *autohand.AnswerParams) (*autohand.AnswerResult, error) {
	raw, _ := json.Marshal(p)
	switch {
	case !policyHash.MatchString(p.PolicyHash):
		return nil, jsonrpc.NewError(autohand.CodeAnswerContractInvalid, "policyHash must be 64 lowercase hex characters", nil)
	case len(p.Artifacts) > 64:
		return nil, jsonrpc.NewError(autohand.CodeAnswerContractInvalid, "more than 64 artifacts", nil)
	case len(raw) > 8<<10:
		return nil, jsonrpc.NewError(autohand.CodeAnswerContractInvalid, "envelope larger than 8 KiB", nil)
	}
	if a.cfg.inference == "hosted" {
		return nil, autohand.NewInferenceDestinationBlockedError()
	}
	if a.cfg.account == "" {
		return nil, autohand.NewAuthenticationRequiredError(&autohand.ProfileErrorData{
			Kind: autohand.ProfileErrorDataKindAuthenticationRequired, Retryable: true, ProviderID: "scripted",
		})
	}
	var evidence []string
	for _, art := range p.Artifacts {
		if art.Class != autohand.ArtifactClassCredential {
			evidence = append(evidence, art.Content)
		}
	}
	out := map[string]any{}
	for _, name := range p.OutputSchema.Required {
		var prop struct{ Type string }
		_ = json.Unmarshal(p.OutputSchema.Properties[name], &prop)
		switch prop.Type {
		case "string":
			out[name] = strings.Join(evidence, "\n")
		case "integer", "number":
			out[name] = len(evidence)
		case "boolean":
			out[name] = len(evidence) > 0
		case "array":
			out[name] = nonNil(evidence)
		case "object":
			out[name] = map[string]any{}
		default:
			return nil, autohand.NewOutputInvalidError()
		}
	}
	result, _ := json.Marshal(out)
	if len(result) > 64<<10 {
		return nil, autohand.NewOutputLimitExceededError()
	}
	return &autohand.AnswerResult{Result: result, ProviderID: "scripted", Model: a.cfg.model, InferenceDestination: a.destination()}, nil
}

// LoginBegin starts a scripted device authorization: authorized at the
// second poll.
func (a *agent) LoginBegin(context.Context, *autohand.LoginBeginParams) (*autohand.LoginBeginResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := a.newLogin()
	return &autohand.LoginBeginResult{
		SessionID: id, UserCode: "ABCD-1234", VerificationURIComplete: "https://autohand.ai/signin?user_code=ABCD-1234",
		ExpiresAtUnixMs: time.Now().Add(10 * time.Minute).UnixMilli(), PollAfterMs: a.cfg.delay.Milliseconds(),
	}, nil
}

// LoginPoll reports a device authorization.
func (a *agent) LoginPoll(_ context.Context, p *autohand.LoginSession) (*autohand.LoginPollResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, ok := a.logins[p.SessionID]
	res := &autohand.LoginPollResult{SessionID: p.SessionID}
	switch {
	case !ok:
		res.Status = autohand.LoginPollResultStatusFailed
		res.Problem = &autohand.LoginPollResultProblem{Code: "unknown_session", Message: "no such login session"}
	case n < 0:
		res.Status = autohand.LoginPollResultStatusCancelled
	case n == 0:
		res.Status = autohand.LoginPollResultStatusPending
		a.logins[p.SessionID] = 1
	default:
		res.Status = autohand.LoginPollResultStatusAuthorized
	}
	return res, nil
}

// LoginCancel gives a device authorization up.
func (a *agent) LoginCancel(_ context.Context, p *autohand.LoginSession) (*autohand.LoginCancelResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.logins[p.SessionID]; !ok {
		return &autohand.LoginCancelResult{SessionID: p.SessionID, Status: autohand.LoginCancelResultStatusFailed}, nil
	}
	a.logins[p.SessionID] = -1
	return &autohand.LoginCancelResult{SessionID: p.SessionID, Status: autohand.LoginCancelResultStatusCancelled}, nil
}
