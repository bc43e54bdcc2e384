package dynamo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/store"
)

// The dictionary is part of the stored format: states written with it can
// only be read with the same bytes.
func TestStateDictionaryNeverChanges(t *testing.T) {
	sum := sha256.Sum256(stateDict)
	if got := hex.EncodeToString(sum[:]); got != "298561f6e82889754bb6042e5099c3e47466eee4a3b0815d657f7a224f0bda46" {
		t.Fatalf("statedict.json changed (sha256 %s): states stored with it could no longer be read; add a new state_enc instead", got)
	}
}

// Both encodings decode; the dictionary one is the smaller; anything else
// is refused by name.
func TestStateEncodings(t *testing.T) {
	var st store.NodeState
	if err := json.Unmarshal(stateDict, &st); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(st)
	plain, err := deflate(raw)
	if err != nil {
		t.Fatal(err)
	}
	dict, err := deflateDict(raw, stateDict)
	if err != nil {
		t.Fatal(err)
	}
	if len(dict) >= len(plain)/2 {
		t.Fatalf("dictionary deflate %d bytes, plain %d", len(dict), len(plain))
	}
	for enc, z := range map[string][]byte{stateEncJSON: plain, stateEncJSONDict: dict} {
		got, err := decodeState(map[string]types.AttributeValue{stateEncAttr: str(enc), stateAttr: &types.AttributeValueMemberB{Value: z}})
		if err != nil || got.Node != st.Node || len(got.Eval.Checks) != len(st.Eval.Checks) {
			t.Fatalf("%s: %v %+v", enc, err, got.Node)
		}
	}
	if _, err := decodeState(map[string]types.AttributeValue{stateEncAttr: str("zstd"), stateAttr: &types.AttributeValueMemberB{Value: dict}}); err == nil {
		t.Fatal("unknown encoding read")
	}
	// Plain deflate read as the dictionary encoding must not pass silently.
	if _, err := decodeState(map[string]types.AttributeValue{stateEncAttr: str(stateEncJSONDict), stateAttr: &types.AttributeValueMemberB{Value: []byte("garbage")}}); err == nil {
		t.Fatal("garbage read")
	}
}
