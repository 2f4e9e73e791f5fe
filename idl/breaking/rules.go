package breaking

// Class tells which peers a breaking change breaks.
type Class string

// Classes of breaking changes.
const (
	// Wire changes break a peer built from the old IDL talking to one
	// built from the new: a message one writes is refused or misread by
	// the other.
	Wire Class = "wire"
	// Go changes leave the wire as it was but break Go code written
	// against the package generated from the old IDL: a Go name, a Go
	// type or a declaration it used is gone.
	Go Class = "go"
)

// Rule is one kind of breaking change.
type Rule struct {
	Name  string
	Class Class
	// GoToo is true for a wire rule whose change also breaks Go code (a
	// removal, a rename, a changed type). When the change is in a named
	// type that no method or error carries, only such rules are reported,
	// in the Go class, since no message holds the type.
	GoToo bool
	Doc   string
}

// Rules lists every rule, wire rules first; each [Finding] names one.
var Rules = []Rule{
	{"PROTOCOL_FRAMING_CHANGED", Wire, false, "the framing changed (content-length, ndjson): peers cannot read each other's first message"},
	{"PROTOCOL_IDS_CHANGED", Wire, false, "the kind of request ids changed; rpcgen peers accept both kinds, other implementations of the protocol may not"},
	{"PROTOCOL_CANCELLATION_CHANGED", Wire, false, "the cancellation notification changed: cancellations of one side are unknown notifications to the other"},
	{"PROTOCOL_BATCHES_CHANGED", Wire, false, "whether JSON-RPC batches are accepted, or under which versions, changed"},
	{"PROTOCOL_HANDSHAKE_CHANGED", Wire, false, "the handshake request or the member of its result holding the negotiated version changed"},
	{"PROTOCOL_ROLES_SWAPPED", Wire, false, "the other role starts the connection (spawns or dials): each waits for the other, or both dial"},
	{"TRANSPORT_REMOVED", Wire, false, "a transport was removed: peers that use it cannot connect"},
	{"TRANSPORT_CHANGED", Wire, false, "a transport's port, path or headers changed: peers using the old ones do not meet"},
	{"METHOD_REMOVED", Wire, true, "a method or notification was removed: an old sender's message is refused (-32601) or dropped"},
	{"METHOD_DIRECTION_CHANGED", Wire, true, "the role that sends a method changed: the new sender's peer does not handle it"},
	{"METHOD_KIND_CHANGED", Wire, true, "a request became a notification or the reverse (or may no longer, or may now, come as a notification)"},
	{"PARAMS_OPTIONALITY_CHANGED", Wire, true, "params became optional (params?) or required: one side leaves out what the other requires"},
	{"FIELD_REMOVED", Wire, true, "a member was removed: readers drop what old writers send, and old readers miss it when it was required"},
	{"FIELD_RENAMED", Wire, true, "a member's JSON name changed (same place, same type): on the wire it is removed and added"},
	{"FIELD_NEW_REQUIRED", Wire, false, "a required member was added: new readers refuse messages of old writers, which lack it"},
	{"FIELD_OPTIONALITY_CHANGED", Wire, true, "a member became optional or required: one side leaves out what the other requires"},
	{"FIELD_NULLABLE_CHANGED", Wire, true, "a type accepts null now, or no longer does: one side writes null where the other refuses it"},
	{"FIELD_TYPE_CHANGED", Wire, true, "a member's, params', result's or data's type changed: its values do not decode on the other side"},
	{"FIELD_BOUNDS_CHANGED", Wire, false, "a number's minimum or maximum changed: values within one range are refused by the other"},
	{"FIELD_DEFAULT_CHANGED", Wire, false, "an optional member's default changed: an absent member means different values to the two sides"},
	{"FIELD_ORDER_CHANGED", Wire, true, "the members of a positional object moved: positions mean different members to the two sides"},
	{"OBJECT_POSITIONAL_CHANGED", Wire, true, "an object is sent as an array now, or as an object now"},
	{"ENUM_VALUE_REMOVED", Wire, true, "a value of a closed enum was removed (narrowed): new readers refuse it from old writers"},
	{"ENUM_VALUE_ADDED", Wire, false, "a value was added to a closed enum (widened): old readers refuse it from new writers; declare the enum open to grow it"},
	{"ENUM_OPEN_CHANGED", Wire, false, "an enum became open or closed: one side writes values the other refuses"},
	{"UNION_DISCRIMINATOR_CHANGED", Wire, true, "the member that tells a union's variants apart changed"},
	{"UNION_VARIANT_REMOVED", Wire, true, "a union variant was removed: new readers refuse its values from old writers"},
	{"UNION_VARIANT_ADDED", Wire, false, "a union variant was added: old readers refuse its values from new writers"},
	{"ERROR_CODE_CHANGED", Wire, true, "an error's code changed: the two sides read the same failure as different errors"},

	{"PACKAGE_CHANGED", Go, false, "the generated Go package name changed (protocol name)"},
	{"ROLE_RENAMED", Go, false, "a role's Go name changed: its interface, handler and remote types are renamed"},
	{"METHOD_GO_NAME_CHANGED", Go, false, "a method's Go name changed: its handler and caller methods are renamed"},
	{"RESULT_NULL_CHANGED", Go, false, `a request's result became "null" or unset: its handler and caller return another set of values`},
	{"TYPE_REMOVED", Go, false, "a named type was removed"},
	{"TYPE_RENAMED", Go, false, "a type's Go name changed (the same type at the same place, renamed)"},
	{"FIELD_GO_TYPE_CHANGED", Go, false, "a member's, params' or result's Go type changed: another named type of the same form, an alias or what it stands for, params where there were none"},
	{"FIELD_GO_NAME_CHANGED", Go, false, "a member's Go field name changed"},
	{"OBJECT_ADDITIONAL_CHANGED", Go, false, "an object keeps other members now, or no longer does: its Go field Extra is added or removed"},
	{"ENUM_VALUE_GO_NAME_CHANGED", Go, false, "an enum value's Go constant was renamed"},
	{"ENUM_CONST_REMOVED", Go, false, "a known value of an open enum was removed: the wire still accepts it, its Go constant is gone"},
	{"ERROR_REMOVED", Go, false, "an error was removed from the catalogue: its Go variable is gone"},
	{"ERROR_RENAMED", Go, false, "an error was renamed, keeping its code: its Go variable is renamed"},
}

// rules indexes Rules by name.
var rules = func() map[string]Rule {
	m := make(map[string]Rule, len(Rules))
	for _, r := range Rules {
		m[r.Name] = r
	}
	return m
}()
