package app_test

import (
	"reflect"
	"testing"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
)

// TestNoHandlerReachesTheStore holds the application's boundary: no method
// of the Service or its desks hands out the store (or any interface with a
// store method), so a handler changes records only through a use case and
// reads them only through the application's reads.
func TestNoHandlerReachesTheStore(t *testing.T) {
	storeMethods := map[string]bool{}
	for _, port := range []reflect.Type{
		reflect.TypeFor[store.Store](), reflect.TypeFor[store.TicketStore](), reflect.TypeFor[store.LedgerStore](),
		reflect.TypeFor[store.EnrolmentStore](), reflect.TypeFor[store.ProviderStatusStore](),
	} {
		for m := range port.Methods() {
			if m.Name != "Close" {
				storeMethods[m.Name] = true
			}
		}
	}
	for _, owner := range []reflect.Type{reflect.TypeFor[*app.Service](), reflect.TypeFor[*app.TicketDesk](), reflect.TypeFor[*app.Ledger]()} {
		for m := range owner.Methods() {
			for out := range m.Type.Outs() {
				if out.Kind() != reflect.Interface {
					continue
				}
				for im := range out.Methods() {
					if storeMethods[im.Name] {
						t.Errorf("%s.%s returns %s, which has the store's %s: a handler could go around the application",
							owner, m.Name, out, im.Name)
					}
				}
			}
		}
	}
}
