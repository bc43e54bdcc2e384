// Package dynamo implements app.Store on one DynamoDB table, with
// conditional single-item writes only (no transactions: they cost double and
// dynalite, the test server, has none).
package dynamo
