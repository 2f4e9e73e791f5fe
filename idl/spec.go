package idl

// The spec types hold one IDL file as written, with positions, before names
// are resolved. The resolver turns them into the model.

// fileSpec is one decoded IDL file.
type fileSpec struct {
	path     string
	protocol *protoSpec
	includes []nameRef
	types    []*typeDecl
	errors   []*errorSpec
	methods  []*methodSpec
}

// nameRef is a name written in the IDL and where.
type nameRef struct {
	name string
	pos  Pos
}

// protoSpec is the protocol: section.
type protoSpec struct {
	pos                    Pos
	name                   nameRef
	version, doc           string
	lifecycle              string
	roles                  []roleSpec
	framing                nameRef
	transports             []Transport
	ids, cancellation      nameRef
	ordering               nameRef
	handshake              nameRef // the handshake request's name
	versionField           nameRef // handshake: {version_field: ...}
	noBatches              bool    // batches: false
	batchVersions          []nameRef
	batchesPos             Pos // batches: {versions: ...}
	timeout                durationSpec
	onTimeout              *OnTimeout
	rolesPos, transportPos Pos
	ignoreNotes            []nameRef // ignore_unknown_notifications
}

// roleSpec is one entry of protocol.roles.
type roleSpec struct {
	name   nameRef
	doc    string
	goName nameRef
}

// durationSpec is a timeout as written: set when the key is present; d is
// zero for "none".
type durationSpec struct {
	set bool
	d   int64
	pos Pos
}

// typeDecl is one entry of types:.
type typeDecl struct {
	name nameRef
	t    *tspec
}

// tspec is a type as written, in compact or long form.
type tspec struct {
	pos        Pos
	kind       Kind
	ref        string // KindRef: the referenced name
	nullable   bool
	format     string
	formatPos  Pos
	constv     *node
	elem       *tspec    // KindArray, KindMap
	key        *tspec    // KindMap: the keys' type; nil for plain strings
	fields     []*fspec  // KindObject
	extends    []nameRef // KindObject
	additional *tspec    // KindObject: the type of undeclared members kept
	positional bool      // KindObject: sent as an array of its fields
	items      []*tspec  // KindTuple: the type of each position
	values     []*vspec  // KindEnum
	disc       nameRef   // KindUnion: discriminator field, if any
	variants   []*tspec  // KindUnion
	name       nameRef   // inline types: the name chosen with name:
	doc        string
	deprec     string
	example    *node
	numSpec
	metaSpec
}

// numSpec holds what a type as written says of numbers: the width of an
// integer (or of an enum's base) and the bounds of an integer or number.
type numSpec struct {
	width            IntWidth
	minimum, maximum *node
	open             bool    // KindEnum: other values of the base are accepted
	base             nameRef // KindEnum: the base written with base:, if any
}

// metaSpec holds the since: and proposed: keys of a type, field, enum
// value, method or error.
type metaSpec struct {
	since    string
	proposed bool
}

// fspec is one field of an object as written.
type fspec struct {
	name     nameRef
	goName   nameRef
	optional bool
	raw      bool // raw: true, at rawPos
	rawPos   Pos
	doc      string
	deprec   string
	def      *node
	example  *node
	t        *tspec
	metaSpec
}

// vspec is one enum value as written.
type vspec struct {
	value  any // string or int64
	pos    Pos
	name   nameRef
	doc    string
	deprec string
	metaSpec
}

// errorSpec is one entry of errors:.
type errorSpec struct {
	name          nameRef
	code          int64
	codeOK        bool
	codePos       Pos
	message, doc  string
	data          *tspec
	allowReserved bool
	allowPos      Pos
	metaSpec
}

// methodSpec is one entry of methods:.
type methodSpec struct {
	name      nameRef
	goName    nameRef
	from      nameRef
	kind      nameRef
	alsoNote  bool // kind: [request, notification]
	doc       string
	deprec    string
	params    *tspec
	paramsOpt bool // params?:
	result    *tspec
	resultPos Pos
	nullRes   bool // result: "null"
	errors    []nameRef
	errorsPos Pos
	timeout   durationSpec
	onTimeout *OnTimeout
	// idempotent: true marks a request that may run twice to the effect
	// of once; idempotentPos is where it is written.
	idempotent    bool
	idempotentPos Pos
	examples      []*exampleSpec
	// notify is the notification: form, the same wire name sent as a
	// notification by the other role; nil for none.
	notify    *methodSpec
	notifyPos Pos
	metaSpec
}

// exampleSpec is one entry of a method's examples:.
type exampleSpec struct {
	pos            Pos
	doc            string
	params, result *node
	errName        nameRef // error: Name
	errNode        *node   // error: {code, message, data}
	hasError       bool
}
