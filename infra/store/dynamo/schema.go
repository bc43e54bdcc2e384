package dynamo

// The table layout, shared with template.yaml (functions/lambdatest checks
// that the template declares exactly this).
const (
	// PartitionKey and SortKey are the table's primary key (both strings).
	PartitionKey = "pk"
	SortKey      = "sk"
	// IndexName is the one global secondary index, keyed IndexPartitionKey /
	// IndexSortKey. It is sparse: only items that must be found across nodes
	// (unsent alerts) carry its attributes.
	IndexName         = "gsi1"
	IndexPartitionKey = "gsi1pk"
	IndexSortKey      = "gsi1sk"
	// TTLAttribute holds the expiry (Unix seconds) of raw batches; the table's
	// TTL is enabled on it.
	TTLAttribute = "ttl"
)

// IAMActions are the only DynamoDB actions the store calls; template.yaml
// grants these and nothing else.
var IAMActions = []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"}
