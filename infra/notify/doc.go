// Package notify holds the messaging ports of the backend: the messages the
// application sends (an Alert about an incident, a TicketMessage about a
// provider ticket, a Notice to the team about a contract's month), the
// Notifier and NoticePoster interfaces that deliver them, and the values carried by the buttons on
// alerts. Adapters (infra/slack, the console) implement it; the application
// (functions/app) uses it. It imports nothing of the project's.
//
// On the path of one observation (docs/architecture.md) this is where step 7's live verdict leaves
// the backend: the alert a channel carries.
package notify
