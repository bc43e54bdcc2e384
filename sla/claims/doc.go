// Package claims is the claims ledger's domain: a month's credit claim per
// contract, drafted from the sealed monthly report, and everything that
// happens to it until the money is back — sent (when, how, the provider's
// case), the provider's answer (accepted, partly, refused, with its reason
// and reference), the credits later bills carry against it, and what is
// still outstanding. It knows the provider's own deadlines to answer and to
// credit (the terms' claim.answer_within and claim.credit_within), matches
// the credit lines a bill gives back to open claims (by the provider's
// reference, else by amount and period, never by guess), and sums what was
// recovered per provider and quarter.
//
// Amounts are Cents: integers, so every sum is exact, and every sum is
// kept per currency. Every fact a person records carries when it was
// recorded and by whom (Record), like the books' other administrative
// records. The package is pure: the application (functions/app) keeps the
// ledger in the store and calls these functions with a clock.
//
// On the path from an observation to a report row, this follows the last
// step: the month's claim, after the report, followed to the money.
package claims
