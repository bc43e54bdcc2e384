package report

// packEdges are the edge tests of each pack's clauses, by pack (see
// packedge_test.go); the packs' conformance tables name them.
var packEdges = map[string][]edge{}
