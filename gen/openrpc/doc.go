// Package openrpc generates the OpenRPC document (specification 1.3,
// https://spec.open-rpc.org) of a resolved [idl.Protocol], so that
// OpenRPC's playground, documentation and client generators can read the
// protocol. [Generate] returns one file, openrpc.json, written as JSON
// indented with two spaces; the same protocol always gives the same bytes.
//
// # Mapping
//
// info holds the protocol's name (title), version ("unversioned" when the
// IDL has none) and doc. Each method and notification is a Method Object,
// in IDL order:
//
//   - params: an object's members by name (paramStructure "by-name"), a
//     positional object's fields or a tuple's items (named param1,
//     param2, ...) by position ("by-position"); the members of a union of
//     objects by name, each required when every variant requires it. A
//     member's doc and deprecation move from its schema to its Content
//     Descriptor.
//   - result: a request's result, named "result"; {"type": "null"} for a
//     request whose result is always null. Notifications have none, as
//     OpenRPC says of notifications.
//   - errors: references to components.errors, which holds every error of
//     the protocol (code and message), the five of JSON-RPC included.
//   - examples: the IDL's examples as Example Pairing Objects named
//     "example N" (": Error" added for an error example): the params split
//     as the params are (one Example Object per member or position), and
//     the result, or the error response under error.
//   - tags: the direction ("client to server", "both directions") and
//     "notification" for notifications, for documentation tools.
//
// components.schemas holds the schema of every named type as gen/jsonschema
// writes it, in the draft-07 form OpenRPC requires: every reference points
// to "#/components/schemas/<Type>" ([SchemaRef]), and the positions of a
// positional object or tuple are items with additionalItems false.
//
// # Extensions
//
// What OpenRPC cannot say is in x-rpcgen- members. At the root:
//
//	x-rpcgen-roles           [{name, description}]; the first starts the connection
//	x-rpcgen-lifecycle       how a session starts, runs and ends
//	x-rpcgen-framing         "content-length" or "ndjson"
//	x-rpcgen-transports      [{kind, command, args, host, port, path, sessionHeader, versionHeader, defaultVersion, description}]
//	x-rpcgen-id-style        "integer" or "string"
//	x-rpcgen-cancellation    {style, method}: "none", or the notification that cancels a request
//	x-rpcgen-ordering        "concurrent" or "notifications-first"
//	x-rpcgen-handshake       {method, versionField}: the request that opens a session
//	x-rpcgen-batches         {accepted, versions}: whether JSON-RPC batches are accepted
//	x-rpcgen-timeout         the default timeout of requests (see below)
//	x-rpcgen-ignore-unknown-notifications  prefixes of notifications dropped when unknown
//
// On a Method Object:
//
//	x-rpcgen-from, x-rpcgen-to  the role that sends it and the one that receives it ("both" for either)
//	x-rpcgen-notification       true for a notification (it has no result)
//	x-rpcgen-also-notification  true for a request that may also be sent as a notification
//	x-rpcgen-params-optional    true when the params may be left out
//	x-rpcgen-params             the schema of the params as a whole, when the descriptors cannot say all of it
//	x-rpcgen-timeout            {milliseconds, cancel, action, description}: how long the caller waits,
//	                            whether it then sends the cancellation notification, and what else it does
//	                            ("error", "close" the connection, "kill" the peer's process)
//	x-rpcgen-idempotent, x-rpcgen-since, x-rpcgen-proposed
//	x-rpcgen-notification-form  the Method Object of the same name sent as a notification by the other role
//
// components.x-rpcgen-errors holds, by error name, what an Error Object
// cannot: its description, the schema of its data (dataSchema), since and
// proposed.
package openrpc
