// Package layers holds no code: its test enforces which way the project's
// imports point (docs/architecture.md). The domain (sla/) imports nothing
// of the project's; the probe (probe/) stands alone beside the backend,
// importing neither the application (functions/) nor its adapters
// (infra/); and the adapters serve the application, never import it.
// A second test keeps every Lambda the Makefile builds free of the
// probe's GPU code, cobra and the packages only the local process and the
// offline commands use.
package layers
