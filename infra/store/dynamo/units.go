package dynamo

import (
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// itemSize is an item's size by DynamoDB's published sizing rules: every
// attribute name plus its value (strings and binaries by length, numbers by
// significant digits, plus a few bytes of overhead per list, map and
// element). It is what request units are billed on.
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberB:
		return len(x.Value)
	case *types.AttributeValueMemberN:
		return numberSize(x.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range x.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range x.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range x.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range x.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range x.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

// numberSize: about one byte per two significant digits, plus one.
func numberSize(s string) int {
	s = strings.TrimLeft(strings.TrimPrefix(s, "-"), "0.")
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	digits := len(strings.ReplaceAll(s, ".", ""))
	return (digits+1)/2 + 1
}

// writeUnits: one write request unit per started KB.
func writeUnits(size int) float64 {
	return math.Max(1, math.Ceil(float64(size)/1024))
}

// readUnits: one read request unit per started 4 KB read strongly
// consistently, half that eventually consistently; a read of nothing still
// costs the minimum.
func readUnits(size int, consistent bool) float64 {
	u := math.Max(1, math.Ceil(float64(size)/4096))
	if !consistent {
		u /= 2
	}
	return u
}
