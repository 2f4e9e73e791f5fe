// Package jsonschema generates JSON Schemas (draft 2020-12) from a resolved
// [idl.Protocol]. The schemas are built from the types of
// github.com/invopop/jsonschema and written as JSON indented with two
// spaces, with a trailing newline; the same protocol always gives the same
// bytes.
//
// # Files
//
// [Generate] writes, below the output directory:
//
//	schema/<Type>.json                    one per named type, inline ones included
//	schema/methods/<method>.params.json   one per method with params
//	schema/methods/<method>.result.json   one per request
//	schema/errors/<Error>.data.json       one per error with a data type
//	schema/<protocol>.schema.json         the bundle: every named type under $defs
//
// <Type> and <Error> are the IDL names, which hold only ASCII letters,
// digits and underscores. <method> is the file-safe form of the method's
// wire name given by [MethodFileNames] ("tools/call" gives "tools_call",
// "$/cancelRequest" gives "cancelRequest").
//
// Every file stands alone: it carries in its own $defs the named types it
// refers to, directly or not, and every reference is local
// ("#/$defs/<Type>"), so a validator needs no other file. The bundle's
// root accepts any value; its types are meant to be used as
// "<bundle $id>#/$defs/<Type>".
//
// # Identifiers
//
// Each file's $id is [BaseURL] followed by the protocol name and the
// file's path below schema/, e.g.
// "https://rpcgen.dev/schemas/full/Item.json",
// "https://rpcgen.dev/schemas/full/methods/tools_call.params.json" and
// "https://rpcgen.dev/schemas/full/full.schema.json". The protocol's
// version is not part of the $id, so identifiers stay stable across
// versions. Each file's $comment says that rpcgen generated it, with
// rpcgen's version and the IDL file ([gen.JSONComment]).
//
// # Mapping
//
// Objects list their fields under properties, in IDL order (inherited
// fields first), and their required fields under required.
// additionalProperties is left open: the runtime accepts unknown fields, so
// the schemas do too. Maps are objects whose additionalProperties is the
// value type; arrays have items; any is the true schema. A nullable type T
// is {"anyOf": [T, {"type": "null"}]}. Enums are enum lists of strings or
// integers; constants are const; formats are format, except base64, which
// is contentEncoding. Unions without a discriminator are a oneOf of their
// variants when no value can match two of them (different JSON kinds, or
// object variants told apart by disjoint constants or enums), else an anyOf: an
// object may then match overlapping object variants, which the generated
// decoders tell apart by the rule of idl.ChooseObject, several array
// variants all match an empty array (the decoders pick by the first item,
// see idl.ItemUnion), and a catch-all any
// variant is the true schema, last. Discriminated unions are a oneOf of $refs to their variants,
// plus the discriminator as a required property whose enum lists the tags
// (each variant's own schema holds its tag as a const). Docs become
// title (type names) and description; deprecation becomes
// "deprecated": true and a "Deprecated: ..." paragraph in the description;
// defaults and examples become default and examples. A method's params
// and result files take the method's doc and list its examples' params and
// results; a request without a result type has the result schema
// {"type": "null"}. A named type's file holds the type's schema at its
// root; method and error data files hold the schema of their type, which
// for an object is a $ref into their own $defs.
//
// JSON Schema cannot say everything the IDL says: integers are not bounded
// to int64, per-value enum docs and deprecations only appear in the enum's
// description, and format is an annotation that validators only check when
// asked to.
package jsonschema
