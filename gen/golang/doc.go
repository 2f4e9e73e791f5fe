// Package golang generates the Go package of a protocol: its types, method
// names, errors, and for each role an interface, a stub calling the remote
// peer, a dispatcher serving a local implementation and a function
// connecting the two over a byte stream. A role that receives no request
// and no notification gets only its Connect function, which takes no
// implementation (requests sent to it are answered with -32601). The
// generated code links against runtime/jsonrpc and runtime/framing only.
//
// Every file starts with [gen.GoHeader]: the DO NOT EDIT line, rpcgen's
// version and the IDL file. protocol.go refers to the constant of
// runtime/jsonrpc named after rpcgen's version (IsAtLeastVersion0_1_0),
// so the package does not compile against a runtime older than the rpcgen
// that generated it, and the compiler names the constant.
//
// # Representation of IDL types
//
//   - string, integer, number and boolean become string, int64, float64 and
//     bool when the member is required and not nullable, and pointers
//     (*string, *int64, ...) when it is optional or nullable, so that an
//     absent or null member differs from the zero value;
//   - arrays become slices, map<string, T> becomes map[string]T and any
//     becomes json.RawMessage; nil stands for absent or null, and a nil
//     required array or map is sent as [] or {};
//   - references to objects and unions are values when required and not
//     nullable, pointers otherwise; references to enums and to named
//     scalars follow the scalar rule;
//   - objects become structs with json tags (omitempty for optional
//     members) and an UnmarshalJSON that decodes member by member: it
//     names the member that does not decode (as "a.b[2].c"), reports a
//     missing required member or a null one that is not nullable, checks
//     constant members, and ignores unknown members. Constant members are
//     ordinary fields that MarshalJSON fills in when left empty;
//   - enums become a named string or int64 type with one constant per
//     value (<Type><Value>; an integer value without a name gives
//     <Type>N1 or <Type>Minus1), a Valid method and an UnmarshalJSON
//     refusing other values;
//   - unions become a struct with one pointer field per variant, exactly
//     one of which is set, and a constructor per variant; tagged unions are
//     told apart by their discriminator member, untagged ones by the JSON
//     kind of the value, variants that are unions flattened into one
//     decision ([idl.Choices]) while keeping their own Go type, and
//     overlapping object variants by the members an object holds
//     ([idl.ChooseObject], in one pass over the members), and several
//     array variants by the first item of an array ([idl.ItemUnion],
//     looked at in place), an empty array going to the first; an object
//     matching no variant is an error naming the union, unless the last
//     variant is any, a catch-all kept as json.RawMessage in Other;
//   - other named types (aliases) become defined types (type Names
//     []string), except aliases of another named type or of any, which
//     become Go aliases so that they keep its methods;
//   - formats, defaults and constants are documented on the field; values
//     keep their base Go type.
//
// Methods and notifications take their params as a pointer to the params
// type; a request returns its result as a pointer when the result is an
// object or a union, and as its value otherwise.
//
// Every Go name comes from the model ([idl.TypeDef.GoName] and the like).
// Generate refuses, with the position of the IDL name at fault, a protocol
// whose names would collide with each other or with the names it adds
// (Method<Name>, Err<Name>, New<Role>Remote, ...).
package golang
